#!/usr/bin/env python3
"""One line per program and repetition (run.sh): the run traced across the
hosts (its timed region, LOOM_STATS of its slowest rank), the replay of
that trace (the price of what the run did), and the replay of a one-host
trace of the same program for 2 hosts (the plan and the price, as the
validation predicts).  Usage: compare.py APP I H2_TRACE H1_TRACE"""
import json
import sys

app, i, h2, h1 = sys.argv[1:5]


def region(p):
    """Predicted region seconds, and the slowest rank's fault and barrier."""
    slow = max(p["per_rank"], key=lambda r: r["region"]["predicted_s"])["region"]
    return p["predicted_region_s"], slow["fault_s"], slow["barrier_s"], p.get("prefetched_pages", 0)


st = json.load(open(h2 + ".stats.json"))
slow = max(st["per_rank"], key=lambda r: r["wall"])
pushed = sum(r["prefetched"] for r in st["per_rank"])
own = json.load(open(h2 + ".predict.json"))
one = json.load(open(h1 + ".predict.json"))
m = slow["wall"]
po, fo, bo, _ = region(own)
p1, f1, b1, pp1 = region(one)
print(f"{app:6} {i}  measured {m:7.3f} s (fault {slow['t_fault']:.3f}, barrier {slow['t_barrier']:.3f}, pushed {pushed})"
      f" | own trace {po:7.3f} s {po / m - 1:+6.1%} (fault {fo:.3f}, barrier {bo:.3f})"
      f" | one-host trace {p1:7.3f} s {p1 / m - 1:+6.1%} (fault {f1:.3f}, barrier {b1:.3f}, pushed {pp1})", flush=True)
