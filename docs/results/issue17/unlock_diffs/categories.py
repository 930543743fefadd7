#!/usr/bin/env python3
"""A 2-host trace's lock takes and unlocks by kind, each kind's measured
time beside what the replay charged it (loom predict run in-process with
a tally by the same kinds).  Kinds: a take's hand-over (none: kept or
first; self: this rank released it last; other: the other rank did) and
the lock's home (this rank or the other); an unlock with or without
diffs, by the lock's home.  Usage: categories.py TRACE_DIR PLATFORM...
(e.g. /tmp/loom-slow-links/barnes.h2_unlimited.1 and lock_home.sh's
platform files).  Two ranks."""
import contextlib
import io
import os
import runpy
import statistics
import sys

# LOOM_TOOLS: another checkout's tools (an older model), else this one's.
TOOLS = os.environ.get("LOOM_TOOLS") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tools")
sys.path.insert(0, TOOLS)
import loom_model as lm  # noqa: E402
import loom_trace as lt  # noqa: E402


def kind(o, me, n=2):
    x = o.rec
    home = " home=me" if x[5] % n == me else " home=other"
    if o.kind == lm.LOCK and x[3] != 1:
        rel = (x[6] >> 24) & 0xffff
        return ("lock none" if rel == 0 else "lock self" if rel - 1 == me else "lock other") + home
    if o.kind == lm.UNLOCK:
        return ("unlock diff" if any(y[2] == lm.DIFF for y in o.nested) else "unlock nodiff") + home
    return None


trace, plats = sys.argv[1], sys.argv[2:]
measured = {}
for r in lt.load(trace):
    ops, _ = lm.rank_ops(r, "wall")
    for o in ops:
        k = kind(o, r.rank)
        if k:
            measured.setdefault((r.rank, k), []).append((o.end - o.t0) * 1e-3)
# What the replay charged each operation: the growth of its category's
# account until the rank's next operation begins.  The accounts live
# inside the replay's actors, so the replay runs from a copy of the tool's
# source with that tally added to the actor's loop (the tool itself is
# left as it is).
tally = {}
src = open(lm.__file__).read()
hook = """        for j, (i, o, comp, fus) in enumerate(sched):
"""
assert hook in src
src = src.replace(hook, hook + """            if _prev[0] is not None:
                _k, _c, _v = _prev[0]
                TALLY.setdefault((me, _k), []).append(a[_c] - _v)
                _prev[0] = None
            _kk = KIND(o, me, n)
            if _kk:
                _c = "lock" if o.kind == LOCK else "unlock"
                _prev[0] = (_kk, _c, a[_c])
""", 1)
src = src.replace("        sched = ops[me]\n", "        sched = ops[me]\n        _prev = [None]\n", 1)
os.environ["LOOM_TOOL_JOBS"] = "1"  # (the patched module is not importable by a worker)
mod = {"__name__": "loom_model", "__file__": lm.__file__}
exec(compile(src, lm.__file__, "exec"), mod)
mod["TALLY"], mod["KIND"] = tally, kind
sys.modules["loom_model"] = type(sys)("loom_model")
sys.modules["loom_model"].__dict__.update(mod)
tool = runpy.run_path(os.path.join(TOOLS, "loom"), run_name="loom_tool")
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    tool["main"](["predict", trace] + sum((["--platform", p] for p in plats), []))
print(f"{trace}: measured (trace) against replayed, seconds a rank and mean microseconds")
for key in sorted(measured):
    m, p = measured[key], tally.get(key, [])
    print(f"  rank {key[0]} {key[1]:26} {len(m):6d}  measured {sum(m) / 1e6:.3f} s {sum(m) / len(m):6.1f} us"
          f" (median {statistics.median(m):5.1f})  replayed {sum(p):.3f} s {1e6 * sum(p) / max(1, len(p)):6.1f} us")
