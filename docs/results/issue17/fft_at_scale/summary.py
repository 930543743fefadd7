#!/usr/bin/env python3
"""FFT's predicted times at each rank count from several independent sets
of traces (run.sh's fft_I.json, model_scaling.py's output): each set's
time and speed-up over its own 1-rank prediction, the speed-up over the
median 1-rank prediction of all sets, and the barrier share.  Usage:
summary.py fft_1.json fft_2.json ..."""
import json
import statistics
import sys

sets = []
for f in sys.argv[1:]:
    rows = {r["ranks"]: r for r in json.load(open(f))["rows"] if r["app"] == "fft" and r["topology"] == "star"}
    sets.append(rows)
ranks = sorted(set().union(*[s.keys() for s in sets]))
one = statistics.median(s[1]["predicted_s"] for s in sets if 1 in s)
print(f"{len(sets)} sets of traces; 1-rank predictions "
      + ", ".join(f"{s[1]['predicted_s'] * 1e3:.1f}" for s in sets if 1 in s) + f" ms (median {one * 1e3:.1f})")
print(f"{'ranks':>5}  {'predicted ms, each set':30}  {'speed-up over own 1-rank':28}  {'over the median':18}  barrier share")
for n in ranks:
    got = [s[n] for s in sets if n in s]
    t = [r["predicted_s"] for r in got]
    own = [s[1]["predicted_s"] / s[n]["predicted_s"] for s in sets if n in s and 1 in s]
    print(f"{n:5d}  {', '.join(f'{x * 1e3:.1f}' for x in t):30}  {', '.join(f'{x:.2f}' for x in own):28}  "
          f"{one / statistics.median(t):5.2f} ({one / max(t):.2f}-{one / min(t):.2f})  "
          + ", ".join(f"{r['share']['barrier']:.0%}" for r in got))
