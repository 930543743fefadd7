#!/bin/bash
# repredict_with.sh RESULTS NAME ONE_HOST_OVERLAY CROSS_HOST_OVERLAY: a
# paired run's measured runs (RESULTS/validation.json) predicted again from
# the traces run.sh kept (TRACES), with a platform file merged last over
# the run's own calibrations: ONE_HOST_OVERLAY on one host,
# CROSS_HOST_OVERLAY across 2 hosts.  Writes
# RESULTS/validation_NAME.json and RESULTS/validate_NAME_<config>.txt.
set -e
cd "$(dirname "$0")/../../../.."
R=$1 NAME=$2 ONE=$3 CROSS=$4
T=${TRACES:?set TRACES to the folder of the run traces}
cp $R/validation.json $R/validation_$NAME.json
python3 bench/model_validate.py --repredict --config h1r2 --platform $R/platform_one_host.json \
  --platform $ONE --traces $T --json $R/validation_$NAME.json > $R/validate_${NAME}_h1r2.txt
for rate in unlimited 1gbit 100mbit; do
  links=""; [ $rate != unlimited ] && links="--platform $R/links_$rate.json"
  python3 bench/model_validate.py --repredict --config h2r1_$rate --hosts 2 --platform $R/platform_one_host.json \
    --platform $R/platform_h2_$rate.json $links --platform $CROSS --traces $T \
    --json $R/validation_$NAME.json > $R/validate_${NAME}_h2r1_$rate.txt
done
