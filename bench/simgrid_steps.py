#!/usr/bin/env python3
"""What a simulation step costs `loom predict` (docs/MODEL.md, "What the
replay does"): 64 SimGrid actors on a 64-node cluster, each doing N steps
of one kind, and the wall time per step.

  bench/simgrid_steps.py [--steps N] [--contexts]

Kinds: sleep (this_actor.sleep_for), send (Comm.sendto of 4 KiB to another
node), barrier (a Barrier of all 64); each with the actors' threads free
on every CPU, then pinned to one (loom_model.on_one_cpu).  --contexts also tries SimGrid's other
context factories (raw, ucontext, boost), each in a child process, and says
whether the Python module survives them.  Needs python3-simgrid.
"""
import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))

XML = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><cluster id="c" prefix="n" suffix="" radical="0-63" speed="1f" bw="1GBps" lat="1us"/></platform>
"""


def run(kind, steps, factory, pin=False):
    import loom_model
    sg = loom_model.import_simgrid()
    args = ["steps", "--log=root.thres:critical", "--cfg=network/model:CM02"]
    if factory:
        args.append(f"--cfg=contexts/factory:{factory}")
    e = sg.Engine(args)
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        f.write(XML)
    e.load_platform(f.name)
    os.unlink(f.name)
    hosts = [e.host_by_name(f"n{i}") for i in range(64)]
    bar = sg.Barrier(64)

    def actor(k):
        for i in range(steps):
            if kind == "sleep":
                sg.this_actor.sleep_for(1e-5)
            elif kind == "send":
                sg.Comm.sendto(hosts[(k + 1 + i) % 64], hosts[k], 4096)
            else:
                bar.wait()

    with loom_model.on_one_cpu() if pin else contextlib.nullcontext():
        for k in range(64):
            sg.Actor.create(f"a{k}", hosts[k], actor, k)
        t0 = time.time()
        e.run()
    return (time.time() - t0) / (64 * steps) * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--contexts", action="store_true")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(f"{run('sleep', a.steps, a.child[1]):.1f}")
        return 0
    for pin in (False, True):
        where = "on one CPU, as loom predict runs them" if pin else "on every CPU"
        for kind in ("sleep", "send", "barrier"):
            print(f"{kind:8} {run(kind, a.steps, None, pin):6.1f} us a step (64 actors x {a.steps}; SimGrid's default "
                  f"factory for Python: threads; {where})", flush=True)
    if a.contexts:
        for fac in ("raw", "ucontext", "boost"):
            p = subprocess.run([sys.executable, __file__, "--steps", "100", "--child", "sleep", fac],
                               capture_output=True, text=True, timeout=300)
            what = f"{p.stdout.strip()} us a sleep" if p.returncode == 0 else f"failed (exit {p.returncode})"
            print(f"contexts/factory:{fac}: {what}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
