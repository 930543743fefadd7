#!/bin/bash
# The eighteenth to twentieth paired runs' measured times predicted again
# from their own traces (kept in /tmp/loom-paired18..20/traces), by this
# build's model with the fetches along a stride (STRIDE=on, plan_stride)
# and without (STRIDE=off: the model before, a check that it gives the
# stored predictions again).  No program runs; SimGrid only.  Files here:
# validation_<run>_<on|off>.json, table_<run>_<on|off>.md, parts_..., runs_<on|off>.md.
set -e
cd "$(dirname "$0")/../../../.."
OUT=docs/results/issue17/stride_repredict
S=${STRIDE:-on}
for pair in 18:8b4d994 19:bf015c7 20:b24aa74; do
  n=${pair%%:*} h=${pair##*:}
  R=docs/results/issue17/paired_$h
  T=/tmp/loom-paired$n/traces
  V=$OUT/validation_${h}_$S.json
  cp $R/validation.json $V
  python3 bench/model_validate.py --config h1r2 --repredict --stride $S --platform $R/platform_one_host.json \
    --traces "$T" --json $V > /dev/null
  for rate in unlimited 1gbit 100mbit; do
    links=""
    [ $rate != unlimited ] && links="--platform $R/links_$rate.json"
    python3 bench/model_validate.py --config h2r1_$rate --hosts 2 --repredict --stride $S \
      --platform $R/platform_one_host.json --platform $R/platform_h2_$rate.json $links --traces "$T" --json $V > /dev/null
  done
  python3 bench/model_validate.py --table $V > $OUT/table_${h}_$S.md
  python3 bench/model_validate.py --parts $V > $OUT/parts_${h}_$S.md
done
python3 bench/model_validate.py --runs $OUT/validation_{8b4d994,bf015c7,b24aa74}_$S.json > $OUT/runs_$S.md
