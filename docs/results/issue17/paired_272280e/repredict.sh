#!/bin/bash
# The twenty-first paired run's measured times predicted again from its
# own traces (kept in /tmp/loom-paired21/traces) by this build's model,
# with the replay's fetches along a stride on or off and the calibrated
# fetch_busy_page_us kept or set to 0 (a platform file merged last).  No
# program runs; SimGrid only.  Files beside this script: validation_NAME.json,
# table_NAME.md, parts_NAME.md (MODEL.md, "A large get from a computing home"):
#   NAME=stride       --stride on
#   NAME=stride_nobusy --stride on, fetch_busy_page_us 0
#   NAME=nobusy       --stride off, fetch_busy_page_us 0
#   NAME=stride_late  --stride on, after 80b68ca: a loom_barrier of 2 ranks
#                     across hosts waits for no acknowledgement of its diffs
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/paired_272280e
N=${NAME:?NAME=stride, stride_nobusy or nobusy}
T=${TRACES:-/tmp/loom-paired21/traces}
S=off; [[ $N == stride* ]] && S=on
extra=""
if [[ $N == *nobusy ]]; then
  echo '{"format": "loom-platform 1", "between_hosts": {"fetch_busy_page_us": 0}}' > $R/nobusy.json
  extra="--platform $R/nobusy.json"
fi
cp $R/validation.json $R/validation_$N.json
for rate in unlimited 1gbit 100mbit; do
  links=""
  [ $rate != unlimited ] && links="--platform $R/links_$rate.json"
  python3 bench/model_validate.py --config h2r1_$rate --hosts 2 --repredict --stride $S --platform $R/platform_one_host.json \
    --platform $R/platform_h2_$rate.json $links $extra --traces "$T" --json $R/validation_$N.json > /dev/null
done
python3 bench/model_validate.py --table $R/validation_$N.json > $R/table_$N.md
python3 bench/model_validate.py --parts $R/validation_$N.json > $R/parts_$N.md
