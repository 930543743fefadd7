#!/usr/bin/env python3
"""SPLASH-3, unmodified, on Loom: build, check against the pthreads build, time.

  scripts/splash3.py fetch --dest DIR [--url URL]
  scripts/splash3.py build --out DIR [--splash DIR] [--loomcc PATH] [--macros PATH]
  scripts/splash3.py check PROGRAM --out DIR --ranks P [--mpiexec CMD] [--launch CMD]
  scripts/splash3.py bench --out DIR [--ranks 2] [--programs a,b] [--size test|bench]
                           [--launch CMD] [--json FILE]

fetch clones the suite from its public repository (SakalisC/Splash-3; the
programs are in its codes/ folder, which --splash or SPLASH3_DIR then names).
build copies the suite (../shared/splash3, or SPLASH3_DIR) twice under DIR
and builds every program with its own Makefile: once with the suite's
pthreads macros (threads/), once with Loom's (loom/: MACROS=
share/loom/splash.m4.loom CC=build/bin/loomcc).  Both get CLOCK in
microseconds (share/loom/clock_us.m4 after the macro file) so that their
own timings compare; no source file is changed.  check runs one program
both ways with P workers (Loom: P ranks under mpiexec) and compares the
lines that carry its answer (its own test where it has one: FFT, LU,
RADIX and CHOLESKY print PASSED; OCEAN's residuals, WATER's energies;
BARNES prints only its parameters).  Exit 0: same answer; 1: different or
failed; 77: the suite or m4 is missing (ctest skips).  bench prints the
table docs/BENCHMARKS.md shows: each program's parallel-phase time (its
own CLOCK lines) for the threads and Loom builds, their ratio, and Loom's
breakdown (LOOM_STATS).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

WATER_IN = "  1.5e-16   {nmol}  {steps}   6\n -1      3000     3  0\n{P} 6.212752\n"
BARNES_IN = "\n{nbody}\n123\n\n0.025\n0.05\n1.0\n2.0\n5.0\n{tstop}\n0.25\n{P}\n"
TOTAL = r"Total time without initialization\s*:\s*(\d+)"

# dir, executable, arguments or standard input per size, answer lines, time line.
PROGRAMS = {
    "fft": dict(dir="kernels/fft", exe="FFT", args={"test": "-p{P} -m16 -t", "bench": "-p{P} -m22 -t"},
                answer=[r"TEST PASSED", r"Checksum difference is .*"], time=TOTAL),
    "lu": dict(dir="kernels/lu/contiguous_blocks", exe="LU",
               args={"test": "-p{P} -n256 -b16 -t", "bench": "-p{P} -n2048 -b16 -t"}, answer=[r"TEST PASSED"], time=TOTAL),
    "lu-noncontig": dict(dir="kernels/lu/non_contiguous_blocks", exe="LU",
                         args={"test": "-p{P} -n256 -b16 -t", "bench": "-p{P} -n1024 -b16"}, answer=[r"TEST PASSED"],
                         time=TOTAL),
    "radix": dict(dir="kernels/radix", exe="RADIX", args={"test": "-p{P} -n262144 -t", "bench": "-p{P} -n16777216 -t"},
                  answer=[r"PASSED: All keys in place\."], time=TOTAL),
    "cholesky": dict(dir="kernels/cholesky", exe="CHOLESKY",
                     args={"test": "-p{P} -t inputs/tk14.O", "bench": "-p{P} -t inputs/tk25.O"}, answer=[r"^PASSED$"],
                     time=TOTAL),
    "ocean": dict(dir="apps/ocean/contiguous_partitions", exe="OCEAN",
                  args={"test": "-p{P} -n130 -o", "bench": "-p{P} -n1026 -o"},
                  answer=[r"iter \d+, level \d+, residual norm .*"], time=TOTAL),
    "ocean-noncontig": dict(dir="apps/ocean/non_contiguous_partitions", exe="OCEAN",
                            args={"test": "-p{P} -n130 -o", "bench": "-p{P} -n514"},
                            answer=[r"iter \d+, level \d+, residual norm .*"], time=TOTAL,
                            # its fixed arrays (about 40 GB, never touched by the pthreads build) must fit the
                            # global memory; the per-page tables cost only the pages used (RELIABILITY.md)
                            env={"LOOM_MEM_SIZE": "64G"}),
    "water": dict(dir="apps/water-nsquared", exe="WATER-NSQUARED",
                  stdin={"test": WATER_IN.replace("{nmol}", "216").replace("{steps}", "3"),
                         "bench": WATER_IN.replace("{nmol}", "512").replace("{steps}", "3")},
                  answer=[r"^\s+\d+\s+-?\d+\.\d+\s+-?\d+\.\d+\s+-?\d+\.\d+.*", r"^\s+-?\d+\.\d+\s+-?\d+\.\d+\s+-?\d+\.\d+$",
                          r"Exited Happily with XTT = .*"],
                  time=r"COMPUTETIME \(after initialization\) = (\d+)"),
    "barnes": dict(dir="apps/barnes", exe="BARNES",
                   stdin={"test": BARNES_IN.replace("{nbody}", "512").replace("{tstop}", "0.075"),
                          "bench": BARNES_IN.replace("{nbody}", "1024").replace("{tstop}", "0.075")},
                   answer=[r"^\s+\d+\s+0\.02500\s+.*"], time=r"COMPUTETIME\s+=\s+(\d+)"),
}


def splash_dir(arg):
    d = arg or os.environ.get("SPLASH3_DIR") or os.path.join(ROOT, "..", "shared", "splash3")
    return os.path.abspath(d)


def skip(msg):
    print("splash3: skipped: " + msg)
    sys.exit(77)


def cmd_build(a):
    src = splash_dir(a.splash)
    if not os.path.isfile(os.path.join(src, "Makefile.config")):
        skip(f"no SPLASH-3 suite at {src} (set SPLASH3_DIR, or fetch it: scripts/splash3.py fetch --dest DIR)")
    if not shutil.which("m4"):
        skip("m4 is not installed (SPLASH builds its sources with m4; scripts/setup.sh installs it as root)")
    loomcc = a.loomcc or os.path.join(ROOT, "build", "bin", "loomcc")
    macros = a.macros or os.path.join(ROOT, "share", "loom", "splash.m4.loom")
    clock = os.path.join(ROOT, "share", "loom", "clock_us.m4")
    failed = []
    for kind in ("threads", "loom"):
        dst = os.path.join(a.out, kind)
        if os.path.isdir(dst):
            shutil.rmtree(dst)
        shutil.copytree(src, dst)
        for dirpath, dirnames, filenames in os.walk(dst):
            os.chmod(dirpath, 0o755)
            for f in filenames:
                os.chmod(os.path.join(dirpath, f), 0o644)
        mac = os.path.join(dst, "pthread_macros", "pthread.m4.stougie") if kind == "threads" else macros
        extra = [f"CC={loomcc}"] if kind == "loom" else []
        done = set()
        for name, p in PROGRAMS.items():
            if p["dir"] in done:
                continue
            done.add(p["dir"])
            r = subprocess.run(["make", "-s", "-C", os.path.join(dst, p["dir"]), f"MACROS={mac} {clock}"] + extra,
                               capture_output=True, text=True)
            if r.returncode != 0:
                failed.append(f"{kind}/{p['dir']}")
                sys.stderr.write(f"splash3: build of {kind}/{p['dir']} failed:\n{r.stdout}{r.stderr}\n")
    if failed:
        print("splash3: build failed: " + ", ".join(failed))
        sys.exit(1)
    print(f"splash3: built {len(PROGRAMS)} programs twice under {a.out}")


def run(a, kind, name, P, size, env_extra=None):
    p = PROGRAMS[name]
    d = os.path.join(a.out, kind, p["dir"])
    exe = os.path.join(d, p["exe"])
    if not os.path.isfile(exe):
        skip(f"{exe} is not built (run 'scripts/splash3.py build --out {a.out}' first)")
    args = p.get("args", {}).get(size, "").format(P=P).split()
    stdin = p["stdin"][size].replace("{P}", str(P)) if "stdin" in p else None
    cmd = [exe] + args
    if kind == "loom":
        launch = a.launch.split() if a.launch else a.mpiexec.split() + ["-n", str(P)]
        # The program runs in its own folder: a launcher named by a path
        # relative to here ("scripts/cluster.sh run 2 1 --") is made absolute.
        if os.sep in launch[0] and not os.path.isabs(launch[0]) and os.path.exists(launch[0]):
            launch[0] = os.path.abspath(launch[0])
        cmd = launch + cmd
    env = dict(os.environ)
    if kind == "loom":
        for k, v in p.get("env", {}).items():
            env.setdefault(k, v)  # a setting of the user's own wins
    env.update(env_extra or {})
    r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, cwd=d, env=env, timeout=a.timeout)
    return r


def answer(name, out):
    lines = out.splitlines()
    return [[l.strip() for l in lines if re.search(rx, l)] for rx in PROGRAMS[name]["answer"]]


def cmd_fetch(a):
    dest = os.path.abspath(a.dest)
    if os.path.isfile(os.path.join(dest, "codes", "Makefile.config")):
        print(f"splash3: already fetched; use SPLASH3_DIR={dest}/codes")
        return
    r = subprocess.run(["git", "clone", "--depth", "1", a.url, dest])
    if r.returncode != 0 or not os.path.isfile(os.path.join(dest, "codes", "Makefile.config")):
        print(f"splash3: could not fetch {a.url} into {dest} (git clone exit {r.returncode})")
        sys.exit(1)
    print(f"splash3: fetched; use SPLASH3_DIR={dest}/codes (or --splash {dest}/codes)")


def cmd_check(a):
    name = a.program
    if name not in PROGRAMS:
        print(f"splash3: unknown program {name}; one of {', '.join(PROGRAMS)}")
        sys.exit(2)
    t = run(a, "threads", name, a.ranks, "test")
    l = run(a, "loom", name, a.ranks, "test")
    if l.returncode == 77 and "cluster.sh: skipped:" in l.stderr:  # no emulated cluster here (no root, ...)
        print(l.stderr.strip())
        sys.exit(77)
    want, got = answer(name, t.stdout), answer(name, l.stdout)
    ok = t.returncode == 0 and l.returncode == 0 and all(want) and want == got
    if not ok:
        sys.stderr.write(f"--- threads (exit {t.returncode}):\n{t.stdout[-3000:]}{t.stderr[-2000:]}\n")
        sys.stderr.write(f"--- loom (exit {l.returncode}):\n{l.stdout[-3000:]}{l.stderr[-3000:]}\n")
        for w, g in zip(want, got):
            if w != g:
                sys.stderr.write(f"answer lines differ:\n  threads: {w[:6]}\n  loom:    {g[:6]}\n")
    n = sum(len(w) for w in want)
    print(f"splash3 {name} -p{a.ranks}: {'same answer' if ok else 'DIFFERENT or failed'} ({n} answer lines)")
    sys.exit(0 if ok else 1)


def cmd_bench(a):
    names = a.programs.split(",") if a.programs else list(PROGRAMS)
    rows = []
    for name in names:
        p = PROGRAMS[name]
        stats = os.path.join(a.out, f"stats_{name}_%r.json")
        for r in range(a.ranks):
            if os.path.exists(stats.replace("%r", str(r))):
                os.remove(stats.replace("%r", str(r)))
        t = run(a, "threads", name, a.ranks, a.size)
        l = run(a, "loom", name, a.ranks, a.size, {"LOOM_STATS_FILE": stats})
        tt = re.search(p["time"], t.stdout)
        lt = re.search(p["time"], l.stdout)
        row = dict(program=name, ranks=a.ranks, size=a.size, threads_us=int(tt.group(1)) if tt else None,
                   loom_us=int(lt.group(1)) if lt else None, same_answer=answer(name, t.stdout) == answer(name, l.stdout),
                   loom_exit=l.returncode)
        per_rank = []
        for r in range(a.ranks):
            try:
                with open(stats.replace("%r", str(r))) as f:
                    per_rank.append(json.load(f))
            except (OSError, ValueError):
                pass
        if per_rank:
            row["loom_stats"] = per_rank
            # The breakdown: seconds in Loom over the whole run (setup on
            # rank 0 included), the largest over the ranks.
            for k in ("t_fault", "t_barrier", "t_lock", "t_unlock", "t_diff", "t_poll"):
                row[k] = max(st.get(k, 0.0) for st in per_rank)
            for k in ("pages_fetched", "diffs", "locks", "atomics"):
                row[k] = sum(st.get(k, 0) for st in per_rank)
        if row["threads_us"] and row["loom_us"]:
            row["ratio"] = row["loom_us"] / row["threads_us"]
        rows.append(row)
        print(f"{name:16s} threads {row['threads_us']} us  loom {row['loom_us']} us  "
              f"ratio {row.get('ratio', float('nan')):.2f}  same answer {row['same_answer']}  "
              + "  ".join(f"{k} {row[k]:.2f}" for k in ("t_fault", "t_barrier", "t_lock", "t_diff") if k in row)
              + f"  fetched {row.get('pages_fetched')} locks {row.get('locks')}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            loom = next((r["loom_stats"][0].get("loom") for r in rows if r.get("loom_stats")), None)
            json.dump(dict(loom=loom, date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), rows=rows, launch=a.launch or f"{a.mpiexec} -n {a.ranks}",
                           loom_env={k: v for k, v in os.environ.items() if k.startswith("LOOM_")}), f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch")
    f.add_argument("--dest", required=True)
    f.add_argument("--url", default="https://github.com/SakalisC/Splash-3.git")
    b = sub.add_parser("build")
    b.add_argument("--out", required=True)
    b.add_argument("--splash")
    b.add_argument("--loomcc")
    b.add_argument("--macros")
    for name in ("check", "bench"):
        c = sub.add_parser(name)
        if name == "check":
            c.add_argument("program")
        else:
            c.add_argument("--programs")
            c.add_argument("--size", default="bench", choices=["test", "bench"])
            c.add_argument("--json")
        c.add_argument("--out", required=True)
        c.add_argument("--ranks", type=int, default=2)
        c.add_argument("--mpiexec", default=os.environ.get("MPIEXEC", os.path.join(ROOT, ".venv", "bin", "mpiexec")))
        c.add_argument("--launch", help="the Loom run's launcher instead of mpiexec -n P (e.g. scripts/cluster.sh run 2 1 --)")
        c.add_argument("--timeout", type=int, default=300)
    a = ap.parse_args()
    if hasattr(a, "out"):
        a.out = os.path.abspath(a.out)
    {"fetch": cmd_fetch, "build": cmd_build, "check": cmd_check, "bench": cmd_bench}[a.cmd](a)


if __name__ == "__main__":
    main()
