#!/bin/bash
# The ninth paired run's cross-host measurements predicted again from its
# own traces (kept in /tmp/loom-paired9/traces) with the lock price the
# calibration now writes (docs/MODEL.md, "Locks through the other host's
# home"): `loom_bench lock` across 2 emulated hosts at each rate (separate
# runs, after the paired run), its rows laid over the run's platform as
# the calibration writes them (lock_rows_RATE.json): lock_home_us (the
# take through the other host's home, new) and lock_kick_us (the
# alternating turn less the bare one, as before, from the same run).
# SKIP_BENCH=1 reuses lock_RATE.json.
# Run as root; files beside this script: lock_RATE.json (the benchmark),
# lock_rows_RATE.json, validation_lock_rows.json, table_lock_rows.md.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/paired_9d3df61
T=${TRACES:-/tmp/loom-paired9/traces}
export MPIEXEC=$PWD/.venv/bin/mpiexec
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
cp $R/validation.json $R/validation_lock_rows.json
for rate in unlimited 1gbit 100mbit; do
  scripts/cluster.sh down >/dev/null 2>&1 || true
  if [ $rate = unlimited ]; then scripts/cluster.sh up 2; else scripts/cluster.sh up 2 $rate; fi
  [ -n "$SKIP_BENCH" ] || scripts/cluster.sh run 2 1 -- $PWD/build/bench/loom_bench lock --max-reps 15 \
    --json $PWD/$R/lock_$rate.json > /dev/null
  python3 - $R/lock_$rate.json $R/lock_rows_$rate.json <<'PY'
import json, sys
rows = {r["name"]: r["median"] for r in json.load(open(sys.argv[1]))["results"]}
json.dump({"format": "loom-platform 1", "name": "lock prices (loom_bench lock)",
           "between_hosts": {"lock_home_us": rows["lock_take_through_home"],
                             "lock_kick_us": max(0.0, rows["lock_alternating"] - rows["lock_turns_bare"])}},
          open(sys.argv[2], "w"), indent=1)
PY
  links=""
  [ $rate != unlimited ] && links="--platform $R/links_$rate.json"
  python3 bench/model_validate.py --config h2r1_$rate --hosts 2 --repredict --platform $R/platform_one_host.json \
    --platform $R/platform_h2_$rate.json $links --platform $R/lock_rows_$rate.json --traces "$T" \
    --json $R/validation_lock_rows.json
done
python3 bench/model_validate.py --table $R/validation_lock_rows.json > $R/table_lock_rows.md
