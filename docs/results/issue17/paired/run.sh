#!/bin/bash
# The model's validation with each measured run paired with a traced run of
# its own (docs/MODEL.md, "Paired with their traces"): this machine
# calibrated afresh (one host, then 2 emulated hosts with links unlimited,
# 1 Gbit/s, 100 Mbit/s, each right before its configuration's runs), then
# every program of the suite, 5 times: a traced run on one host, then an
# untraced run of the configuration; each trace predicted on the platform.
# Calibration runs and measured runs are separate runs; so are the traced
# runs the predictions come from.
# Run as root from anywhere; the files land beside this script.
set -e
cd "$(dirname "$0")/../../../.."
R=${RESULTS:-docs/results/issue17/paired}     # the second run: RESULTS=$R/region TRACES=/tmp/loom-paired2/traces
T=${TRACES:-/tmp/loom-paired/traces}
B=build/bench/loom_bench
export MPIEXEC=$PWD/.venv/bin/mpiexec
mkdir -p "$R" "$T"
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
# CONFIGS: the configurations to run (default all four: h1r2 unlimited
# 1gbit 100mbit); a cross-host one needs the one-host platform file there.
CONFIGS=${CONFIGS:-h1r2 unlimited 1gbit 100mbit}
date -u +"start %F %T" >> $R/times.txt
if [[ " $CONFIGS " == *" h1r2 "* ]]; then
  $MPIEXEC -n 2 $B calibrate --max-reps 15 --platform $R/platform_one_host.json --json $R/calibrate_one_host.json \
    > $R/calibrate_one_host.txt
  python3 bench/model_validate.py --config h1r2 --paired --reps 5 --platform $R/platform_one_host.json --traces "$T" \
    --json $R/validation.json | tee $R/validate_h1r2.txt
  date -u +"h1r2 done %F %T" >> $R/times.txt
fi
for rate in unlimited 1gbit 100mbit; do
  [[ " $CONFIGS " == *" $rate "* ]] || continue
  scripts/cluster.sh down >/dev/null 2>&1 || true
  extra=""
  links=""
  if [ $rate = unlimited ]; then scripts/cluster.sh up 2; else
    scripts/cluster.sh up 2 $rate
    scripts/cluster.sh links $rate > $R/links_$rate.json
    links="--platform $R/links_$rate.json"
  fi
  [ $rate = 100mbit ] && extra="--max-bytes 262144"
  scripts/cluster.sh run 2 1 -- $PWD/$B calibrate --max-reps 15 $extra --platform $PWD/$R/platform_h2_$rate.json \
    --json $PWD/$R/calibrate_h2_$rate.json > $R/calibrate_h2_$rate.txt
  python3 bench/model_validate.py --config h2r1_$rate --hosts 2 --paired --reps 5 --platform $R/platform_one_host.json \
    --platform $R/platform_h2_$rate.json $links --traces "$T" --json $R/validation.json | tee $R/validate_h2r1_$rate.txt
  date -u +"h2r1_$rate done %F %T" >> $R/times.txt
done
python3 bench/model_validate.py --table $R/validation.json > $R/table.md
python3 bench/model_validate.py --parts $R/validation.json > $R/parts.md
