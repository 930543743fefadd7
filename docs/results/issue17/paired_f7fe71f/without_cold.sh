#!/bin/bash
# The sixth paired run's measured runs predicted again without cold
# fetches (fetch_cold_page_us 0 merged last), from the traces run.sh kept.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/paired_f7fe71f
T=${TRACES:-/tmp/loom-paired7/traces}
cp $R/validation.json $R/validation_without_cold.json
python3 bench/model_validate.py --repredict --config h1r2 --platform $R/platform_one_host.json \
  --platform $R/without_cold_one_host.json --traces $T --json $R/validation_without_cold.json > $R/validate_without_cold_h1r2.txt
for rate in unlimited 1gbit 100mbit; do
  links=""; [ $rate != unlimited ] && links="--platform $R/links_$rate.json"
  python3 bench/model_validate.py --repredict --config h2r1_$rate --hosts 2 --platform $R/platform_one_host.json \
    --platform $R/platform_h2_$rate.json $links --platform $R/without_cold.json --traces $T \
    --json $R/validation_without_cold.json > $R/validate_without_cold_h2r1_$rate.txt
done
