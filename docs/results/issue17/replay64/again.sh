#!/bin/bash
# CG's 64-rank replay on the SCI network's switch, this checkout's model
# against d4f7821's (the commit whose 44 s MODEL.md gave), alternated on
# one trace, in one session: whether the replay got slower, or the machine.
# Traces the program first if TRACES has no trace of it (about 100 s).
# Output: again.txt beside this script, then bench/simgrid_steps.py's
# step costs of the same session.
set -e
cd "$(dirname "$0")/../../../.."
T=${TRACES:-/tmp/exp/scal}
OLD=${OLD:-d4f7821}
ROUNDS=${ROUNDS:-2}
here=docs/results/issue17/replay64
wt=/tmp/loom-replay64-old
[ -d $wt ] || git worktree add -q --detach $wt $OLD
trap 'git worktree remove --force $wt' EXIT
P="--platform $PWD/docs/results/issue17/platform_one_host.json --platform $PWD/tools/platforms/sci_scampi.json"
P="$P --platform $PWD/tools/platforms/pentium_pro_200.json"
[ -d $T/cg_paper_np64 ] || python3 bench/model_scaling.py --apps cg --ranks 64 --topologies star $P --traces $T
out=$here/again.txt
echo "# $(date -u +%F\ %T) CG 64 ranks, star, SCI; load: $(cut -d' ' -f1-3 /proc/loadavg)" > $out
for round in $(seq $ROUNDS); do
  for v in old new; do
    dir=$PWD
    [ $v = old ] && dir=$wt
    s=$(date +%s.%N)
    python3 $dir/tools/loom predict $T/cg_paper_np64 $P --json --topology star --window 1:-1 \
      > /tmp/loom-replay64-$v.json 2> /tmp/loom-replay64-$v.err
    e=$(date +%s.%N)
    sim=$(grep -o 'done in [0-9.]* s' /tmp/loom-replay64-$v.err)
    pred=$(python3 -c "import json; print('%.4f' % json.load(open('/tmp/loom-replay64-$v.json'))['predicted_window_s'])")
    echo "round $round $v: replay $(python3 -c "print('%.1f' % ($e - $s))") s (simulation $sim), predicted $pred s" >> $out
  done
done
# What a simulation step costs this machine now (simgrid_steps.txt had
# 17.6, 43.3 and 19.3 us when the 44 s were measured).
python3 bench/simgrid_steps.py >> $out 2>/dev/null
cat $out
