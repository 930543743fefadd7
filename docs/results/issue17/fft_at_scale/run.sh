#!/bin/bash
# The SCASH paper's "FFT does not speed up" (MODEL.md, "At scale") from
# several traces a point instead of one: REPS (default 3) independent sets
# of FFT traces at 1-64 ranks, each replayed on the Myrinet/PM platform
# (star; FIRST=K starts at set K, keeping the sets before), then summary.py: per rank count each set's predicted time, and
# the speed-up against each set's own 1-rank prediction and against the
# median 1-rank prediction of all sets.  Files: fft_I.json, summary.txt.
# Run from anywhere (no root); CPU-bound, a few minutes a set.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/fft_at_scale
I=docs/results/issue17
MYR="--platform $I/platform_one_host.json --platform tools/platforms/myrinet_pm.json --platform tools/platforms/pentium_pro_200.json"
for i in $(seq ${FIRST:-1} ${REPS:-3}); do
  rm -rf /tmp/loom-fft-scale.$i
  python3 bench/model_scaling.py --apps fft --ranks 1,2,4,8,16,32,64 $MYR --traces /tmp/loom-fft-scale.$i \
    --json $R/fft_$i.json
done
python3 $R/summary.py $R/fft_*.json | tee $R/summary.txt
