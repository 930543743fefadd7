#!/usr/bin/env python3
"""SPLASH-3, unmodified, across emulated hosts: the whole run's wall time
(start-up, the serial initialization that first-touches the data, the
parallel phase) and the program's own parallel-phase time, with two Loom
libraries alternated on the same binaries (the old one by LD_LIBRARY_PATH,
which overrides the binaries' RUNPATH), and the answer lines of every run
against the threads build's.

  python3 docs/results/issue10/claim_read/splash3_ab.py --out S3 --old-lib DIR \
      --launch "scripts/cluster.sh run 2 1 --" [--programs fft,lu,...] [--reps 3] [--json F]

S3: a tree from `scripts/splash3.py build --out S3`.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import splash3  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--old-lib", required=True)
    ap.add_argument("--launch", required=True)
    ap.add_argument("--programs", default="fft,lu,radix,ocean,cholesky")
    ap.add_argument("--size", default="bench", choices=["test", "bench"])
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--json")
    a = ap.parse_args()
    a.mpiexec = os.environ.get("MPIEXEC", os.path.join(ROOT, ".venv", "bin", "mpiexec"))
    names = a.programs.split(",")
    want = {n: splash3.answer(n, splash3.run(a, "threads", n, a.ranks, a.size).stdout) for n in names}
    res = {(n, s): {"wall": [], "own_us": [], "same": []} for n in names for s in "ab"}
    for rep in range(a.reps):
        for n in names:
            for s in ("ab" if rep % 2 == 0 else "ba"):
                env = {"LD_LIBRARY_PATH": a.old_lib} if s == "a" else {}
                t0 = time.monotonic()
                r = splash3.run(a, "loom", n, a.ranks, a.size, env)
                w = time.monotonic() - t0
                m = splash3.re.search(splash3.PROGRAMS[n]["time"], r.stdout)
                res[(n, s)]["wall"].append(w)
                res[(n, s)]["own_us"].append(int(m.group(1)) if m else None)
                res[(n, s)]["same"].append(r.returncode == 0 and splash3.answer(n, r.stdout) == want[n])
        print(f"splash3_ab: repetition {rep + 1} of {a.reps} done", file=sys.stderr, flush=True)
    print(f"# {a.reps} runs each, alternated; {a.launch}; A = LD_LIBRARY_PATH={a.old_lib}, B = the build's; size {a.size}")
    print(f"{'program':10s} {'A wall s':>9s} {'B wall s':>9s} {'B/A':>6s}   {'A own s':>8s} {'B own s':>8s} {'B/A':>6s}  answers (A, B)")
    rows = []
    for n in names:
        ra, rb = res[(n, "a")], res[(n, "b")]
        wa, wb = statistics.median(ra["wall"]), statistics.median(rb["wall"])
        oa = [x for x in ra["own_us"] if x is not None]
        ob = [x for x in rb["own_us"] if x is not None]
        ma = statistics.median(oa) / 1e6 if oa else float("nan")
        mb = statistics.median(ob) / 1e6 if ob else float("nan")
        print(f"{n:10s} {wa:9.3f} {wb:9.3f} {wb / wa:6.3f}   {ma:8.3f} {mb:8.3f} {mb / ma if ma else float('nan'):6.3f}"
              f"  {sum(ra['same'])}/{len(ra['same'])}, {sum(rb['same'])}/{len(rb['same'])}"
              f"   wall ranges [{min(ra['wall']):.3f}, {max(ra['wall']):.3f}] / [{min(rb['wall']):.3f}, {max(rb['wall']):.3f}]")
        rows.append(dict(program=n, a=ra, b=rb))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(launch=a.launch, old_lib=a.old_lib, size=a.size, reps=a.reps, rows=rows), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
