#!/usr/bin/env python3
"""Run the application suite on both builds and print the table the SCASH
paper plots: program, ranks, Loom time, threads time, their ratio, speed-up
over 1 rank, validation, and the Loom overhead breakdown (fault, barrier,
lock, unlock, diff, polling) as fractions of run time.

  apps/run_suite.py [--apps sor,lu,...] [--ranks 1,2] [--size paper|test]
                    [--reps R] [--json results/apps.json] [--build-dir build]
                    [--timeout 1800] [--hosts H]

--reps R runs every program R times (interleaved: each repetition runs every
row once) and reports the median time, with the distribution-free 95%
confidence interval of the median (order statistics, as loom_bench; with
fewer than 6 repetitions the interval is [min, max]); the breakdown is the
median run's.  More ranks than cores is allowed, with a warning: such times
measure time-sharing, not speed-up.

--threads T also runs the Loom build of every row whose worker count T
divides as ranks x threads: r/T ranks of T threads each (the hybrid build,
par.h), and adds its time and its ratio to the threads build to the table:
at r = 2, --threads 2 compares 1 rank x 2 threads with 2 ranks x 1 thread
and 2 threads, on the same cores in the same run.  T may be a list:
--ranks 16 --threads 16,8 runs 1 x 16 and 2 x 8 beside 16 x 1 and 16
threads (the JSON keys the shapes hybrid, hybrid_t8, ...: the first T is
"hybrid", as with one T).

--hosts H also runs the Loom build of every row whose rank count H divides
across H emulated hosts (scripts/cluster.sh run H ranks/H; needs root and
'scripts/cluster.sh up H' first), and adds its time, its ratio to the
one-host run and its breakdown to the table.

Every number comes from the programs' own RESULT lines; nothing is computed
here except ratios.  The JSON holds every row, the Loom configuration (the
LOOM_* environment) and a description of the machine.
"""
import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APPS = ["sor", "lu", "linpack", "fft", "fft3d", "barnes", "is", "ep", "cg", "mg", "nas_lu"]
# --size paper runs every program with its defaults, the papers' sizes (nas_lu:
# class W, 33^3 x 300 iterations).  The small sizes the ctest tests use (keep
# in step with apps/CMakeLists.txt):
TEST_ARGS = {
    "sor": ["--n", "130", "--iters", "300"],
    "lu": ["--n", "256", "--b", "32"],
    "linpack": ["--n", "384", "--nb", "32"],
    "fft": ["--m", "12"],
    "fft3d": ["--n", "16", "--iters", "2"],
    "barnes": ["--bodies", "1024", "--steps", "2"],
    "is": ["--log2keys", "16", "--log2maxkey", "11"],
    "ep": ["--log2pairs", "18"],
    "cg": ["--n", "1400", "--iters", "15"],
    "mg": ["--n", "16", "--iters", "4"],
    "nas_lu": ["--class", "S"],
}
CATS = ["fault", "barrier", "lock", "unlock", "diff", "polling"]


def run(cmd, timeout, env):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        out, rc = p.stdout, p.returncode
        err = p.stderr
    except subprocess.TimeoutExpired:
        return None, f"timeout after {timeout} s", time.time() - t0
    for line in out.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):]), (err.strip().splitlines() or [""])[-1] if rc else "", time.time() - t0
    return None, f"exit {rc}: {(err.strip().splitlines() or ['no output'])[-1]}", time.time() - t0


def machine(mpiexec):
    info = {"platform": platform.platform(), "cores": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        v = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30).stdout
        info["mpiexec"] = " ".join(v.split()[:6])
    except Exception:  # noqa: BLE001 - description only
        pass
    return info


def build_info(build_dir):
    """What built the Loom library of this build (written at build time)."""
    try:
        with open(os.path.join(build_dir, "loom_build_info.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"version": "unknown", "commit": "unknown"}


def median_ci(xs):
    """Median and distribution-free 95% CI of the median (bench/harness.cpp's rule)."""
    v = sorted(xs)
    n = len(v)
    med = v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
    h = 1.96 * n ** 0.5 / 2
    j, k = int(math.floor(n / 2 - h)), int(math.ceil(n / 2 + h))
    if n < 6 or j < 0 or k > n - 1:
        return med, [v[0], v[-1]]
    return med, [v[j], v[k]]


def warn_oversubscribed(counts, what):
    """Say so when a run asks for more processes or threads than there are cores."""
    cores = os.cpu_count() or 1
    over = sorted({c for c in counts if c > cores})
    if over:
        print(f"warning: {what} {', '.join(map(str, over))} on {cores} cores: oversubscribed, so those times "
              f"measure time-sharing, not speed-up", file=sys.stderr)


def common_args(ap):
    """The options every suite runner shares."""
    ap.add_argument("--json", default="", help="write every row, the configuration and the machine here")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"), help="where the apps are built (default build)")
    ap.add_argument("--mpiexec", default=os.path.join(ROOT, ".venv", "bin", "mpiexec"), help="the launcher")
    ap.add_argument("--mpiexec-flags", default="", help="extra launcher flags (Open MPI as root: --allow-run-as-root)")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds one run may take (default 1800)")
    ap.add_argument("--extra", default="", help="extra arguments for every program")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--apps", default=",".join(APPS), help=f"comma-separated programs (default all: {','.join(APPS)})")
    ap.add_argument("--ranks", default="1,2", help="comma-separated rank (and thread) counts (default 1,2)")
    ap.add_argument("--size", choices=["paper", "test"], default="paper",
                    help="paper: the programs' defaults, the papers' sizes; test: the small ctest sizes")
    ap.add_argument("--reps", type=int, default=1, help="runs of every row; the table shows medians (default 1)")
    ap.add_argument("--hosts", type=int, default=0, help="also run across this many emulated hosts")
    ap.add_argument("--threads", default="", help="also run r/T ranks x T threads (the hybrid build); a "
                    "comma-separated list runs each T")
    common_args(ap)
    a = ap.parse_args()
    if a.reps < 1:
        ap.error("--reps must be at least 1")

    apps = [x for x in a.apps.split(",") if x]
    unknown = [x for x in apps if x not in APPS]
    if unknown:
        ap.error(f"unknown program(s) {', '.join(unknown)}; the suite has {', '.join(APPS)}")
    ranks = [int(x) for x in a.ranks.split(",") if x]
    try:
        tlist = [int(x) for x in a.threads.split(",") if x]
    except ValueError:
        ap.error(f"--threads takes thread counts separated by commas, got '{a.threads}'")
    if any(t < 1 for t in tlist):
        ap.error(f"--threads: a thread count must be at least 1, got '{a.threads}'")
    tlist = list(dict.fromkeys(t for t in tlist if t > 1))
    # The JSON key of each hybrid shape: the first is "hybrid", as with a single T.
    hkey = {t: ("hybrid" if i == 0 else f"hybrid_t{t}") for i, t in enumerate(tlist)}
    warn_oversubscribed(ranks, "ranks/threads")
    env = dict(os.environ)
    rows = [{"app": app, "ranks": r, "args": (TEST_ARGS.get(app, []) if a.size == "test" else []) + a.extra.split()}
            for app in apps for r in ranks]
    bindir = os.path.join(a.build_dir, "apps")
    samples = {}  # (row index, build) -> list of results
    for rep in range(a.reps):
        for k, row in enumerate(rows):
            app, r, args = row["app"], row["ranks"], row["args"]
            runs = ["threads", "loom"] + (["hosts"] if a.hosts > 1 and r % a.hosts == 0 else []) + \
                [hkey[t] for t in tlist if r % t == 0]
            for build in runs:
                exe = os.path.join(bindir, f"{app}_{'threads' if build == 'threads' else 'loom'}")
                if not os.path.exists(exe):
                    samples.setdefault((k, build), []).append({"error": "not built"})
                    continue
                if build == "threads":
                    cmd = [exe, "--workers", str(r)] + args
                elif build.startswith("hybrid"):
                    t = next(t for t in tlist if hkey[t] == build)
                    cmd = [a.mpiexec] + a.mpiexec_flags.split() + ["-n", str(r // t), exe] + args + \
                        ["--threads", str(t)]
                elif build == "hosts":
                    cmd = [os.path.join(ROOT, "scripts", "cluster.sh"), "run", str(a.hosts), str(r // a.hosts), "--", exe] + args
                else:
                    cmd = [a.mpiexec] + a.mpiexec_flags.split() + ["-n", str(r), exe] + args
                tag = f"[{k + 1}/{len(rows)}" + (f", rep {rep + 1}/{a.reps}]" if a.reps > 1 else "]")
                print(f"{tag} {app} {build} {r} ...", end="", file=sys.stderr, flush=True)
                res, err, wall = run(cmd, a.timeout, env)
                print(f" {res['time']:.3f} s" if res else f" FAILED ({err})", f"(wall {wall:.1f} s)", file=sys.stderr)
                samples.setdefault((k, build), []).append(res if res else {"error": err})
    for (k, build), got in samples.items():
        ok = [g for g in got if "time" in g]
        if not ok:
            rows[k][build] = got[-1]
            continue
        med, ci = median_ci([g["time"] for g in ok])
        # The run nearest the median, for its breakdown and validation.
        best = min(ok, key=lambda g: abs(g["time"] - med))
        rows[k][build] = dict(best, time=med, ci95=ci, times=[g["time"] for g in ok], reps=len(ok),
                              valid=all(g.get("valid") is True for g in ok) and len(ok) == len(got))

    # speed-up over the 1-rank Loom run of the same program, when measured
    one = {row["app"]: row["loom"].get("time") for row in rows if row["ranks"] == 1 and "time" in row.get("loom", {})}
    hdr = f"{'program':9} {'ranks':>5} {'loom s':>9} {'threads s':>9} {'ratio':>6} {'speedup':>7} {'valid':>5}  " + \
        " ".join(f"{c:>7}" for c in CATS)
    if a.hosts > 1:
        hdr += f"  {str(a.hosts) + ' hosts s':>10} {'/1 host':>7} {'valid':>5}  " + " ".join(f"{c:>7}" for c in CATS)
    for t in tlist:
        hdr += f"  {'x' + str(t) + ' thr s':>9} {'/thread':>7} {'/ranks':>6} {'valid':>5}"
    if a.reps > 1:
        hdr += f"  {'loom 95% CI of median':>23} {'threads 95% CI':>23}"
    print(hdr)
    print("-" * len(hdr))
    f = lambda x, w, p: f"{x:>{w}.{p}f}" if isinstance(x, (int, float)) else f"{'-':>{w}}"
    for row in rows:
        lo, th = row.get("loom", {}), row.get("threads", {})
        lt, tt = lo.get("time"), th.get("time")
        ratio = lt / tt if lt and tt else None
        sp = one.get(row["app"]) / lt if lt and one.get(row["app"]) else None
        valid = lo.get("valid") is True and th.get("valid") is True
        row["ratio"], row["speedup"], row["valid"] = ratio, sp, valid
        bd = lo.get("breakdown", {})
        line = (f"{row['app']:9} {row['ranks']:>5} {f(lt, 9, 3)} {f(tt, 9, 3)} {f(ratio, 6, 2)} {f(sp, 7, 2)} "
                f"{'yes' if valid else 'NO':>5}  " + " ".join(f(bd.get(c), 7, 3) for c in CATS))
        if "hosts" in row:
            ho = row["hosts"]
            ht = ho.get("time")
            row["hosts_over_one_host"] = ht / lt if ht and lt else None
            hv = ho.get("valid") is True
            row["valid"] = valid and hv
            line += (f"  {f(ht, 10, 3)} {f(row['hosts_over_one_host'], 7, 2)} {'yes' if hv else 'NO':>5}  " +
                     " ".join(f(ho.get("breakdown", {}).get(c), 7, 3) for c in CATS))
        for t in tlist:
            key = hkey[t]
            hy = row.get(key, {})
            yt = hy.get("time")
            row[key + "_over_threads"] = yt / tt if yt and tt else None
            row[key + "_over_ranks"] = yt / lt if yt and lt else None
            yv = hy.get("valid") is True or key not in row
            row["valid"] = row["valid"] and yv
            line += (f"  {f(yt, 9, 3)} {f(row[key + '_over_threads'], 7, 2)} {f(row[key + '_over_ranks'], 6, 2)} "
                     f"{'yes' if yv else 'NO':>5}")
        if a.reps > 1:
            ci = lambda d: f"[{d['ci95'][0]:9.3f}, {d['ci95'][1]:9.3f}]" if "ci95" in d else f"{'-':>23}"
            line += f"  {ci(lo):>23} {ci(th):>23}"
        print(line)
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        loom_env = {k: v for k, v in os.environ.items() if k.startswith("LOOM_")}
        with open(a.json, "w") as f:
            json.dump({"suite": "apps", "threads_per_rank": tlist[0] if tlist else 0, "thread_counts": tlist, "loom": build_info(a.build_dir),
                       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "size": a.size, "reps": a.reps, "ranks": ranks, "hosts": a.hosts, "rows": rows,
                       "loom_config": loom_env or "defaults", "machine": machine(a.mpiexec)}, f, indent=1)
        print(f"wrote {a.json}", file=sys.stderr)
    return 0 if all(r["valid"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
