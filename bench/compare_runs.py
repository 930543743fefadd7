#!/usr/bin/env python3
"""Compare sets of application runs taken in one session: the JSON files of
apps/run_suite.py or of scripts/splash3.py bench, grouped by label.  Prints,
per program, the threads time and each set's Loom time (medians over the
set's files), each set's Loom / threads ratio, and for SPLASH-3 the pages
fetched; flags any run whose answer was wrong.

  bench/compare_runs.py old=a1.json,a2.json new=b1.json,b2.json [adapt=c1.json,...]

The first set is the reference: the next columns give each other set's time
over it.  The last columns give, per set, the median of each run's own
Loom / threads ratio with its range: when the machine's speed drifts
between runs (a shared VM), a run's ratio, measured back to back, drifts
less than either time.  Nothing is measured here; every number comes from
the files.
"""
import json
import statistics
import sys


def rows(path):
    out = {}
    for r in json.load(open(path))["rows"]:
        if "program" in r:  # scripts/splash3.py
            out[r["program"]] = {"loom": r["loom_us"] / 1e6, "threads": r["threads_us"] / 1e6,
                                 "ok": bool(r.get("same_answer")), "fetched": r.get("pages_fetched")}
        else:  # apps/run_suite.py
            out[r["app"]] = {"loom": r["loom"]["time"], "threads": r["threads"]["time"],
                             "ok": bool(r.get("valid", r["loom"].get("valid"))), "fetched": None}
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    sets = []
    for arg in argv[1:]:
        label, _, files = arg.partition("=")
        sets.append((label, [rows(f) for f in files.split(",")]))
    programs = list(sets[0][1][0].keys())
    head = ["program", "threads s"] + [f"{l} s" for l, _ in sets] + [f"{l}/thr" for l, _ in sets]
    head += [f"{l}/{sets[0][0]}" for l, _ in sets[1:]]
    head += [f"{l} run ratios" for l, _ in sets]
    fetched = any(r[p]["fetched"] is not None for _, runs in sets for r in runs for p in r)
    if fetched:
        head.append("pages fetched " + "/".join(l for l, _ in sets))
    print(" | ".join(head))
    for p in programs:
        thr = statistics.median([r[p]["threads"] for _, runs in sets for r in runs if p in r])
        med = [statistics.median([r[p]["loom"] for r in runs if p in r]) for _, runs in sets]
        ok = all(r[p]["ok"] for _, runs in sets for r in runs if p in r)
        cells = [p, f"{thr:.4f}"] + [f"{m:.4f}" for m in med] + [f"{m / thr:.2f}" for m in med]
        cells += [f"{m / med[0]:.2f}" for m in med[1:]]
        for _, runs in sets:
            rr = [r[p]["loom"] / r[p]["threads"] for r in runs if p in r and r[p]["threads"] > 0]
            cells.append(f"{statistics.median(rr):.2f} ({min(rr):.2f}-{max(rr):.2f})" if rr else "-")
        if fetched:
            cells.append("/".join(str(int(statistics.median([r[p]["fetched"] or 0 for r in runs if p in r])))
                                  for _, runs in sets))
        if not ok:
            cells.append("WRONG ANSWER")
        print(" | ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
