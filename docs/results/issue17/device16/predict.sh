#!/bin/bash
# The paired validation measured on a 16-core machine (docs/results/device16_scripts/run24.sh and the two
# calls after it, in docs/MODEL.md "Paired with their traces"), predicted here, where SimGrid is: the traces
# come back in traces_*.tgz (unpacked into /tmp/dv/traces, the paths validation.json names).
# Predicted twice: with locks kept (validation_keep.json) and with a round trip each (validation_rtt.json:
# the model before kept locks).
set -e
cd "$(dirname "$0")/../../../.."
D=docs/results/issue17/device16
T=/tmp/dv/traces
for f in $D/validation_keep.json $D/validation_rtt.json; do
  [ -f $f ] || cp $D/validation.json $f
  locks=keep; [ $f = $D/validation_rtt.json ] && locks=round-trips
  python3 bench/model_validate.py --config h1r2 --repredict --locks $locks --platform $D/platform_one_host.json \
    --traces $T --json $f
  python3 bench/model_validate.py --config h2r1_unlimited --hosts 2 --repredict --locks $locks \
    --platform $D/platform_one_host.json --platform $D/platform_h2_unlimited.json --traces $T --json $f
  python3 bench/model_validate.py --config h2r1_1gbit --hosts 2 --repredict --locks $locks \
    --platform $D/platform_one_host.json --platform $D/platform_h2_1gbit.json --platform $D/links_1gbit.json \
    --traces $T --json $f
  python3 bench/model_validate.py --table $f > ${f%.json}_table.md
done
