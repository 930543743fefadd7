#!/usr/bin/env python3
"""A placement from the reference pattern, predicted and measured (issue
#17): run an application once traced, let `loom place` propose homes, then
run it --reps times without and with LOOM_PLACEMENT, alternating, and
replay the trace on a platform file with and without the placement
(`loom predict --window 1:-1`: the timed part between the first and last
barriers), each interval's computation from a second traced run without
LOOM_TRACE_HOMES (--compute-of), and from the homes trace's own.  Prints
and writes (--json) the measured medians, the predicted times, and their
ratios.

  bench/placement_eval.py --app is [--ranks 2] [--reps 5] [--platform P.json ...]
                          [--launch "scripts/cluster.sh run 2 1 --"] [--json F]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "apps"))
from run_suite import build_info, machine, run  # noqa: E402


def predict(tool, trace, platforms, placement, rph, compute_of=""):
    cmd = [sys.executable, tool, "predict", trace, "--window", "1:-1", "--json", "--ranks-per-host", str(rph)]
    for x in platforms:
        cmd += ["--platform", x]
    if placement:
        cmd += ["--placement", placement]
    if compute_of:
        cmd += ["--compute-of", compute_of]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"loom predict failed: {p.stderr.strip()[-500:]}")
    j = json.loads(p.stdout)
    return j["predicted_window_s"], j["traced_window_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--app", required=True, help="an application of apps/ (its Loom build: sor is the stencil)")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--ranks-per-host", type=int, default=0, help="for the prediction (default: all on one host, "
                    "or one a host with --launch)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--platform", action="append", default=[],
                    help="platform files for the prediction, merged in order (default: this machine's one-host file)")
    ap.add_argument("--launch", default="", help="a launcher instead of mpiexec -n RANKS (ending in --)")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--mpiexec", default=os.path.join(ROOT, ".venv", "bin", "mpiexec"))
    ap.add_argument("--args", default="", help="extra program arguments")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    a.platform = a.platform or [os.path.join(ROOT, "docs", "results", "issue17", "platform_one_host.json")]
    tool = os.path.join(ROOT, "tools", "loom")
    exe = [os.path.join(a.build_dir, "apps", f"{a.app}_loom")]
    launch = a.launch.split() if a.launch else [a.mpiexec, "-n", str(a.ranks)]
    cmd = launch + exe + a.args.split()
    rph = a.ranks_per_host or (1 if a.launch else a.ranks)
    work = tempfile.mkdtemp(prefix="loom-placement-")
    trace = os.path.join(work, "trace")
    env = dict(os.environ, LOOM_TRACE=trace, LOOM_TRACE_HOMES="1")
    env.pop("LOOM_PLACEMENT", None)
    res, err, _ = run(cmd, a.timeout, env)
    if not res:
        print(f"placement_eval: the traced run failed: {err}", file=sys.stderr)
        return 1
    # The same command traced without LOOM_TRACE_HOMES: its computation is
    # the run's (each home fault of the homes trace leaves about 1 us more
    # in the traced computation than its trap's calibrated price), and the
    # predictions take it interval by interval (loom predict --compute-of).
    plain = os.path.join(work, "plain")
    penv = dict(env, LOOM_TRACE=plain)
    penv.pop("LOOM_TRACE_HOMES")
    res, err, _ = run(cmd, a.timeout, penv)
    if not res:
        print(f"placement_eval: the plain traced run failed: {err}", file=sys.stderr)
        return 1
    placement = os.path.join(work, "placement.txt")
    p = subprocess.run([sys.executable, tool, "place", trace, "--out", placement], capture_output=True, text=True)
    print(p.stdout.strip())
    if p.returncode != 0:
        print(f"placement_eval: loom place failed: {p.stderr.strip()}", file=sys.stderr)
        return 1
    moved = sum(int(line.split(", ")[1].split()[0]) for line in p.stdout.splitlines() if line.startswith("block "))
    times = {"default": [], "placed": []}
    for rep in range(a.reps):
        for which in ("default", "placed"):
            e = dict(os.environ)
            e.pop("LOOM_TRACE", None)
            # Ranks of one host run the protocol, as the traced run does (a
            # trace turns LOOM_HOST_SHARE off) and as the model replays it,
            # not pages shared from their homes, where homes barely matter.
            e.setdefault("LOOM_HOST_SHARE", "0")
            e.pop("LOOM_PLACEMENT", None)
            if which == "placed":
                e["LOOM_PLACEMENT"] = placement
            res, err, _ = run(cmd, a.timeout, e)
            if not res or res.get("valid") is False:
                print(f"placement_eval: {which} run {rep} failed: {err or 'invalid'}", file=sys.stderr)
                return 1
            times[which].append(res["time"])
            print(f"{which:8} run {rep}: {res['time']:.4f} s", flush=True)
    pred_default, traced = predict(tool, trace, a.platform, "", rph, plain)
    pred_placed, _ = predict(tool, trace, a.platform, placement, rph, plain)
    # As before --compute-of: the homes trace's own computation.
    homes_default, _ = predict(tool, trace, a.platform, "", rph)
    homes_placed, _ = predict(tool, trace, a.platform, placement, rph)
    md, mp = statistics.median(times["default"]), statistics.median(times["placed"])
    out = {"suite": "placement_eval", "app": a.app, "ranks": a.ranks, "command": cmd, "reps": a.reps,
           "platform": a.platform, "pages_moved": moved, "measured_s": times,
           "median_default_s": md, "median_placed_s": mp, "measured_ratio": mp / md,
           "predicted_default_s": pred_default, "predicted_placed_s": pred_placed,
           "predicted_ratio": pred_placed / pred_default, "traced_window_s": traced,
           "predicted_default_homes_compute_s": homes_default, "predicted_placed_homes_compute_s": homes_placed,
           "predicted_ratio_homes_compute": homes_placed / homes_default,
           "placement": open(placement).read(), "loom": build_info(a.build_dir),
           "env": {k: v for k, v in sorted(os.environ.items()) if k.startswith("LOOM_")},
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": machine(a.mpiexec)}
    print(f"{a.app}: {moved} pages moved; measured {md:.4f} -> {mp:.4f} s ({mp / md:.3f}); "
          f"predicted {pred_default:.4f} -> {pred_placed:.4f} s ({pred_placed / pred_default:.3f}); "
          f"with the homes trace's computation {homes_default:.4f} -> {homes_placed:.4f} s ({homes_placed / homes_default:.3f})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
