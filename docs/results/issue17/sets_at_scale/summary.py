#!/usr/bin/env python3
"""A program's predicted times at each rank count from several independent
sets of traces (run.sh's APP_I.json, model_scaling.py's output): each
set's time and speed-up over its own 1-rank prediction, the speed-up
over the median 1-rank prediction of all sets, and the barrier share;
then the same speed-ups for each phase the sets name (Barnes-Hut's tree
build and forces).  Usage: summary.py APP APP_1.json APP_2.json ..."""
import json
import statistics
import sys

app = sys.argv[1]
sets = []
for f in sys.argv[2:]:
    rows = {r["ranks"]: r for r in json.load(open(f))["rows"] if r["app"] == app and r["topology"] == "star"}
    sets.append(rows)
ranks = sorted(set().union(*[s.keys() for s in sets]))


def table(name, get, share):
    one = statistics.median(get(s[1]) for s in sets if 1 in s)
    print(f"{name}: {len(sets)} sets of traces; 1-rank predictions "
          + ", ".join(f"{get(s[1]) * 1e3:.1f}" for s in sets if 1 in s) + f" ms (median {one * 1e3:.1f})")
    print(f"{'ranks':>5}  {'predicted ms, each set':40}  {'speed-up over own 1-rank':32}  {'over the median':18}  "
          f"{share} share")
    for n in ranks:
        got = [s[n] for s in sets if n in s]
        t = [get(r) for r in got]
        own = [get(s[1]) / get(s[n]) for s in sets if n in s and 1 in s]
        sh = []
        for r in got:
            b = r["breakdown_s"] if name == app else r["phases"][name]["breakdown_s"]
            sh.append(b.get(share, 0) / max(1e-12, sum(b.values())))
        print(f"{n:5d}  {', '.join(f'{x * 1e3:.1f}' for x in t):40}  {', '.join(f'{x:.2f}' for x in own):32}  "
              f"{one / statistics.median(t):5.2f} ({one / max(t):.2f}-{one / min(t):.2f})  "
              + ", ".join(f"{x:.0%}" for x in sh))


table(app, lambda r: r["predicted_s"], "barrier")
for ph in sorted({p for s in sets for r in s.values() for p in r.get("phases", {})}):
    table(ph, lambda r, ph=ph: r["phases"][ph]["predicted_s"], "lock" if ph == "tree" else "barrier")
