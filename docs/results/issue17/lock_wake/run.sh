#!/bin/bash
# The eighteenth to twenty-second paired runs' measured times across hosts
# predicted again from their own traces (kept in /tmp/loom-paired18..22/traces)
# by this build's model, with a lock take that meets its home or the lock's
# keeper computing waiting for that rank's protocol thread as a request does
# (WAKE=on: serve_wait added to lock_home_us and lock_kick_us) or not
# (WAKE=off: the model as it is).  WAKE=on needs the model of the branch
# exp/lockwake (c6161a1: X_LOCKWAKE=1); on main both give the off figures.
# No program runs; SimGrid only.  Files here:
# validation_<run>_<on|off>.json, table_<run>_<on|off>.md, parts_..., runs_<on|off>.md.
set -e
cd "$(dirname "$0")/../../../.."
OUT=docs/results/issue17/lock_wake
W=${WAKE:-on}
[ "$W" = on ] && export X_LOCKWAKE=1 || export X_LOCKWAKE=0
runs=()
for pair in 18:8b4d994 19:bf015c7 20:b24aa74 21:272280e 22:5840f8c; do
  n=${pair%%:*} h=${pair##*:}
  R=docs/results/issue17/paired_$h
  T=/tmp/loom-paired$n/traces
  V=$OUT/validation_${h}_$W.json
  cp $R/validation.json $V
  for rate in unlimited 1gbit 100mbit; do
    links=""
    [ $rate != unlimited ] && links="--platform $R/links_$rate.json"
    python3 bench/model_validate.py --config h2r1_$rate --hosts 2 --repredict --stride on \
      --platform $R/platform_one_host.json --platform $R/platform_h2_$rate.json $links --traces "$T" --json $V > /dev/null
  done
  python3 bench/model_validate.py --table $V > $OUT/table_${h}_$W.md
  python3 bench/model_validate.py --parts $V > $OUT/parts_${h}_$W.md
  runs+=("$V")
done
python3 bench/model_validate.py --runs "${runs[@]}" > $OUT/runs_$W.md
