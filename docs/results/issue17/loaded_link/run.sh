#!/bin/bash
# The link between 2 emulated hosts (unlimited) streamed with nothing else
# running and with 1 and 2 busy loops beside it on this machine's 2 cores
# (a rank computing, both ranks computing): what the calibration, taken
# with idle ranks, does not see.  Twice each, alternated.  Run as root.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/loaded_link
export MPIEXEC=$PWD/.venv/bin/mpiexec
scripts/cluster.sh up 2 >/dev/null
for rep in 1 2; do for busy in 0 1 2; do
  pids=""
  for i in $(seq $busy); do (while :; do :; done) & pids="$pids $!"; done
  timeout 60 scripts/cluster.sh run 2 1 -- build/bench/loom_bench bw --min-reps 5 --max-reps 5 \
    --json $R/bw_busy${busy}_$rep.json > $R/bw_busy${busy}_$rep.txt 2>&1 || true
  [ -n "$pids" ] && kill $pids
  wait 2>/dev/null || true
done; done
for busy in 0 1 2; do
  echo "busy loops $busy: $(grep -hE 'bytes=(4096|32768|262144) ' $R/bw_busy${busy}_*.txt | sed -E 's/ +/ /g' | cut -d' ' -f1,2,4 | tr '\n' ';')"
done
