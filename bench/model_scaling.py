#!/usr/bin/env python3
"""Predicted runs at scale (docs/MODEL.md, "At scale"): traces recorded on
this machine with as many ranks as asked (more ranks than cores: the
computation is taken from CPU time), replayed on a platform.

  bench/model_scaling.py --apps lu,fft,barnes --ranks 1,2,4,...,64 --platform P.json [...]
                         [--topologies star,ring,torus:8x4] [--args-APP "..."] [--json OUT] [--plot PREFIX]
                         [--phase APP:NAME=A:B[,C:D...] ...]

For every program and rank count: one traced run (kept in --traces and
reused), then one prediction per topology with one rank a host: the
predicted time, the speed-up over the 1-rank prediction, the breakdown
(of the rank the others wait for: the least time in barriers) and each
category's share of it.  The replay's own
run time is printed too.  --phase names a program's phase by the full
barriers that open and close it, once per step (Barnes-Hut's tree build
and force computation): the phase's predicted time is the sum of its
windows, with its own speed-up and breakdown, from the same replay.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATS = ("compute", "fault", "barrier", "lock", "unlock", "atomic")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--apps", default="lu,fft,barnes")
    ap.add_argument("--ranks", default="1,2,4,8,16,32,64")
    ap.add_argument("--platform", action="append", required=True)
    ap.add_argument("--topologies", default="star")
    ap.add_argument("--args", action="append", default=[], help="APP=ARGS: the program's arguments (default: its paper size)")
    ap.add_argument("--traces", default=os.path.join(tempfile.gettempdir(), "loom-model-scaling"))
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--mpiexec", default=os.path.join(ROOT, ".venv", "bin", "mpiexec"))
    ap.add_argument("--window", default="1:-1",
                    help="barriers A:B of the timed part (default 1:-1: the suite's programs take a barrier after "
                         "setting up, and validate between their last two; '' for the whole run)")
    ap.add_argument("--phase", action="append", default=[],
                    help="APP:NAME=A:B[,C:D...]: a phase of APP, the full barriers around each of its steps")
    ap.add_argument("--reuse", choices=["on", "off"], default="on",
                    help="loom predict --reuse: off simulates every barrier's push, also those that repeat one")
    ap.add_argument("--json", default="")
    ap.add_argument("--timeout", type=int, default=3600)
    a = ap.parse_args()
    extra = dict(x.split("=", 1) for x in a.args)
    phases = {}
    for x in a.phase:
        head, spec = x.split("=", 1)
        app_, name = head.split(":", 1)
        phases.setdefault(app_, []).append((name, [tuple(int(v) for v in w.split(":")) for w in spec.split(",")]))
    out = {"platform": a.platform, "rows": [], "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])}
    for app in a.apps.split(","):
        args = extra.get(app, "").split()
        base, pbase = {}, {}
        for n in [int(x) for x in a.ranks.split(",")]:
            trace = os.path.join(a.traces, f"{app}_{'_'.join(args) or 'paper'}_np{n}")
            if not os.path.exists(os.path.join(trace, "rank0.lt")):
                env = dict(os.environ, LOOM_TRACE=trace)
                if n > (os.cpu_count() or 1):
                    env["LOOM_SPIN"] = "1"  # more ranks than cores: waits give the core away at once
                t0 = time.time()
                p = subprocess.run([a.mpiexec, "-n", str(n), os.path.join(a.build_dir, "apps", f"{app}_loom")] + args,
                                   capture_output=True, text=True, env=env, timeout=a.timeout)
                ok = p.returncode == 0 and '"valid": true' in p.stdout
                print(f"# traced {app} at {n} ranks in {time.time() - t0:.1f} s{'' if ok else ': FAILED ' + p.stderr[-300:]}",
                      file=sys.stderr, flush=True)
                if not ok:
                    continue
            for topo in a.topologies.split(","):
                cmd = [sys.executable, os.path.join(ROOT, "tools", "loom"), "predict", trace, "--json", "--topology", topo,
                       "--reuse", a.reuse]
                wins = ([a.window] if a.window else []) + [f"{w[0]}:{w[1]}" for _, ws in phases.get(app, []) for w in ws]
                if wins:
                    cmd += ["--window", ",".join(wins)]
                for x in a.platform:
                    cmd += ["--platform", x]
                t0 = time.time()
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
                replay = time.time() - t0
                if p.returncode != 0:
                    print(f"{app} {n} {topo}: {p.stderr.strip()[-300:]}", file=sys.stderr)
                    continue
                r = json.loads(p.stdout)
                # The breakdown of the rank the others wait for: the one
                # with the least time in barriers (every rank leaves the
                # last barrier at once, so their totals agree).
                if a.window:
                    slow = min(r["per_rank"], key=lambda x: x["window"]["barrier_s"])["window"]
                    t, traced = r["predicted_window_s"], r["traced_window_s"]
                else:
                    slow = min(r["per_rank"], key=lambda x: x["barrier_s"])
                    t, traced = r["predicted_s"], r["traced_s"]
                bd = {c: slow[c + "_s"] for c in CATS}
                tot = sum(bd.values()) or 1.0
                base.setdefault(topo, t if n == 1 else None)
                row = {"app": app, "ranks": n, "topology": topo, "predicted_s": t, "traced_s": traced, "window": a.window,
                       "speedup": base[topo] / t if base.get(topo) else None, "breakdown_s": bd,
                       "share": {c: bd[c] / tot for c in CATS}, "replay_s": replay,
                       "pushes_timed": r.get("pushes_timed"), "pushes_reused": r.get("pushes_reused")}
                # The phases: each window's rank the others wait for, summed.
                allw = r.get("windows") or ([{"predicted_s": r.get("predicted_window_s"), "per_rank": [
                    dict(rank=x["rank"], **x["window"]) for x in r["per_rank"]]}] if "window" in r else [])
                k = 1 if a.window else 0
                for name, ws in phases.get(app, []):
                    got = allw[k:k + len(ws)]
                    k += len(ws)
                    pt = sum(w["predicted_s"] for w in got)
                    pbd = {c: 0.0 for c in CATS}
                    for w in got:
                        sl = min(w["per_rank"], key=lambda x: x["barrier_s"])
                        for c in CATS:
                            pbd[c] += sl[c + "_s"]
                    pbase.setdefault((topo, name), pt if n == 1 else None)
                    b0 = pbase.get((topo, name))
                    row.setdefault("phases", {})[name] = {"predicted_s": pt, "speedup": b0 / pt if b0 and pt else None,
                                                         "breakdown_s": pbd}
                out["rows"].append(row)
                sp = f"{row['speedup']:6.2f}" if row["speedup"] else "     -"
                print(f"{app:7} {n:4} {topo:10} predicted {t:9.4f} s  speed-up {sp}  " +
                      " ".join(f"{c} {100 * row['share'][c]:4.1f}%" for c in CATS if bd[c] > 0) + f"  (replay {replay:.1f} s)",
                      flush=True)
                for name, ph in row.get("phases", {}).items():
                    sp = f"{ph['speedup']:6.2f}" if ph["speedup"] else "     -"
                    tot = sum(ph["breakdown_s"].values()) or 1.0
                    print(f"  {name:12} predicted {ph['predicted_s']:9.4f} s  speed-up {sp}  " +
                          " ".join(f"{c} {100 * ph['breakdown_s'][c] / tot:4.1f}%" for c in CATS if ph["breakdown_s"][c] > 0),
                          flush=True)
                if a.json:
                    with open(a.json, "w") as f:
                        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
