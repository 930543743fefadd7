#!/bin/bash
# The eighth paired run's measured times predicted again from its own
# traces (kept in /tmp/loom-paired9/traces) by this build's model.  No
# program runs; SimGrid only.  Files beside this script:
# validation_NAME.json, table_NAME.md, parts_NAME.md (MODEL.md, "The
# planned push's homes, and a bucket counted twice"):
#   NAME=fetch_home  (ecd957e) each planned push from the home of the fetch
#                    that brought its pages
#   NAME=bucket      (b4656af) a message larger than the links' token
#                    bucket no longer pays the bucket's wait twice
#   NAME=fetch_bucket (the next commit) nor a fetch, whose calibration
#                    streamed (its overhead and extra page less that wait)
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/paired_815cfc9
N=${NAME:?NAME=fetch_home, bucket or fetch_bucket}
T=${TRACES:-/tmp/loom-paired9/traces}
cp $R/validation.json $R/validation_$N.json
python3 bench/model_validate.py --config h1r2 --repredict --platform $R/platform_one_host.json --traces "$T" \
  --json $R/validation_$N.json
for rate in unlimited 1gbit 100mbit; do
  links=""
  [ $rate != unlimited ] && links="--platform $R/links_$rate.json"
  python3 bench/model_validate.py --config h2r1_$rate --hosts 2 --repredict --platform $R/platform_one_host.json \
    --platform $R/platform_h2_$rate.json $links --traces "$T" --json $R/validation_$N.json
done
python3 bench/model_validate.py --table $R/validation_$N.json > $R/table_$N.md
python3 bench/model_validate.py --parts $R/validation_$N.json > $R/parts_$N.md
