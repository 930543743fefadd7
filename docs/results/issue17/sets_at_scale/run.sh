#!/bin/bash
# The SCASH paper's findings (MODEL.md, "At scale") from several traces a
# point instead of one: REPS (default 3) independent sets of APP's traces
# (default fft; lu, barnes) at 1-64 ranks, each replayed on the
# Myrinet/PM platform (star; FIRST=K starts at set K, keeping the sets
# before), then summary.py: per rank count each set's predicted time, the
# speed-up against each set's own 1-rank prediction and against the median
# 1-rank prediction of all sets, the barrier share, and for Barnes-Hut
# its tree-build and force phases.  Files: APP_I.json, APP_summary.txt.
# Run from anywhere (no root); CPU-bound, a minute (FFT) to several
# minutes (LU, Barnes-Hut) a set.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/sets_at_scale
I=docs/results/issue17
APP=${APP:-fft}
MYR="--platform $I/platform_one_host.json --platform tools/platforms/myrinet_pm.json --platform tools/platforms/pentium_pro_200.json"
PHASES=""
[ $APP = barnes ] && PHASES="--phase barnes:tree=2:3,7:8,12:13 --phase barnes:force=5:6,10:11,15:16"
for i in $(seq ${FIRST:-1} ${REPS:-3}); do
  rm -rf /tmp/loom-$APP-scale.$i
  python3 bench/model_scaling.py --apps $APP --ranks 1,2,4,8,16,32,64 $MYR $PHASES --traces /tmp/loom-$APP-scale.$i \
    --json $R/${APP}_$i.json
done
python3 $R/summary.py $APP $R/${APP}_[0-9]*.json | tee $R/${APP}_summary.txt
