"""`loom plot`: figures from the JSON files Loom and its tools write.

Knows each file by its shape:
  loom_bench (schema loom-bench/1): every result measured against a varying
    parameter (bytes, ranks, pages, ...) as a curve of medians with their 95%
    confidence intervals (bandwidth and latency against size, barrier against
    ranks), and every latency histogram;
  apps/run_suite.py (suite apps): speed-up against ranks per program, Loom's
    time over the threads build's, and the stacked overhead bars (SCASH's
    figure: fault, barrier, lock, unlock and the rest of the run);
  apps/run_protocols.py (suite protocols): stacked overhead bars per program
    and protocol;
  scripts/splash3.py bench: Loom over pthreads per program, and its
    breakdown;
  a LOOM_STATS_FILE without %r (per_rank): where each rank's time went;
  bench/model_scaling.py: the predicted time against the node count per
    program (a curve per topology) and the breakdown's shares;
  bench/model_validate.py: predicted against measured time per
    configuration (docs/MODEL.md).
Each figure is written as every requested format (PNG and SVG by default);
the list of files written is printed.
"""
import json
import os
import sys

CATS = ["fault", "barrier", "lock", "unlock"]
COLORS = {"fault": "#d62728", "barrier": "#1f77b4", "lock": "#ff7f0e", "unlock": "#9467bd", "other": "#c7c7c7"}


def need_matplotlib():
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text in SVG (searchable, smaller)
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        venv = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", ".venv", "bin", "python3")
        if os.path.isfile(venv) and os.path.realpath(sys.executable) != os.path.realpath(venv) and \
                not os.environ.get("LOOMPLOT_REEXEC"):
            os.environ["LOOMPLOT_REEXEC"] = "1"  # once: the project's environment has it (scripts/setup.sh)
            os.execv(venv, [venv] + sys.argv)
        sys.exit("loom plot: matplotlib is not installed for " + sys.executable + ": pip install matplotlib")


class Out:
    def __init__(self, plt, directory, formats, stem):
        self.plt, self.dir, self.formats, self.stem, self.written = plt, directory, formats, stem, []
        os.makedirs(directory, exist_ok=True)

    def save(self, fig, name):
        fig.tight_layout()
        for fmt in self.formats:
            path = os.path.join(self.dir, f"{self.stem}_{name}.{fmt}")
            fig.savefig(path, dpi=120)
            self.written.append(path)
        self.plt.close(fig)


def subtitle(j):
    loom = j.get("loom") or {}
    parts = [f"Loom {loom.get('version', '?')} ({loom.get('commit', '?')})" if loom else "",
             j.get("date", ""), j.get("host", "")]
    return ", ".join(p for p in parts if p)


# ---- loom_bench -----------------------------------------------------------

def plot_bench(j, out):
    series = {}
    for r in j["results"]:
        for k, v in r.get("params", {}).items():
            series.setdefault((r["name"], r["unit"], k), []).append((v, r))
    for (name, unit, param), pts in sorted(series.items()):
        xs = sorted({v for v, _ in pts})
        if len(xs) < 2 or len(pts) != len(xs):
            continue  # a curve needs one varying parameter
        pts.sort(key=lambda p: p[0])
        fig, ax = out.plt.subplots(figsize=(6.4, 4))
        x = [p[0] for p in pts]
        med = [p[1]["median"] for p in pts]
        lo = [p[1]["median"] - p[1]["ci95"][0] for p in pts]
        hi = [p[1]["ci95"][1] - p[1]["median"] for p in pts]
        ax.errorbar(x, med, yerr=[lo, hi], marker="o", capsize=3, label=f"{name} (median, 95% CI)")
        if param in ("bytes", "size", "pages") and max(x) / max(min(x), 1e-12) > 50:
            ax.set_xscale("log", base=2)
        if unit in ("us", "MB/s") and max(med) / max(min(med), 1e-12) > 50:
            ax.set_yscale("log")
        ax.set_xlabel(param)
        ax.set_ylabel(unit)
        ax.set_title(f"{name} against {param}\n{subtitle(j)}", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        out.save(fig, f"{name}_vs_{param}")
    for r in j["results"]:
        h = r.get("histogram")
        if not h or not h.get("counts"):
            continue
        fig, ax = out.plt.subplots(figsize=(6.4, 4))
        edges = [h["lo"] + i * h["width"] for i in range(len(h["counts"]))]
        ax.bar(edges, h["counts"], width=h["width"], align="edge", color="#1f77b4", edgecolor="white")
        ax.axvline(r["median"], color="#d62728", label=f"median {r['median']:.3g} {r['unit']}")
        ax.set_xlabel(f"{r['name']} ({r['unit']}; last bin: above the 99th percentile)")
        ax.set_ylabel("samples")
        params = " ".join(f"{k}={v:g}" for k, v in r.get("params", {}).items())
        ax.set_title(f"{r['name']} {params}: distribution\n{subtitle(j)}", fontsize=9)
        ax.legend(fontsize=8)
        out.save(fig, f"{r['name']}_{'_'.join(f'{k}{v:g}' for k, v in r.get('params', {}).items())}_histogram")


# ---- the application suite ------------------------------------------------

def stacked(out, labels, parts, title, name, ylabel="fraction of run time", rest=True):
    """parts: {category: [value per label]}; with rest, the rest up to 1 is 'other'."""
    fig, ax = out.plt.subplots(figsize=(max(6.4, 0.55 * len(labels) + 2), 4.2))
    bottom = [0.0] * len(labels)
    for c in CATS + (["other"] if rest else []):
        vals = parts.get(c)
        if vals is None:
            vals = [max(0.0, 1.0 - b) for b in bottom]
        ax.bar(range(len(labels)), vals, bottom=bottom, color=COLORS[c],
               label=c if c != "other" else "computation and the rest")
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, max(1.0, max(bottom)) if rest else max(bottom) * 1.05 or 1)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1, 1))
    out.save(fig, name)


def plot_suite(j, out):
    rows = [r for r in j["rows"] if isinstance(r.get("loom"), dict)]
    apps = sorted({r["app"] for r in rows}, key=[r["app"] for r in rows].index)
    ranks = sorted({r["ranks"] for r in rows})
    if len(ranks) > 1:
        fig, ax = out.plt.subplots(figsize=(6.4, 4.2))
        for app in apps:
            pts = sorted((r["ranks"], r.get("speedup")) for r in rows if r["app"] == app and r.get("speedup"))
            if len(pts) > 1:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=app)
        ax.plot(ranks, [r / ranks[0] for r in ranks], color="gray", linestyle="--", label="ideal")
        ax.set_xticks(ranks)
        ax.set_xlabel("ranks")
        ax.set_ylabel(f"speed-up over {ranks[0]} rank(s) (Loom)")
        ax.set_title(f"Speed-up against ranks\n{subtitle(j)}", fontsize=9)
        ax.legend(fontsize=7, ncol=2)
        ax.grid(alpha=0.3)
        out.save(fig, "speedup")
    for n in ranks:
        sel = [r for r in rows if r["ranks"] == n and r.get("ratio")]
        if sel:
            fig, ax = out.plt.subplots(figsize=(max(6.4, 0.55 * len(sel) + 2), 4))
            ax.bar(range(len(sel)), [r["ratio"] for r in sel], color="#1f77b4")
            ax.axhline(1.0, color="gray", linestyle="--")
            ax.set_xticks(range(len(sel)))
            ax.set_xticklabels([r["app"] for r in sel], rotation=45, ha="right", fontsize=8)
            ax.set_ylabel("Loom time / threads time")
            ax.set_title(f"Loom against the threads build, {n} ranks/threads\n{subtitle(j)}", fontsize=9)
            out.save(fig, f"loom_vs_threads_{n}")
        sel = [r for r in rows if r["ranks"] == n and r["loom"].get("breakdown")]
        if sel:
            stacked(out, [r["app"] for r in sel], {c: [r["loom"]["breakdown"].get(c, 0.0) for r in sel] for c in CATS},
                    f"Where Loom's time goes, {n} ranks\n{subtitle(j)}", f"overhead_{n}")


def plot_protocols(j, out):
    rows = [r for r in j["rows"] if r.get("breakdown") or (isinstance(r.get("loom"), dict) and r["loom"].get("breakdown"))]
    if not rows:
        return
    bd = lambda r: r.get("breakdown") or r["loom"]["breakdown"]
    labels = [f"{r.get('app')} {r.get('protocol', '')} {r.get('transport', '')}".strip() for r in rows]
    stacked(out, labels, {c: [bd(r).get(c, 0.0) for r in rows] for c in CATS},
            f"Where Loom's time goes, by program and protocol\n{subtitle(j)}", "overhead_protocols")


def plot_splash(j, out):
    rows = [r for r in j["rows"] if r.get("ratio")]
    if rows:
        fig, ax = out.plt.subplots(figsize=(max(6.4, 0.6 * len(rows) + 2), 4))
        ax.bar(range(len(rows)), [r["ratio"] for r in rows], color="#1f77b4")
        ax.axhline(1.0, color="gray", linestyle="--")
        ax.set_yscale("log")
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels([r["program"] for r in rows], rotation=45, ha="right", fontsize=8)
        ax.set_ylabel("Loom time / pthreads time (log)")
        ax.set_title(f"SPLASH-3, unmodified, {rows[0].get('ranks')} ranks\n{subtitle(j)}", fontsize=9)
        out.save(fig, "splash3_ratio")
    rows = [r for r in j["rows"] if "t_fault" in r]
    if rows:
        # Seconds over the whole run (set-up included), the largest over the ranks.
        stacked(out, [r["program"] for r in rows], {c: [r.get(f"t_{c}", 0.0) for r in rows] for c in CATS},
                f"SPLASH-3: seconds in Loom over the whole run (largest over ranks)\n{subtitle(j)}",
                "splash3_loom_seconds", ylabel="seconds", rest=False)


def plot_stats(j, out):
    per = j["per_rank"]
    stacked(out, [f"rank {x['rank']}" for x in per],
            {c: [x.get(f"t_{c}", 0.0) / x["wall"] if x.get("wall") else 0.0 for x in per] for c in CATS},
            f"Where each rank's time went ({j['ranks']} ranks)\n{subtitle(j.get('total', {}))}", "ranks",
            ylabel="fraction of wall time")


# ---- the performance model (docs/MODEL.md) --------------------------------

MODEL_CATS = ["fault", "barrier", "lock", "unlock", "atomic"]


def plot_model_scaling(j, out):
    rows = j["rows"]
    for app in dict.fromkeys(r["app"] for r in rows):
        mine = [r for r in rows if r["app"] == app]
        fig, ax = out.plt.subplots(figsize=(6.4, 4.2))
        for topo in dict.fromkeys(r["topology"] for r in mine):
            pts = sorted((r["ranks"], r["predicted_s"]) for r in mine if r["topology"] == topo)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=topo)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("nodes (one rank each)")
        ax.set_ylabel("predicted time, s")
        ax.set_title(f"{app}: predicted on {' + '.join(os.path.basename(p) for p in j.get('platform', []))}", fontsize=8)
        ax.legend(fontsize=7)
        out.save(fig, f"{app}_predicted")
        first = [r for r in mine if r["topology"] == mine[0]["topology"]]
        first.sort(key=lambda r: r["ranks"])
        parts = {c: [r["share"].get(c, 0.0) for r in first] for c in MODEL_CATS if any(r["share"].get(c) for r in first)}
        fig, ax = out.plt.subplots(figsize=(6.4, 4.2))
        bottom = [0.0] * len(first)
        colors = dict(COLORS, atomic="#8c564b")
        for c, vals in parts.items():
            ax.bar(range(len(first)), vals, bottom=bottom, color=colors[c], label=c)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.bar(range(len(first)), [max(0.0, 1 - b) for b in bottom], bottom=bottom, color=COLORS["other"],
               label="computation")
        ax.set_xticks(range(len(first)))
        ax.set_xticklabels([str(r["ranks"]) for r in first])
        ax.set_xlabel("nodes")
        ax.set_ylabel("share of the predicted time")
        ax.set_title(f"{app}: where the predicted time goes ({first[0]['topology']})", fontsize=9)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1, 1))
        out.save(fig, f"{app}_breakdown")


def plot_model_validation(j, out):
    cfgs = j["configs"]
    fig, ax = out.plt.subplots(figsize=(6.4, 5))
    lo, hi = float("inf"), 0.0
    for c, v in cfgs.items():
        m = [r["measured_s"] for r in v["rows"]]
        p = [r["predicted_s"] for r in v["rows"]]
        ax.scatter(m, p, label=c, s=18)
        lo, hi = min([lo] + m + p), max([hi] + m + p)
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8)
    for f in (0.9, 1.1):
        ax.plot([lo, hi], [lo * f, hi * f], color="grey", linewidth=0.5, linestyle="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured, s")
    ax.set_ylabel("predicted, s")
    ax.set_title("The model against real runs (dashed: ±10%)", fontsize=9)
    ax.legend(fontsize=7)
    out.save(fig, "predicted_vs_measured")


def kind(j):
    if j.get("schema") == "loom-bench/1":
        return "bench", plot_bench
    if j.get("suite") == "apps":
        return "suite", plot_suite
    if j.get("suite") == "protocols":
        return "protocols", plot_protocols
    if "per_rank" in j:
        return "stats", plot_stats
    if isinstance(j.get("rows"), list) and j["rows"] and "program" in j["rows"][0]:
        return "splash3", plot_splash
    if isinstance(j.get("rows"), list) and j["rows"] and "topology" in j["rows"][0]:
        return "model scaling", plot_model_scaling
    if isinstance(j.get("configs"), dict):
        return "model validation", plot_model_validation
    return None, None


def main(a):
    plt = need_matplotlib()
    formats = [f for f in a.format.split(",") if f]
    bad = [f for f in formats if f not in ("png", "svg", "pdf")]
    if bad:
        sys.exit(f"loom plot: unknown format(s) {', '.join(bad)}: png, svg or pdf")
    written, status = [], 0
    for path in a.files:
        try:
            j = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"loom plot: {path}: {e}", file=sys.stderr)
            status = 1
            continue
        what, fn = kind(j)
        if not fn:
            print(f"loom plot: {path}: not a file Loom's tools write (loom_bench, run_suite, run_protocols, "
                  f"splash3 bench, LOOM_STATS_FILE, model_scaling, model_validate)", file=sys.stderr)
            status = 1
            continue
        out = Out(plt, a.out, formats, os.path.splitext(os.path.basename(path))[0])
        fn(j, out)
        if not out.written:
            print(f"loom plot: {path} ({what}): nothing to plot in it", file=sys.stderr)
        written += out.written
    for w in written:
        print(w)
    return status
