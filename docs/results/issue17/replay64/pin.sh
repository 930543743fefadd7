#!/bin/bash
# CG's 64-rank replay on the SCI network's switch, ring and 8x8 torus: the
# commit before the replay's simulation was pinned to one CPU (OLD), this
# checkout, and this checkout with the pinning off (LOOM_TOOL_PIN=0: what
# the preparation's collector change alone gives), alternated on one
# trace.  Traces the program first if TRACES has no trace of it (about
# 100 s).  Output: pin.txt beside this script.
set -e
cd "$(dirname "$0")/../../../.."
T=${TRACES:-/tmp/exp/scal}
OLD=${OLD:-36412b5}
ROUNDS=${ROUNDS:-2}
TOPOLOGIES=${TOPOLOGIES:-star ring torus:8x8}
here=docs/results/issue17/replay64
wt=/tmp/loom-replay64-pin-old
[ -d $wt ] || git worktree add -q --detach $wt $OLD
trap 'git worktree remove --force $wt' EXIT
P="--platform $PWD/docs/results/issue17/platform_one_host.json --platform $PWD/tools/platforms/sci_scampi.json"
P="$P --platform $PWD/tools/platforms/pentium_pro_200.json"
[ -d $T/cg_paper_np64 ] || python3 bench/model_scaling.py --apps cg --ranks 64 --topologies star $P --traces $T
out=$here/pin.txt
echo "# $(date -u +%F\ %T) CG 64 ranks, SCI; $(nproc) CPUs; load: $(cut -d' ' -f1-3 /proc/loadavg)" > $out
for topo in $TOPOLOGIES; do
  for round in $(seq $ROUNDS); do
    for v in old unpinned new; do
      dir=$PWD pin=1
      [ $v = old ] && dir=$wt
      [ $v = unpinned ] && pin=0
      s=$(date +%s.%N)
      LOOM_TOOL_PIN=$pin python3 $dir/tools/loom predict $T/cg_paper_np64 $P --json --topology $topo --window 1:-1 \
        > /tmp/loom-pin-$v.json 2> /tmp/loom-pin-$v.err
      e=$(date +%s.%N)
      sim=$(grep -o 'done in [0-9.]* s' /tmp/loom-pin-$v.err)
      pred=$(python3 -c "import json; print('%.6f' % json.load(open('/tmp/loom-pin-$v.json'))['predicted_window_s'])")
      printf "%-9s round %s %-8s replay %5.1f s (simulation %s), predicted %s s\n" $topo $round $v \
        $(python3 -c "print($e - $s)") "$sim" $pred >> $out
    done
  done
done
cat $out
