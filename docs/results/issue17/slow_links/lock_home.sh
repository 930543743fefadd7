#!/bin/bash
# Barnes-Hut's traces of run.sh (1 Gbit/s and unlimited links, 2 runs each;
# kept in /tmp/loom-slow-links) replayed again on the eighth paired run's
# calibration as it was, and with the lock prices of one `loom_bench
# lock` run at that rate laid over it (paired_9d3df61's
# lock_rows_RATE.json: between_hosts.lock_home_us, new, and lock_kick_us
# from the same run; MODEL.md, "Locks through the other host's home").
# One line a trace and model (compare.py); lock_home.txt.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/slow_links
T=${TRACES:-/tmp/loom-slow-links}
P=docs/results/issue17/paired_815cfc9
L=docs/results/issue17/paired_9d3df61
: > $R/lock_home.txt
for rate in 1gbit unlimited; do
  PLAT="--platform $P/platform_one_host.json --platform $P/platform_h2_$rate.json"
  [ $rate != unlimited ] && PLAT="$PLAT --platform $P/links_$rate.json"
  for i in 0 1; do
    d=$T/barnes.h2_$rate.$i d1=$T/barnes.h1_$rate.$i
    for with in without with; do
      o=/tmp/loom-lock-home-$with
      mkdir -p $o
      extra=""
      [ $with = with ] && extra="--platform $L/lock_rows_$rate.json"
      cp $d.stats.json $o/a.stats.json
      tools/loom predict $d $PLAT $extra --json 2>/dev/null > $o/a.predict.json
      tools/loom predict $d1 $PLAT $extra --hosts 2 --json 2>/dev/null > $o/b.predict.json
      echo "$rate $with lock_home_us: $(python3 $R/compare.py barnes $i $o/a $o/b)" | tee -a $R/lock_home.txt
    done
  done
done
