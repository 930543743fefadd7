#!/bin/bash
# The platforms of the paired validation calibrated again (docs/MODEL.md,
# "Paired with their traces"), by the loom_bench whose computation kernel
# alternates rounds with Loom started and without it (compute_kernel_ratio),
# into recal/; then the paired runs' measured times predicted on them.
# Run as root from anywhere, after run.sh (its traces in $TRACES).
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/paired; Q=$R/recal
T=${TRACES:-/tmp/loom-paired/traces}
B=build/bench/loom_bench
export MPIEXEC=$PWD/.venv/bin/mpiexec
mkdir -p "$Q"
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
$MPIEXEC -n 2 $B calibrate --max-reps 15 --platform $Q/platform_one_host.json --json $Q/calibrate_one_host.json \
  > $Q/calibrate_one_host.txt
for rate in unlimited 1gbit 100mbit; do
  scripts/cluster.sh down >/dev/null 2>&1 || true
  if [ $rate = unlimited ]; then scripts/cluster.sh up 2; else scripts/cluster.sh up 2 $rate; fi
  extra=""
  [ $rate = 100mbit ] && extra="--max-bytes 262144"
  scripts/cluster.sh run 2 1 -- $PWD/$B calibrate --max-reps 15 $extra --platform $PWD/$Q/platform_h2_$rate.json \
    --json $PWD/$Q/calibrate_h2_$rate.json > $Q/calibrate_h2_$rate.txt
done
scripts/cluster.sh down
cp $R/validation.json $Q/validation.json
python3 bench/model_validate.py --config h1r2 --repredict --platform $Q/platform_one_host.json --traces "$T" \
  --json $Q/validation.json
for rate in unlimited 1gbit 100mbit; do
  links=""
  [ $rate != unlimited ] && links="--platform $R/links_$rate.json"
  python3 bench/model_validate.py --config h2r1_$rate --hosts 2 --repredict --platform $Q/platform_one_host.json \
    --platform $Q/platform_h2_$rate.json $links --traces "$T" --json $Q/validation.json
done
python3 bench/model_validate.py --table $Q/validation.json > $Q/table.md
python3 bench/model_validate.py --parts $Q/validation.json > $Q/parts.md
