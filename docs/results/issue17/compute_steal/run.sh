#!/bin/bash
# Is a program's computation slower across the emulated hosts than on one
# host, where the model's traces are taken (docs/MODEL.md, "Where the
# unlimited links' errors are")?  IS, LU and FFT-3D traced alternately on
# one host (2 ranks) and on 2 hosts x 1 (links unlimited), REPS times each;
# split.py gives each rank's computation in the timed region from CPU time
# and from wall time.  Run as root; the output lands beside this script.
set -e
cd "$(dirname "$0")/../../../.."
H=docs/results/issue17/compute_steal
T=${TRACES:-/tmp/loom-compute-steal}
REPS=${REPS:-6}
export MPIEXEC=$PWD/.venv/bin/mpiexec LOOM_HOST_SHARE=0
B=$PWD/build/apps
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 2 >/dev/null
mkdir -p $T
for k in $(seq 1 $REPS); do
  for app in is lu fft3d; do
    rm -rf $T/one_${app}_$k $T/two_${app}_$k
    LOOM_TRACE=$T/one_${app}_$k timeout 300 $MPIEXEC -n 2 $B/${app}_loom > /dev/null
    LOOM_TRACE=$T/two_${app}_$k timeout 300 scripts/cluster.sh run 2 1 -- $B/${app}_loom > /dev/null
  done
done
for app in is lu fft3d; do
  python3 $H/split.py $(for k in $(seq 1 $REPS); do echo $T/one_${app}_$k; done)
  python3 $H/split.py $(for k in $(seq 1 $REPS); do echo $T/two_${app}_$k; done)
done > $H/split.txt
cat $H/split.txt
