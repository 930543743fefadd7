#!/usr/bin/env python3
"""Each rank's computation in the timed region of a trace (from its last
loom_stats_reset to the end, less the last interval: the closing clock
check of a traced run, whose round trips cost far more across hosts), from the thread's
CPU time and from wall time (the replay's --compute cpu and wall), and
their ratio: how much of the computation's wall time the rank's thread
did not run.

  split.py TRACE_DIR [...]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tools"))
import loom_model as lm  # noqa: E402
import loom_trace as lt  # noqa: E402

for d in sys.argv[1:]:
    cells = []
    for r in lt.load(d):
        resets = [x[0] for x in r.recs if x[2] == lm.RESET and x[4] == 0]
        t0 = resets[-1] if resets else 0
        got = {}
        for mode in ("cpu", "wall"):
            ops, _ = lm.rank_ops(r, mode)
            got[mode] = sum(o.compute or 0.0 for o in ops[:-1] if o.t0 >= t0)
        cells.append(f"rank {r.rank}: cpu {got['cpu']:.4f} s, wall {got['wall']:.4f} s ({got['wall'] / max(got['cpu'], 1e-12):.3f})")
    print(f"{os.path.basename(d.rstrip('/'))}: " + "; ".join(cells))
