"""SPLASH-3, unmodified, with two Loom libraries alternated (the same
binaries; the first with LD_LIBRARY_PATH=OLD): each program's own time
(its CLOCK lines, us) per run, and the medians and their ratio new / old.

  python3 splash3_ab.py --out build/splash3 --old DIR --programs ocean,fft --reps 8 [--launch CMD] [--size test]
"""
import argparse
import os
import re
import statistics
import sys
import types

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "../../../../scripts"))
import splash3  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--old", required=True)
ap.add_argument("--programs", required=True)
ap.add_argument("--reps", type=int, default=8)
ap.add_argument("--ranks", type=int, default=2)
ap.add_argument("--size", default="test")
ap.add_argument("--launch", default="")
a = ap.parse_args()
opts = types.SimpleNamespace(out=os.path.abspath(a.out), launch=a.launch, mpiexec=os.environ.get("MPIEXEC", "mpiexec"), timeout=600)
times = {p: {"old": [], "new": []} for p in a.programs.split(",")}
for i in range(a.reps):
    for p in times:
        for v in (("old", "new") if i % 2 == 0 else ("new", "old")):
            env = {"LD_LIBRARY_PATH": a.old} if v == "old" else {}
            r = splash3.run(opts, "loom", p, a.ranks, a.size, env)
            m = re.search(splash3.PROGRAMS[p]["time"], r.stdout)
            if r.returncode != 0 or not m:
                print(f"{p} {v}: run failed (exit {r.returncode})", file=sys.stderr)
                continue
            times[p][v].append(int(m.group(1)))
    print(f"splash3_ab: repetition {i + 1} of {a.reps} done", file=sys.stderr, flush=True)
print(f"# {a.reps} repetitions alternated, {a.ranks} ranks, size {a.size}, launch: {a.launch or 'mpiexec'}; old = LD_LIBRARY_PATH={a.old}")
print(f"{'program':16} {'old us':>9} {'new us':>9} {'new/old':>8}  old range / new range")
for p, t in times.items():
    if not t["old"] or not t["new"]:
        continue
    o, n = statistics.median(t["old"]), statistics.median(t["new"])
    print(f"{p:16} {o:9.0f} {n:9.0f} {n / o:8.3f}  [{min(t['old'])}, {max(t['old'])}] / [{min(t['new'])}, {max(t['new'])}]")
