#!/bin/bash
# A page's diff of many runs as one mask record on the request path
# (transport/common.hpp), and stored by its mask between mapped ranks
# (DirectPath::put_mask): this build's libloom (B) against the one before
# the change (A, copied to $OLDLIB), the same programs, alternated.  One
# host (2 ranks: peers mapped, no diffs made: the change is not on their
# path), then 2 emulated hosts with links unlimited, 1 Gbit/s and
# 100 Mbit/s; loom_bench barrier_dirty (16 pages rewritten, with 64 and
# with 1,024 runs a page) at unlimited links, 2 hosts x 1 and 2 x 2.  Run
# as root from anywhere; the files land beside it.
set -e
cd "$(dirname "$0")/../../../.."
O=docs/results/issue10/mask_record
OLDLIB=${OLDLIB:-/tmp/oldlib}
export MPIEXEC=$PWD/.venv/bin/mpiexec
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
AB="python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLDLIB"
$AB --apps is,barnes,cg --reps 5 --json $O/ab_h1r2.json > $O/ab_h1r2.txt
for rate in unlimited 1gbit 100mbit; do
  scripts/cluster.sh down >/dev/null 2>&1 || true
  if [ $rate = unlimited ]; then scripts/cluster.sh up 2; else scripts/cluster.sh up 2 $rate; fi
  reps=5; [ $rate = 100mbit ] && reps=3
  $AB --apps is,barnes,cg --reps $reps --launch "scripts/cluster.sh run 2 1 --" --json $O/ab_h2r1_$rate.json \
    > $O/ab_h2r1_$rate.txt
  if [ $rate = unlimited ]; then
    for shape in "2 1" "2 2"; do
      tag=h${shape// /r}
      for k in 1 2 3; do
        for v in old new; do
          e=X=1; [ $v = old ] && e=LD_LIBRARY_PATH=$OLDLIB
          env $e scripts/cluster.sh run $shape -- $PWD/build/bench/loom_bench barrier_dirty --max-reps 15 \
            --json $PWD/$O/dirty_${tag}_${v}_$k.json > $O/dirty_${tag}_${v}_$k.txt
        done
      done
    done
  fi
done
