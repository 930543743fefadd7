#!/usr/bin/env python3
"""A traced run's lock takes from the other rank (locks.py's "other"),
each split at the moment the lock was free: the part spent waiting while
the other rank still held it (its unlock that left the hand-over value
this take got ended after the take began) and the rest, the hand-over
itself.  By the lock's home (this rank's, or the other's) and by whether
the lock was held when the take began ("held") or had been released
before it ("free": a kept lock kicked, or a lock released to its home).
The ranks' records are put on one clock with the trace's anchors
(loom_trace.Rank.to_global; the bound it prints is their error).  Usage:
locks_wait.py TRACE_DIR...  (run.sh's traces, e.g.
/tmp/loom-slow-links/barnes.h2_1gbit.0)."""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tools"))
import loom_trace as lt  # noqa: E402

LOCK, UNLOCK = 3, 4


def line(name, v):
    if not v:
        return f"    {name:34} {0:6d}"
    v = sorted(v)
    return (f"    {name:34} {len(v):6d}  mean {statistics.fmean(v):6.1f} us  median {statistics.median(v):6.1f} us"
            f"  p90 {v[int(0.9 * len(v))]:6.1f} us")


for d in sys.argv[1:]:
    ranks = lt.load(d)
    n = len(ranks)
    print(d, f"(clock bound {max(r.bound_ns() for r in ranks) / 1e3:.1f} us)")
    # The end of each unlock by the hand-over value it left: (rank, value) -> global ns.
    left = {}
    for r in ranks:
        for x in r.recs:
            if x[4] == 0 and x[2] == UNLOCK and x[6]:
                left[(r.rank, x[6])] = r.to_global(x[0] + x[1])
    for r in ranks:
        cls = {}
        for x in r.recs:
            if x[4] != 0 or x[2] != LOCK or x[3] == 1:
                continue
            rel = (x[6] >> 24) & 0xffff
            if rel == 0 or rel - 1 == r.rank:
                continue
            t0 = r.to_global(x[0])
            end = left.get((rel - 1, x[6]))
            if end is None:
                continue
            held = min(max(0.0, end - t0), x[1]) / 1e3
            home = "own home" if x[5] % n == r.rank else "other's home"
            state = "held" if end > t0 else "free"
            c = cls.setdefault((home, state), ([], [], []))
            c[0].append(x[1] / 1e3)
            c[1].append(held)
            c[2].append(x[1] / 1e3 - held)
        print(f"  rank {r.rank}")
        for (home, state), (tot, held, rest) in sorted(cls.items()):
            print(f"   lock from other, {home}, {state} when asked: {len(tot)} takes, {sum(tot) / 1e6:.3f} s")
            print(line("in all", tot))
            print(line("while the other held it", held))
            print(line("after it was free", rest))
