#!/bin/bash
# The seventh paired run's measured runs predicted again without taking a
# fault's trap outside the handler out of the computation (trap_outside_us
# 0 merged last), from the traces run.sh kept.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/paired_15f5e22
T=${TRACES:-/tmp/loom-paired8/traces}
cp $R/validation.json $R/validation_without_outside.json
python3 bench/model_validate.py --repredict --config h1r2 --platform $R/platform_one_host.json \
  --platform $R/without_outside.json --traces $T --json $R/validation_without_outside.json > $R/validate_without_outside_h1r2.txt
for rate in unlimited 1gbit 100mbit; do
  links=""; [ $rate != unlimited ] && links="--platform $R/links_$rate.json"
  python3 bench/model_validate.py --repredict --config h2r1_$rate --hosts 2 --platform $R/platform_one_host.json \
    --platform $R/platform_h2_$rate.json $links --platform $R/without_outside.json --traces $T \
    --json $R/validation_without_outside.json > $R/validate_without_outside_h2r1_$rate.txt
done
