#!/usr/bin/env python3
"""The applications of two builds side by side: for a change whose worth
the micro-benchmarks cannot tell alone.

  apps/ab_builds.py --a OLD_BUILD --b NEW_BUILD [--apps sor,lu,...] [--reps 5]
                    [--np 2] [--threads T] [--launch "scripts/cluster.sh run 2 1 --"] [--json OUT]
                    [--env-a "LOOM_X=v ..."] [--env-b "LOOM_X=v ..."]

Each repetition runs every program once with build A and once with build B
(its Loom build, BUILD/apps/<name>_loom, at the papers' sizes), alternating
which goes first, so that both see the same machine; every run must
validate.  Prints per program the median time of each build with its
range, and the ratio of the medians B/A.  --launch replaces
"MPIEXEC -n NP" (across emulated hosts: "scripts/cluster.sh run 2 1 --").
--env-a / --env-b add settings to A's or B's environment: with the same
build twice, they compare two settings in alternated runs.  The JSON is
written after every repetition, so a run cut short keeps what it measured.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_once(cmd, timeout, env):
    """The program's timed part and the whole launch's wall time (start-up,
    set-up and exit included: what a user waits for), in seconds."""
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    wall = time.monotonic() - t0
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            d = json.loads(line[len("RESULT "):])
            if not d.get("valid"):
                sys.exit(f"ab_builds: {' '.join(cmd)} did not validate")
            return d["time"], wall
    sys.exit(f"ab_builds: {' '.join(cmd)} printed no result (exit {p.returncode}):\n{p.stderr[-2000:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="build directory A (the reference)")
    ap.add_argument("--b", required=True, help="build directory B")
    ap.add_argument("--apps", default="sor,lu,linpack,cg,mg,ep,is")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--mpiexec", default=os.path.join(ROOT, ".venv", "bin", "mpiexec"))
    ap.add_argument("--launch", help="command prefix instead of 'MPIEXEC -n NP'")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--threads", type=int, default=1, help="threads per rank (the hybrid build: --threads T)")
    ap.add_argument("--json")
    ap.add_argument("--env-a", default="", help="KEY=VALUE settings for A's runs, space-separated")
    ap.add_argument("--env-b", default="", help="KEY=VALUE settings for B's runs, space-separated")
    a = ap.parse_args()
    envs = {}
    for b, spec in (("a", a.env_a), ("b", a.env_b)):
        envs[b] = dict(os.environ)
        for kv in shlex.split(spec):
            if "=" not in kv:
                sys.exit(f"ab_builds: --env-{b} takes KEY=VALUE settings, not {kv!r}")
            k, v = kv.split("=", 1)
            envs[b][k] = v
    prefix = shlex.split(a.launch) if a.launch else [a.mpiexec, "-n", str(a.np)]
    apps = a.apps.split(",")
    times = {(app, b): [] for app in apps for b in "ab"}
    walls = {(app, b): [] for app in apps for b in "ab"}
    for rep in range(a.reps):
        for app in apps:
            order = "ab" if rep % 2 == 0 else "ba"
            for b in order:
                exe = os.path.join(a.a if b == "a" else a.b, "apps", f"{app}_loom")
                extra = ["--threads", str(a.threads)] if a.threads > 1 else []
                t, w = run_once(prefix + [exe] + extra, a.timeout, envs[b])
                times[(app, b)].append(t)
                walls[(app, b)].append(w)
        print(f"ab_builds: repetition {rep + 1} of {a.reps} done", file=sys.stderr, flush=True)
        rows = summary(apps, times, walls, quiet=True)
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"a": a.a, "b": a.b, "env_a": a.env_a, "env_b": a.env_b, "launch": prefix,
                           "threads": a.threads, "reps": rep + 1, "rows": rows}, f, indent=1)
    print(f"# {a.reps} repetitions, {' '.join(prefix)}" + (f" x {a.threads} threads" if a.threads > 1 else "") +
          f"; A = {a.a}{' ' + a.env_a if a.env_a else ''}, B = {a.b}{' ' + a.env_b if a.env_b else ''}")
    print(f"{'program':10s} {'A s':>8s} {'B s':>8s} {'B/A':>6s}  A range / B range"
          f"  | launch wall: {'A s':>8s} {'B s':>8s} {'B/A':>6s}")
    summary(apps, times, walls, quiet=False)
    return 0


def summary(apps, times, walls, quiet):
    rows = []
    for app in apps:
        ta, tb = times[(app, "a")], times[(app, "b")]
        ma, mb = statistics.median(ta), statistics.median(tb)
        wa, wb = statistics.median(walls[(app, "a")]), statistics.median(walls[(app, "b")])
        if not quiet:
            print(f"{app:10s} {ma:8.3f} {mb:8.3f} {mb / ma:6.3f}  [{min(ta):.3f}, {max(ta):.3f}] / [{min(tb):.3f}, {max(tb):.3f}]"
                  f"  | {wa:8.3f} {wb:8.3f} {wb / wa:6.3f}")
        rows.append({"app": app, "a": ta, "b": tb, "median_a": ma, "median_b": mb, "ratio": mb / ma,
                     "wall_a": walls[(app, "a")], "wall_b": walls[(app, "b")], "wall_ratio": wb / wa})
    return rows


if __name__ == "__main__":
    sys.exit(main())
