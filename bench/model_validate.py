#!/usr/bin/env python3
"""The performance model against real runs (docs/MODEL.md, "Validation").

  bench/model_validate.py --config NAME --platform P.json [--platform Q.json] [--hosts H]
                          [--apps sor,lu,...] [--reps R] [--size paper|test]
                          [--traces DIR] [--json OUT] [--paired] [--repredict] [--prefetch auto|on|off]
                          [--stride on|off]
  bench/model_validate.py --table OUT.json     (the residuals as a Markdown table)
  bench/model_validate.py --errors A.json [B.json ...]   (only the errors, a column per configuration)
  bench/model_validate.py --parts OUT.json [OTHER.json]
                          (Loom's fault and barrier time, measured and predicted)
  bench/model_validate.py --noise A.json B.json
                          (the measurements' own spread: within each run, and B's medians against A's)
  bench/model_validate.py --runs A.json [B.json ...]
                          (the targets run by run: each configuration's median and worst |error|
                          in each file, and in how many runs each target held)
  bench/model_validate.py --compute OUT.json
                          (each error split: the computation's, and Loom's operations')

For every program: one traced run on one host with 2 ranks (LOOM_TRACE,
kept in --traces and reused by later configurations), R untraced runs of
the configuration (2 ranks on one host, or --hosts H emulated hosts with one
rank each: scripts/cluster.sh must be up with the links wanted), each
measured as LOOM_STATS's wall time (LOOM_STATS_FILE, the slowest rank:
from the program's loom_stats_reset, where the suite's timed region
begins, to loom_finalize), and the model's prediction from the one-host
trace on the platform files given (`loom predict`), of the same region
where the trace marks the reset (`predicted_region_s`; older traces: the
whole run from loom_init).  With --paired, instead, each
of the R measured runs comes right after a traced one-host run of its own,
and each trace is predicted: the machine's speed, which drifts here over
minutes, is then the same in a trace and in the run it is compared with;
the row gives the median prediction against the median measured time, and
every pair.  Calibration (loom_bench calibrate) and these runs are separate
runs.  The table gives every
residual; --json merges this configuration into the file's others.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "apps"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from run_suite import APPS, TEST_ARGS  # noqa: E402


def run(cmd, env, timeout):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    ok = p.returncode == 0 and any(line.startswith("RESULT ") and '"valid": true' in line for line in p.stdout.splitlines())
    return ok, (p.stderr.strip().splitlines() or [""])[-1]


def wall_of(stats_file):
    with open(stats_file) as f:
        d = json.load(f)
    return max(r["wall"] for r in d["per_rank"])


def breakdown_of(stats_file):
    """The slowest rank's seconds per category, as LOOM_STATS measured them,
    and the computation: the rest of its wall time."""
    with open(stats_file) as f:
        ranks = json.load(f)["per_rank"]
    r = max(ranks, key=lambda r: r["wall"])
    b = {c: r.get("t_" + c, 0.0) for c in ("fault", "barrier", "lock", "unlock")}
    b["compute"] = r["wall"] - sum(b.values())
    # Locks taken again with no message (kept), every rank's: a count, not seconds.
    b["locks_kept"] = sum(x.get("locks_kept", 0) for x in ranks)
    return b


def table(path):
    """The residuals of every configuration in a --json file, as Markdown."""
    with open(path) as f:
        d = json.load(f)
    cfgs = list(d["configs"])
    apps = []
    for c in cfgs:
        for r in d["configs"][c]["rows"]:
            if r["app"] not in apps:
                apps.append(r["app"])
    print("| program | " + " | ".join(f"{c}: measured s (runs) / predicted s / error" for c in cfgs) + " |")
    print("|---|" + "---|" * len(cfgs))
    for app in apps:
        cells = []
        for c in cfgs:
            r = next((r for r in d["configs"][c]["rows"] if r["app"] == app), None)
            cells.append("-" if r is None else
                         f"{r['measured_s']:.3f} ({min(r['measured_runs_s']):.3f}-{max(r['measured_runs_s']):.3f}) / "
                         f"{r['predicted_s']:.3f}" +
                         (f" ({min(r['predicted_runs_s']):.3f}-{max(r['predicted_runs_s']):.3f})" if "predicted_runs_s" in r else "") +
                         f" / {100 * r['error']:+.1f}%")
        print(f"| {app} | " + " | ".join(cells) + " |")
    print(r"| median \|error\|, worst | " + " | ".join(
        f"{100 * d['configs'][c]['summary']['median_abs_error']:.1f}%, {100 * d['configs'][c]['summary']['worst_abs_error']:.1f}%"
        for c in cfgs) + " |")


def errors(paths):
    """Only the errors: a column per configuration of each file, a row per program."""
    cols, apps = [], []
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        for c, cfg in d["configs"].items():
            rows = {r["app"]: r for r in cfg["rows"] if "error" in r}
            cols.append((f"{c} ({os.path.relpath(p, ROOT)})" if len(paths) > 1 else c, rows, cfg["summary"]))
            apps += [a for a in rows if a not in apps]
    print("| program | " + " | ".join(c for c, _, _ in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for app in apps:
        print(f"| {app} | " + " | ".join(f"{100 * r[app]['error']:+.1f}%" if app in r else "-" for _, r, _ in cols) + " |")
    print(r"| median \|error\|, worst | " + " | ".join(
        f"{100 * s['median_abs_error']:.1f}%, {100 * s['worst_abs_error']:.1f}%" for _, _, s in cols) + " |")


MEDIAN_TARGET, WORST_TARGET = 0.10, 0.25  # the targets (docs/MODEL.md, "Validation")


def runs(paths):
    """The targets run by run: a row per file, a column per configuration
    (median |error|, worst |error|, and whether each target held), then per
    configuration how many of the runs that have it met the median, the
    worst, and both."""
    cols, files = [], []
    for p in paths:
        with open(p) as f:
            d = json.load(f)["configs"]
        files.append(("/".join(os.path.abspath(p).split(os.sep)[-2:]), d))  # its run's folder, and the file
        cols += [c for c in d if c not in cols]

    def mark(ok):
        return "yes" if ok else "no"

    print("| run | " + " | ".join(f"{c}: median, worst" for c in cols) + " |")
    print("|---|" + "---|" * len(cols))
    met = {c: [0, 0, 0, 0] for c in cols}  # runs, median met, worst met, both
    for name, d in files:
        cells = []
        for c in cols:
            if c not in d:
                cells.append("-")
                continue
            s = d[c]["summary"]
            m, w = s["median_abs_error"], s["worst_abs_error"]
            ok_m, ok_w = m <= MEDIAN_TARGET, w <= WORST_TARGET
            k = met[c]
            k[0] += 1
            k[1] += ok_m
            k[2] += ok_w
            k[3] += ok_m and ok_w
            cells.append(f"{100 * m:.1f}% ({mark(ok_m)}), {100 * w:.1f}% ({mark(ok_w)})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("| runs that met median / worst / both | " +
          " | ".join(f"{k[1]} / {k[2]} / **{k[3]}** of {k[0]}" for k in (met[c] for c in cols)) + " |")


def noise(a_path, b_path):
    """What the measurements alone would miss by, per configuration, as
    median and worst over the programs: each program's measured runs'
    largest distance from their median (within a run, A's and B's
    programs together), and B's median against A's, as if A's measured
    time predicted B's (two runs of the same programs on the same build)."""
    with open(a_path) as f:
        a = json.load(f)["configs"]
    with open(b_path) as f:
        b = json.load(f)["configs"]
    print("| configuration | within a run: median, worst | B's median against A's: median, worst (program) |")
    print("|---|---|---|")
    for c in a:
        if c not in b:
            continue
        ra = {r["app"]: r for r in a[c]["rows"]}
        rb = {r["app"]: r for r in b[c]["rows"]}
        within = sorted(max(abs(x / statistics.median(r["measured_runs_s"]) - 1) for x in r["measured_runs_s"])
                        for r in list(ra.values()) + list(rb.values()))
        apart = sorted((abs(rb[k]["measured_s"] / ra[k]["measured_s"] - 1), k) for k in ra if k in rb)
        if not within or not apart:
            continue
        print(f"| {c} | {100 * statistics.median(within):.1f}%, {100 * within[-1]:.1f}% | "
              f"{100 * statistics.median(x for x, _ in apart):.1f}%, {100 * apart[-1][0]:.1f}% ({apart[-1][1]}) |")


def parts(path, other=None):
    """Loom's own time, apart from the computation: the measured run's
    fault and barrier seconds (the run nearest the median, slowest rank)
    beside the prediction's (its slowest rank; over the timed region where
    the row has it), and beside a second file's prediction of the
    same runs (e.g. --repredict --prefetch off), as Markdown."""
    with open(path) as f:
        d = json.load(f)
    o = None
    if other:
        with open(other) as f:
            o = json.load(f)
    head = "| config | program | measured fault / barrier s | predicted | error of fault + barrier |"
    if o:
        head += f" predicted ({os.path.basename(other)}) | error |"
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for c, cfg in d["configs"].items():
        for r in cfg["rows"]:
            m = r.get("measured_breakdown_s")
            if not m:
                continue
            mf, mb = m.get("fault", 0.0), m.get("barrier", 0.0)
            p = r.get("breakdown_slowest_region_s") or r.get("breakdown_slowest_s") or r["breakdown_s"]
            err = lambda q: f"{100 * ((q['fault'] + q['barrier']) / (mf + mb) - 1):+.0f}%" if mf + mb > 0 else "-"
            line = f"| {c} | {r['app']} | {mf:.3f} / {mb:.3f} | {p['fault']:.3f} / {p['barrier']:.3f} | {err(p)} |"
            if o:
                q = next((x for x in o["configs"].get(c, {}).get("rows", []) if x["app"] == r["app"]), None)
                qb = None if q is None else (q.get("breakdown_slowest_region_s") or q.get("breakdown_slowest_s")
                                             or q["breakdown_s"])
                line += " - | - |" if qb is None else f" {qb['fault']:.3f} / {qb['barrier']:.3f} | {err(qb)} |"
            print(line)


def compute_split(path):
    """Each residual split in two, as Markdown: the slowest rank's
    computation (its wall time less Loom's operations), measured in the run
    nearest the median and predicted, and Loom's operations (fault,
    barrier, lock, unlock), each as seconds and its share of the measured
    total, over the timed region where the prediction has it (rows
    predicted before it had, over the whole job: marked "job")."""
    with open(path) as f:
        d = json.load(f)
    ops = ("fault", "barrier", "lock", "unlock", "atomic")
    print("| config | program | measured s | computation, measured / predicted s | its part of the error "
          "| Loom's operations, measured / predicted s | their part | error |")
    print("|---" * 8 + "|")
    for c, cfg in d["configs"].items():
        for r in cfg["rows"]:
            m = r.get("measured_breakdown_s")
            if not m or "error" not in r:
                continue
            p = r.get("breakdown_slowest_region_s") or r.get("breakdown_slowest_s") or r["breakdown_s"]
            whole = "" if "breakdown_slowest_region_s" in r else " (job)"
            total = r["measured_s"]
            mc, pc = m.get("compute", 0.0), p.get("compute", 0.0)
            mo, po = sum(m.get(k, 0.0) for k in ops), sum(p.get(k, 0.0) for k in ops)
            print(f"| {c} | {r['app']} | {total:.3f} | {mc:.3f} / {pc:.3f}{whole} | {100 * (pc - mc) / total:+.1f}% "
                  f"| {mo:.3f} / {po:.3f}{whole} | {100 * (po - mo) / total:+.1f}% | {100 * r['error']:+.1f}% |")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--compute":
        compute_split(sys.argv[2])
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        table(sys.argv[2])
        return 0
    if len(sys.argv) >= 3 and sys.argv[1] == "--errors":
        errors(sys.argv[2:])
        return 0
    if len(sys.argv) >= 3 and sys.argv[1] == "--runs":
        runs(sys.argv[2:])
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "--noise":
        noise(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) in (3, 4) and sys.argv[1] == "--parts":
        parts(sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else None)
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", required=True, help="this configuration's name in the table, e.g. h2r1_1gbit")
    ap.add_argument("--platform", action="append", required=True, help="platform files for the prediction")
    ap.add_argument("--hosts", type=int, default=1, help="1: 2 ranks on one host; H: H emulated hosts, a rank each")
    ap.add_argument("--apps", default=",".join(a for a in APPS if a != "nas_lu"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--size", choices=["paper", "test"], default="paper")
    ap.add_argument("--traces", default=os.path.join(tempfile.gettempdir(), "loom-model-traces"))
    ap.add_argument("--json", default="")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--mpiexec", default=os.path.join(ROOT, ".venv", "bin", "mpiexec"))
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--prefetch", choices=["auto", "on", "off"], default="auto",
                    help="loom predict --prefetch: the barrier prefetch across hosts in the replay")
    ap.add_argument("--stride", choices=["on", "off"], default="on",
                    help="loom predict --stride: the runtime's fetches along a stride across hosts in the replay")
    ap.add_argument("--paired", action="store_true",
                    help="a traced one-host run before every measured run, each predicted: the drift of the "
                         "machine between trace and measurement out of the residual")
    ap.add_argument("--locks", choices=["keep", "round-trips"], default="keep",
                    help="loom predict --locks: locks homed on another host kept by their last holder, or a round trip each")
    ap.add_argument("--measure-only", action="store_true",
                    help="with --paired: trace and measure, predict nothing (--repredict does, where SimGrid is)")
    ap.add_argument("--repredict", action="store_true",
                    help="run no program: predict again from the kept traces for the measured times --json holds")
    a = ap.parse_args()
    import loom_model  # noqa: E402
    plat, errs = loom_model.load_platform(a.platform)
    if errs:
        sys.exit("model_validate: " + "; ".join(errs))
    ranks = 2
    rows = []
    kept, kept_bd, kept_pairs = {}, {}, {}
    if a.repredict:
        with open(a.json) as f:
            old_rows = json.load(f)["configs"][a.config]["rows"]
        kept = {r["app"]: r["measured_runs_s"] for r in old_rows}
        kept_bd = {r["app"]: r["measured_breakdown_s"] for r in old_rows if "measured_breakdown_s" in r}
        kept_pairs = {r["app"]: r["pair_traces"] for r in old_rows if "pair_traces" in r}
        a.paired = a.paired or bool(kept_pairs)
    for app in a.apps.split(","):
        if a.repredict and app not in kept:
            continue
        exe = os.path.join(a.build_dir, "apps", f"{app}_loom")
        args = TEST_ARGS.get(app, []) if a.size == "test" else []
        trace = os.path.join(a.traces, f"{app}_{a.size}_np{ranks}")
        env = dict(os.environ)
        env.pop("LOOM_TRACE", None)
        # Ranks of one host run the coherence protocol, as the traced runs
        # do (a trace turns LOOM_HOST_SHARE off) and as the model replays
        # it, not the pages shared from their homes that are the one-host
        # default since the trace was designed.
        env.setdefault("LOOM_HOST_SHARE", "0")
        one_host = [a.mpiexec, "-n", str(ranks), exe] + args
        if a.hosts > 1:
            measure_cmd = [os.path.join(ROOT, "scripts", "cluster.sh"), "run", str(a.hosts), str(ranks // a.hosts), "--", exe] + args
        else:
            measure_cmd = one_host

        def measure(walls, measured_bd):
            stats = os.path.join(a.traces, f"{app}_stats.json")
            ok, err = run(measure_cmd, dict(env, LOOM_STATS_FILE=stats), a.timeout)
            if not ok:
                print(f"{app}: a measured run failed: {err}", file=sys.stderr)
                return False
            walls.append(wall_of(stats))
            measured_bd.append(breakdown_of(stats))
            return True

        def traced(d):
            st = d + ".stats.json"
            subprocess.run(["rm", "-rf", d, st])
            ok, err = run(one_host, dict(env, LOOM_TRACE=d, LOOM_STATS_FILE=st), a.timeout)
            if not ok:
                print(f"{app}: a traced run failed: {err}", file=sys.stderr)
                return None
            return wall_of(st)

        walls = list(kept.get(app, []))
        measured_bd = []
        pair_traces = list(kept_pairs.get(app, []))
        if a.paired and not a.repredict:
            # Each measured run right after a traced run of its own: the
            # machine's speed drifts by more than the target over the
            # minutes a configuration takes (MODEL.md), and a trace
            # recorded once, at the start, carries the speed of then.
            run(one_host, env, a.timeout)                       # warm-up, not counted
            for k in range(a.reps):
                d = f"{trace}.{a.config}.{k}"
                if traced(d) is None:
                    continue
                if measure(walls, measured_bd):
                    pair_traces.append(d)
        elif not a.paired:
            if not a.repredict and not os.path.exists(os.path.join(trace, "rank0.lt")):
                # Three traced runs after an untraced one (the first run of a
                # program is slower: cold caches); the run of median wall time
                # is kept (one host's run-to-run spread is 5-10% here).
                run(one_host, env, a.timeout)
                got = []
                for t in range(3):
                    w = traced(f"{trace}.{t}")
                    if w is not None:
                        got.append((w, f"{trace}.{t}"))
                if not got:
                    continue
                got.sort()
                os.rename(got[len(got) // 2][1], trace)
                for _, d in got:
                    if os.path.exists(d):
                        subprocess.run(["rm", "-rf", d])
            for _ in range(0 if a.repredict else a.reps):
                measure(walls, measured_bd)
            pair_traces = [trace]
        if not walls or not pair_traces:
            continue
        if a.measure_only:
            # The runs without their predictions (a machine without
            # SimGrid): --repredict, where SimGrid is, predicts them.
            rows.append({"app": app, "config": a.config, "measured_s": statistics.median(walls), "measured_runs_s": walls,
                         "pair_traces": pair_traces, "measured_breakdown_s": measured_bd[min(range(len(walls)), key=lambda i: abs(walls[i] - statistics.median(walls)))]})
            print(f"{app:8} {a.config:14} measured {statistics.median(walls):8.3f} s ({min(walls):.3f}-{max(walls):.3f})", flush=True)
            continue
        preds = []
        for d in pair_traces:
            # One prediction a process: SimGrid's engine is one per process.
            cmd = [sys.executable, os.path.join(ROOT, "tools", "loom"), "predict", d, "--json",
                   "--ranks-per-host", str(ranks // a.hosts if a.hosts > 1 else ranks), "--prefetch", a.prefetch,
                   "--locks", a.locks, "--stride", a.stride]
            for x in a.platform:
                cmd += ["--platform", x]
            pr = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
            if pr.returncode != 0:
                print(f"{app}: loom predict failed: {pr.stderr.strip()[-300:]}", file=sys.stderr)
                continue
            preds.append(json.loads(pr.stdout))
        if not preds:
            continue
        # What LOOM_STATS's wall time measured: from the program's
        # loom_stats_reset (the suite's timed region) where the trace has it.
        for q in preds:
            if "predicted_region_s" in q:
                q["predicted_job_s"], q["predicted_s"] = q["predicted_s"], q["predicted_region_s"]
                q["traced_job_s"], q["traced_s"] = q["traced_s"], q["traced_region_s"]
        # The prediction of median time (the only one when not paired).
        p = sorted(preds, key=lambda q: q["predicted_s"])[len(preds) // 2]
        m = statistics.median(walls)
        row = {"app": app, "config": a.config, "measured_s": m, "measured_runs_s": walls,
               "predicted_s": p["predicted_s"], "traced_s": p["traced_s"], "error": p["predicted_s"] / m - 1,
               "region": "predicted_region_s" in p,
               "breakdown_s": {c: max(r[c + "_s"] for r in p["per_rank"]) for c in loom_model.CATEGORIES}}
        if a.paired:
            # Pair k: the prediction from the k-th trace, the k-th measured run.
            row["pair_traces"] = pair_traces
            row["predicted_runs_s"] = [q["predicted_s"] for q in preds]
            row["traced_runs_s"] = [q["traced_s"] for q in preds]
        # The slowest rank's own (as the measured breakdown is): the others
        # wait for it in barriers.
        slow = max(p["per_rank"], key=lambda r: r["predicted_s"])
        row["breakdown_slowest_s"] = {c: slow[c + "_s"] for c in loom_model.CATEGORIES}
        if all("region" in r for r in p["per_rank"]):
            # The same over the timed region alone (what the measured
            # breakdown covers): the rank slowest there.
            slow = max(p["per_rank"], key=lambda r: r["region"]["predicted_s"])["region"]
            row["breakdown_slowest_region_s"] = {c: slow[c + "_s"] for c in loom_model.CATEGORIES}
        row["predicted_locks_kept"] = sum(r.get("locks_kept", 0) for r in p["per_rank"])
        if app in kept_bd:
            row["measured_breakdown_s"] = kept_bd[app]
        if measured_bd:
            # The breakdown of the run nearest the median.
            row["measured_breakdown_s"] = measured_bd[min(range(len(walls) - len(measured_bd), len(walls)),
                                                          key=lambda i: abs(walls[i] - m)) - (len(walls) - len(measured_bd))]
        rows.append(row)
        print(f"{app:8} {a.config:14} measured {m:8.3f} s ({min(walls):.3f}-{max(walls):.3f})  predicted "
              f"{p['predicted_s']:8.3f} s  error {100 * row['error']:+6.1f}%", flush=True)
    errs = sorted(abs(r["error"]) for r in rows if "error" in r)
    summary = {"config": a.config, "programs": len(rows), "platform": plat.get("names", []),
               "median_abs_error": statistics.median(errs) if errs else None, "worst_abs_error": errs[-1] if errs else None}
    if errs:
        print(f"{a.config}: {len(rows)} programs, median |error| {100 * summary['median_abs_error']:.1f}%, "
              f"worst {100 * summary['worst_abs_error']:.1f}%")
    if a.json:
        old = {}
        if os.path.exists(a.json):
            with open(a.json) as f:
                old = json.load(f)
        cmd = " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])
        prev = old.get("configs", {}).get(a.config, {})
        entry = {"summary": summary, "rows": rows, "command": prev.get("command", cmd) if a.repredict else cmd}
        if a.repredict:
            entry["predicted_again_with"] = cmd
        old.setdefault("configs", {})[a.config] = entry
        with open(a.json, "w") as f:
            json.dump(old, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
