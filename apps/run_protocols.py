#!/usr/bin/env python3
"""Run programs under every coherence protocol and transport, side by side,
as the SCASH paper's figures show them: run time and the overhead breakdown
(fault, barrier, lock, unlock, diff, update, polling as fractions of run
time, averaged over ranks) plus the counts the protocols differ in.

  apps/run_protocols.py [--apps lu,fft,barnes] [--ranks 2] [--reps 3]
                        [--protocols hlrc,erc-invalidate,erc-update]
                        [--transports rma,async] [--json docs/results/protocols.json]

Each configuration runs --reps times; the row is the run with the median
time (its own breakdown and counts, not a mix of runs).  Every number comes
from the programs' RESULT lines.  Sizes are the programs' defaults (the
papers' sizes) unless --extra says otherwise.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_suite import ROOT, build_info, common_args, machine, run  # noqa: E402

CATS = ["fault", "barrier", "lock", "unlock", "diff", "update", "polling"]
COUNTS = ["faults", "pages_fetched", "diffs", "invalidations", "notices", "updates"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--apps", default="lu,fft,barnes")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--protocols", default="hlrc,erc-invalidate,erc-update")
    ap.add_argument("--transports", default="rma,async")
    common_args(ap)
    a = ap.parse_args()

    rows = []
    for app in [x for x in a.apps.split(",") if x]:
        exe = os.path.join(a.build_dir, "apps", f"{app}_loom")
        for transport in a.transports.split(","):
            for proto in a.protocols.split(","):
                env = dict(os.environ, LOOM_PROTOCOL=proto, LOOM_TRANSPORT=transport)
                cmd = [a.mpiexec] + a.mpiexec_flags.split() + ["-n", str(a.ranks), exe] + a.extra.split()
                runs = []
                for k in range(a.reps):
                    print(f"{app} {transport} {proto} run {k + 1}/{a.reps} ...", end="", file=sys.stderr, flush=True)
                    res, err, wall = run(cmd, a.timeout, env)
                    print(f" {res['time']:.4f} s" if res else f" FAILED ({err})", file=sys.stderr)
                    if res:
                        runs.append(res)
                row = {"app": app, "transport": transport, "protocol": proto, "ranks": a.ranks,
                       "times": [r["time"] for r in runs]}
                if runs:
                    med = sorted(runs, key=lambda r: r["time"])[len(runs) // 2]
                    row.update(time=med["time"], valid=all(r.get("valid") for r in runs),
                               breakdown=med.get("breakdown", {}), counts=med.get("counts", {}))
                rows.append(row)

    hdr = (f"{'program':8} {'transport':9} {'protocol':14} {'time s':>8} {'vs hlrc':>7} {'ok':>3}  " +
           " ".join(f"{c:>7}" for c in CATS) + "  " + " ".join(f"{c[:9]:>9}" for c in COUNTS))
    print(hdr)
    print("-" * len(hdr))
    base = {(r["app"], r["transport"]): r.get("time") for r in rows if r["protocol"] == "hlrc"}
    for r in rows:
        t, b = r.get("time"), base.get((r["app"], r["transport"]))
        rel = t / b if t and b else None
        f = lambda x, w, p: f"{x:>{w}.{p}f}" if isinstance(x, (int, float)) else f"{'-':>{w}}"
        bd, ct = r.get("breakdown", {}), r.get("counts", {})
        print(f"{r['app']:8} {r['transport']:9} {r['protocol']:14} {f(t, 8, 4)} {f(rel, 7, 2)} "
              f"{'yes' if r.get('valid') else 'NO':>3}  " + " ".join(f(bd.get(c), 7, 3) for c in CATS) + "  " +
              " ".join(f(ct.get(c), 9, 0) for c in COUNTS))
        r["vs_hlrc"] = rel
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w") as fh:
            json.dump({"suite": "protocols", "loom": build_info(a.build_dir),
                       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "ranks": a.ranks, "reps": a.reps, "rows": rows,
                       "loom_config": {k: v for k, v in os.environ.items() if k.startswith("LOOM_")} or "defaults",
                       "machine": machine(a.mpiexec)}, fh, indent=1)
        print(f"wrote {a.json}", file=sys.stderr)
    return 0 if all(r.get("valid") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
