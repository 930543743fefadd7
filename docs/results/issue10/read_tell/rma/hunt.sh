#!/bin/bash
# The hang hunt of 2026-11-30 (rma words, tried and not kept): stencil_pairs at 3 emulated hosts x 1 under
# LOOM_TRANSPORT=rma, pair and full barriers in turn, N rounds, with the library in LIB (a directory with
# libloom.so.0); a run still going after 40 s is a hang, and every rank's stacks go to /tmp/hang_stacks.txt.
# Needs scripts/cluster.sh up 3 first.
cd "$(dirname "$0")/../../../../.."
for i in $(seq 1 ${N:-12}); do
  for flag in "" --full; do
  LOOM_TRANSPORT=rma LD_LIBRARY_PATH=${LIB:-/tmp/lib-new} bash scripts/cluster.sh run 3 1 -- $PWD/build/bench/stencil_pairs --n 512 --sweeps 2000 --active 2 $flag > /tmp/hunt_out.txt 2>&1 &
  pid=$!
  for t in $(seq 1 40); do sleep 1; kill -0 $pid 2>/dev/null || break; done
  if kill -0 $pid 2>/dev/null; then
    echo "HANG at $i $flag"
    for p in $(pgrep -f "build/bench/stencil_pairs" | grep -v $$); do
      [ "$(cat /proc/$p/comm)" = stencil_pairs ] || continue
      echo "=== pid $p"; gdb -batch -p $p -ex "thread apply all bt 25" 2>/dev/null | grep -E "^#|^Thread" | head -60
    done > /tmp/hang_stacks.txt
    pkill -f stencil_pairs; sleep 2; exit 1
  fi
  tail -1 /tmp/hunt_out.txt
  done
done
