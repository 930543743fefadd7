#!/usr/bin/env python3
"""A traced run's lock takes by where the lock came from (the hand-over
value of each lock record, docs/TRACE.md): "none" (no hand-over: a kept
lock taken again with no message, or a first take), "self" (this rank
released it last: taken again through its home), "other" (the other rank
released it last: a hand-over across the ranks), each with its count and
time; and the unlocks.  Usage: locks.py TRACE_DIR...  (run.sh's traces,
e.g. /tmp/loom-slow-links/barnes.h2_1gbit.0)."""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tools"))
import loom_trace as lt  # noqa: E402

LOCK, UNLOCK = 3, 4
for d in sys.argv[1:]:
    print(d)
    for r in lt.load(d):
        by, unlocks = {}, []
        for x in r.recs:
            if x[4] != 0:        # thread 0, as LOOM_STATS times it
                continue
            if x[2] == LOCK and x[3] != 1:
                rel = (x[6] >> 24) & 0xffff
                k = "none" if rel == 0 else ("self" if rel - 1 == r.rank else "other")
                by.setdefault(k, []).append(x[1] / 1e3)
            elif x[2] == UNLOCK:
                unlocks.append(x[1] / 1e3)
        for k, v in sorted(by.items()) + [("unlock", unlocks)]:
            v = sorted(v)
            print(f"  rank {r.rank} {'lock from ' + k if k != 'unlock' else 'unlock':15} {len(v):6d}  {sum(v) / 1e6:.3f} s"
                  f"  median {statistics.median(v):6.1f} us  p90 {v[int(0.9 * len(v))]:6.1f} us")
