#!/usr/bin/env python3
"""Run loom_bench commands from two builds side by side and compare.

For a change that must not move the figures (a restructuring) or that must
move them (an optimization): each round runs every command once with build A
and once with build B, alternating which goes first, so both see the same
machine noise; the table gives, per result, the median over rounds of each
build's per-run median and the ratio B/A.

  compare_builds.py --a OLD/bench/loom_bench --b NEW/bench/loom_bench \
      [--np 2] [--rounds 5] [--mpiexec PATH] [--env K=V ...] [--json OUT] CMD [CMD ...]

--launch replaces "mpiexec -n NP" with a command prefix, e.g. across emulated
hosts: --launch "scripts/cluster.sh run 2 1 --".
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile


def run(launch, bench, cmd, extra_env):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    env = dict(os.environ, **extra_env)
    r = subprocess.run(launch + [bench, cmd, "--json", path], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit(f"compare_builds: {bench} {cmd} failed ({r.returncode}): {r.stderr.strip()[-500:]}")
    with open(path) as f:
        data = json.load(f)
    os.unlink(path)
    out = {}
    for res in data["results"]:
        key = res["name"] + "".join(f" {k}={v}" for k, v in sorted(res.get("params", {}).items()))
        out[key] = (res["median"], res["unit"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="loom_bench of build A (the reference)")
    ap.add_argument("--b", required=True, help="loom_bench of build B")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--launch", help="command prefix instead of 'MPIEXEC -n NP'")
    ap.add_argument("--env", action="append", default=[], help="K=V for every run")
    ap.add_argument("--json", help="write the table as JSON here")
    ap.add_argument("commands", nargs="+")
    o = ap.parse_args()
    extra = dict(kv.split("=", 1) for kv in o.env)
    launch = shlex.split(o.launch) if o.launch else [o.mpiexec, "-n", str(o.np)]
    samples = {}  # (cmd, key) -> {"a": [...], "b": [...], "unit": u}
    for rnd in range(o.rounds):
        for cmd in o.commands:
            order = [("a", o.a), ("b", o.b)] if rnd % 2 == 0 else [("b", o.b), ("a", o.a)]
            for tag, bench in order:
                for key, (med, unit) in run(launch, bench, cmd, extra).items():
                    s = samples.setdefault((cmd, key), {"a": [], "b": [], "unit": unit})
                    s[tag].append(med)
    rows = []
    print(f"# {o.rounds} rounds, {' '.join(launch)}, A = {o.a}, B = {o.b}" + (f", env {extra}" if extra else ""))
    print(f"{'command':10} {'result':48} {'unit':6} {'A':>10} {'B':>10} {'B/A':>6}  A range / B range")
    for (cmd, key), s in samples.items():
        if not s["a"] or not s["b"]:
            continue
        a, b = statistics.median(s["a"]), statistics.median(s["b"])
        ratio = b / a if a else float("nan")
        rows.append({"command": cmd, "result": key, "unit": s["unit"], "a": a, "b": b, "ratio": ratio,
                     "a_runs": s["a"], "b_runs": s["b"]})
        print(f"{cmd:10} {key:48} {s['unit']:6} {a:10.4g} {b:10.4g} {ratio:6.3f}  "
              f"[{min(s['a']):.4g}, {max(s['a']):.4g}] / [{min(s['b']):.4g}, {max(s['b']):.4g}]")
    if o.json:
        with open(o.json, "w") as f:
            json.dump({"rounds": o.rounds, "launch": launch, "a": o.a, "b": o.b, "env": extra, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
