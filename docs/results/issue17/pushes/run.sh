#!/bin/bash
# The placement evaluations again (docs/MODEL.md, "Placement from the
# reference pattern"), across 2 emulated hosts with the barriers' recorded
# pushes replayed (the traces are taken across the hosts, and their
# barriers brought pages there), and, with ONE_HOST=1, on one host too.
# Run as root from anywhere; the files land in RESULTS (default: beside
# this script; the run with the releases' mprotects too:
# RESULTS=docs/results/issue17/pushes/mprotect ONE_HOST=1).  Predictions on
# the seventh paired run's calibrations.
set -e
cd "$(dirname "$0")/../../../.."
R=${RESULTS:-docs/results/issue17/pushes}
P=docs/results/issue17/paired_15f5e22
mkdir -p "$R"
export MPIEXEC=$PWD/.venv/bin/mpiexec
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
: > $R/summary.txt
if [ "${ONE_HOST:-0}" = 1 ]; then
  O="--platform $P/platform_one_host.json"
  LOOM_MIGRATE=0 python3 bench/placement_eval.py --app sor --args "--jacobi --root-init --iters 500" --ranks 2 --reps 3 \
    $O --json $R/placement_jacobi_np2_root.json | tail -1 >> $R/summary.txt
  LOOM_HOME=cyclic LOOM_MIGRATE=0 python3 bench/placement_eval.py --app is --ranks 2 --reps 3 \
    $O --json $R/placement_is_np2_cyclic.json | tail -1 >> $R/summary.txt
  LOOM_HOME=cyclic LOOM_MIGRATE=0 python3 bench/placement_eval.py --app sor --args "--iters 500" --ranks 2 --reps 3 \
    $O --json $R/placement_sor_np2_cyclic.json | tail -1 >> $R/summary.txt
fi
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 2
L="scripts/cluster.sh run 2 1 --"
PL="--platform $P/platform_one_host.json --platform $P/platform_h2_unlimited.json"
LOOM_MIGRATE=0 python3 bench/placement_eval.py --app sor --args "--jacobi --root-init --iters 200" --ranks 2 --reps 3 \
  --launch "$L" $PL --json $R/placement_jacobi_h2r1_root.json | tail -1 >> $R/summary.txt
LOOM_HOME=cyclic LOOM_MIGRATE=0 python3 bench/placement_eval.py --app is --ranks 2 --reps 3 \
  --launch "$L" $PL --json $R/placement_is_h2r1_cyclic.json | tail -1 >> $R/summary.txt
LOOM_HOME=cyclic LOOM_MIGRATE=0 python3 bench/placement_eval.py --app sor --args "--iters 200" --ranks 2 --reps 3 \
  --launch "$L" $PL --json $R/placement_sor_h2r1_cyclic.json | tail -1 >> $R/summary.txt
cat $R/summary.txt
