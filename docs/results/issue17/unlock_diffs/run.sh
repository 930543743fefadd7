#!/bin/bash
# Barnes-Hut, the one program whose unlocks send diffs across hosts (2,590
# of the tenth run's 49,763 unlocks; IS 22, EP 1, FFT-3D 6, the rest none),
# predicted again by the model before (OLD, default a7d80d5, in a git
# worktree) and by this checkout's, on each run's own platform files.  No
# program runs: the measured times are the runs' own.
#  1. the paired runs' kept traces (validation.json's measured runs);
#  2. its 2-host traces of slow_links/run.sh (each run's own trace, and a
#     one-host trace of the same command), as lock_home.sh replays them.
# docs/MODEL.md, "An unlock's diffs".  Files beside this script:
# RUN_RATE_{old,new}.txt, own_RATE_I_{old,new}.txt, categories_{old,new}.txt,
# gaps.txt and summary.txt.
set -e
cd "$(dirname "$0")/../../../.."
here=docs/results/issue17/unlock_diffs
OLD=${OLD:-a7d80d5}
wt=/tmp/loom-unlock-diffs-old
[ -d $wt ] || git worktree add -q --detach $wt $OLD
trap 'git worktree remove --force $wt' EXIT
# RUN_DIR TRACES CONFIGS [extra platform, a file pattern with RATE]
paired() {
  local R=$1 T=$2 configs=$3 extra=$4 name
  name=$(basename $R)
  [ "$name" = again ] && name=paired_bb12c4d_again
  for rate in $configs; do
    links=""
    [ $rate != unlimited ] && links="--platform $PWD/$R/links_$rate.json"
    [ -n "$extra" ] && links="$links --platform $PWD/${extra//RATE/$rate}"
    for v in old new; do
      dir=$PWD
      [ $v = old ] && dir=$wt
      cp $R/validation.json /tmp/loom-unlock-diffs-$v.json
      (cd $dir && python3 bench/model_validate.py --config h2r1_$rate --hosts 2 --paired --repredict --apps barnes \
        --platform $OLDPWD/$R/platform_one_host.json --platform $OLDPWD/$R/platform_h2_$rate.json $links --traces $T \
        --json /tmp/loom-unlock-diffs-$v.json) > $here/${name}_${rate}_$v.txt 2>&1
    done
  done
}
paired docs/results/issue17/paired_bb12c4d /tmp/loom-paired10/traces "unlimited 1gbit 100mbit"
paired docs/results/issue17/paired_bb12c4d/again /tmp/loom-paired10b/traces "unlimited 1gbit"
paired docs/results/issue17/paired_9d3df61 /tmp/loom-paired9/traces "unlimited 1gbit 100mbit" \
  docs/results/issue17/paired_9d3df61/lock_rows_RATE.json
# The own traces, on the platforms lock_home.sh used with the lock rows.
S=${SLOW:-/tmp/loom-slow-links}
P=docs/results/issue17/paired_815cfc9
L=docs/results/issue17/paired_9d3df61
for rate in unlimited 1gbit; do
  plat="--platform $PWD/$P/platform_one_host.json --platform $PWD/$P/platform_h2_$rate.json --platform $PWD/$L/lock_rows_$rate.json"
  [ $rate != unlimited ] && plat="$plat --platform $PWD/$P/links_$rate.json"
  for i in 0 1; do
    for v in old new; do
      dir=$PWD
      [ $v = old ] && dir=$wt
      o=/tmp/loom-unlock-diffs-own-$v
      mkdir -p $o
      cp $S/barnes.h2_$rate.$i.stats.json $o/a.stats.json
      (cd $dir && tools/loom predict $S/barnes.h2_$rate.$i $plat --json 2>/dev/null > $o/a.predict.json &&
        tools/loom predict $S/barnes.h1_$rate.$i $plat --hosts 2 --json 2>/dev/null > $o/b.predict.json)
      python3 docs/results/issue17/slow_links/compare.py barnes $i $o/a $o/b > $here/own_${rate}_${i}_$v.txt
    done
  done
done
# Barnes-Hut's lock operations by kind, measured against replayed (rank 1
# of the unlimited links' second run), by each model.
for v in old new; do
  tools=$PWD/tools
  [ $v = old ] && tools=$wt/tools
  LOOM_TOOLS=$tools python3 $here/categories.py $S/barnes.h2_unlimited.1 $P/platform_one_host.json \
    $P/platform_h2_unlimited.json $L/lock_rows_unlimited.json 2>/dev/null > $here/categories_$v.txt
done
python3 $here/gaps.py $S/barnes.h2_unlimited.1 $S/barnes.h2_1gbit.0 > $here/gaps.txt
python3 - $here > $here/summary.txt <<'PY'
import glob, os, re, sys
d = sys.argv[1]
print("paired runs' traces (model_validate --repredict): measured, predicted before / after, error before / after")
for f in sorted(glob.glob(os.path.join(d, "paired_*_old.txt"))):
    run, rate = re.match(r".*/(paired_.*)_(unlimited|1gbit|100mbit)_old\.txt", f).groups()
    cells = []
    for v in ("old", "new"):
        line = next(l for l in open(f[:-7] + v + ".txt") if l.startswith("barnes"))
        cells.append(re.search(r"measured\s+(\S+) s.*predicted\s+(\S+) s\s+error\s+(\S+)", line).groups())
    print(f"  {run:22} {rate:9} measured {cells[0][0]} s  predicted {cells[0][1]} / {cells[1][1]} s"
          f"  error {cells[0][2]:>6} / {cells[1][2]:>6}")
print("own 2-host traces and one-host traces (slow_links): error before / after")
for f in sorted(glob.glob(os.path.join(d, "own_*_old.txt"))):
    rate, i = re.match(r".*/own_(\w+)_(\d)_old\.txt", f).groups()
    errs = [re.findall(r"([-+][0-9.]+%)", open(f[:-7] + v + ".txt").read()) for v in ("old", "new")]
    print(f"  {rate:9} run {i}  own trace {errs[0][0]:>6} / {errs[1][0]:>6}   one-host trace {errs[0][1]:>6} / {errs[1][1]:>6}")
PY
cat $here/summary.txt
