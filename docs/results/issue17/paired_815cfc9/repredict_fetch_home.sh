#!/bin/bash
# The eighth paired run's measured times predicted again from its own
# traces (kept in /tmp/loom-paired9/traces) after the planned barrier push
# took each pushed page's home from the fault that fetched it
# (tools/loom_model.py plan_prefetch; MODEL.md "The planned push's homes").
# No program runs; SimGrid only.  Files beside this script:
# validation_fetch_home.json, table_fetch_home.md, parts_fetch_home.md.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/paired_815cfc9
T=${TRACES:-/tmp/loom-paired9/traces}
cp $R/validation.json $R/validation_fetch_home.json
python3 bench/model_validate.py --config h1r2 --repredict --platform $R/platform_one_host.json --traces "$T" \
  --json $R/validation_fetch_home.json
for rate in unlimited 1gbit 100mbit; do
  links=""
  [ $rate != unlimited ] && links="--platform $R/links_$rate.json"
  python3 bench/model_validate.py --config h2r1_$rate --hosts 2 --repredict --platform $R/platform_one_host.json \
    --platform $R/platform_h2_$rate.json $links --traces "$T" --json $R/validation_fetch_home.json
done
python3 bench/model_validate.py --table $R/validation_fetch_home.json > $R/table_fetch_home.md
python3 bench/model_validate.py --parts $R/validation_fetch_home.json > $R/parts_fetch_home.md
