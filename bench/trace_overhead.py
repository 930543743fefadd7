#!/usr/bin/env python3
"""What tracing costs: every application's Loom build run untraced and then
traced (LOOM_TRACE), back to back, --reps times; the table gives the median
time of each and their ratio (the claim), and the trace's size.  --runs
traces with LOOM_TRACE_RUNS=1 as well (what the race report needs: every
diff's byte runs).

  bench/trace_overhead.py [--apps sor,lu,...] [--ranks 2] [--reps 5] [--size paper|test] [--runs] [--json F]
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "apps"))
from run_suite import APPS, TEST_ARGS, build_info, common_args, machine, run  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--apps", default=",".join(APPS))
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--size", choices=["paper", "test"], default="paper")
    ap.add_argument("--runs", action="store_true", help="trace with LOOM_TRACE_RUNS=1 too (the race report's mode)")
    common_args(ap)
    a = ap.parse_args()
    tdir = tempfile.mkdtemp(prefix="loom-trace-overhead-")
    rows = []
    for app in a.apps.split(","):
        exe = os.path.join(a.build_dir, "apps", f"{app}_loom")
        args = (TEST_ARGS.get(app, []) if a.size == "test" else []) + a.extra.split()
        cmd = [a.mpiexec] + a.mpiexec_flags.split() + ["-n", str(a.ranks), exe] + args
        off, on, size, valid = [], [], 0, True
        for rep in range(a.reps):
            for traced in (False, True):
                env = dict(os.environ)
                env.pop("LOOM_TRACE", None)
                env.pop("LOOM_TRACE_RUNS", None)
                if traced:
                    shutil.rmtree(tdir, ignore_errors=True)
                    env["LOOM_TRACE"] = tdir
                    if a.runs:
                        env["LOOM_TRACE_RUNS"] = "1"
                res, err, _ = run(cmd, a.timeout, env)
                if not res:
                    print(f"{app}: FAILED ({err})", file=sys.stderr)
                    valid = False
                    continue
                valid = valid and res.get("valid") is True
                (on if traced else off).append(res["time"])
                if traced:
                    size = sum(os.path.getsize(os.path.join(tdir, f)) for f in os.listdir(tdir))
        if off and on:
            mo, mn = statistics.median(off), statistics.median(on)
            row = {"app": app, "untraced": off, "traced": on, "median_untraced_s": mo, "median_traced_s": mn,
                   "ratio": mn / mo, "trace_bytes": size, "valid": valid}
            rows.append(row)
            print(f"{app:8} untraced {mo:9.4f} s  traced {mn:9.4f} s  ratio {mn / mo:5.3f}  trace {size / 1e6:7.2f} MB"
                  f"  {'valid' if valid else 'INVALID'}", flush=True)
    shutil.rmtree(tdir, ignore_errors=True)
    if rows:
        ratios = sorted(r["ratio"] for r in rows)
        print(f"median ratio over the programs {statistics.median(ratios):.3f}, largest {ratios[-1]:.3f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"suite": "trace_overhead", "loom": build_info(a.build_dir),
                       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "ranks": a.ranks, "reps": a.reps, "runs": a.runs,
                       "size": a.size, "rows": rows, "machine": machine(a.mpiexec)}, f, indent=1)
    return 0 if rows and all(r["valid"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
