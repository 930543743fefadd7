#!/usr/bin/env python3
"""A 2-rank trace's requests to the other rank (lock takes that ask it:
the lock homed there, or a kick of it as keeper; unlocks whose diffs go to
a home there), by the time since this rank's previous such request ended:
if the home's protocol thread napped longer the longer it had been idle,
the requests after long gaps would cost much more.  Usage: gaps.py
TRACE_DIR... (e.g. /tmp/loom-slow-links/barnes.h2_unlimited.1)."""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tools"))
import loom_model as lm  # noqa: E402
import loom_trace as lt  # noqa: E402

EDGES = (10, 30, 70, 150, 310, 630, float("inf"))
for d in sys.argv[1:]:
    print(d)
    for r in lt.load(d):
        ops, _ = lm.rank_ops(r, "wall")
        other = 1 - r.rank
        prev_end, buckets = None, {}
        for o in ops:
            x = o.rec
            if o.kind == lm.LOCK and x[3] != 1:
                rel = (x[6] >> 24) & 0xffff
                req, kind = (x[5] % 2 == other and rel != 0) or (rel - 1 == other and x[5] % 2 == r.rank), "lock"
            elif o.kind == lm.UNLOCK:
                req, kind = any(y[2] == lm.DIFF and (y[6] >> 48) == other for y in o.nested), "diff"
            else:
                continue
            if not req:
                continue
            if prev_end is not None:
                gap = (o.t0 - prev_end) / 1e3
                edge = next(k for k in EDGES if gap < k)
                buckets.setdefault((kind, edge), []).append((o.end - o.t0) / 1e3)
            prev_end = o.end
        for (kind, edge), v in sorted(buckets.items()):
            v.sort()
            print(f"  rank {r.rank} {kind:4} gap under {edge:>5.0f} us: {len(v):5d}  median {statistics.median(v):6.1f} us"
                  f"  mean {sum(v) / len(v):6.1f}  p90 {v[int(0.9 * len(v))]:6.1f}")
