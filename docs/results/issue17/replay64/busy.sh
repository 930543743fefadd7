#!/bin/bash
# CG's 64-rank replay on the SCI switch on a machine whose every CPU is busy: a spinning
# process per CPU (nice 0) runs beside the replay, pinned (the default) and free
# (LOOM_TOOL_PIN=0), alternated on one trace.  Traces the program first if TRACES has
# no trace of it (without the spinners).  Output: busy.txt beside this script.
set -e
cd "$(dirname "$0")/../../../.."
T=${TRACES:-/tmp/exp/scal}
ROUNDS=${ROUNDS:-2}
here=docs/results/issue17/replay64
P="--platform $PWD/docs/results/issue17/platform_one_host.json --platform $PWD/tools/platforms/sci_scampi.json"
P="$P --platform $PWD/tools/platforms/pentium_pro_200.json"
[ -d $T/cg_paper_np64 ] || python3 bench/model_scaling.py --apps cg --ranks 64 --topologies star $P --traces $T
out=$here/busy.txt
hogs=()
trap 'kill ${hogs[@]} 2>/dev/null || true' EXIT
for c in $(seq 0 $(($(nproc) - 1))); do taskset -c $c sh -c 'while :; do :; done' & hogs+=($!); done
sleep 1
echo "# $(date -u +%F\ %T) CG 64 ranks, SCI switch; $(nproc) CPUs, a spinner on each; load: $(cut -d' ' -f1-3 /proc/loadavg)" > $out
for round in $(seq $ROUNDS); do
  for pin in 1 0; do
    s=$(date +%s.%N)
    LOOM_TOOL_PIN=$pin python3 tools/loom predict $T/cg_paper_np64 $P --json --topology star --window 1:-1 \
      > /tmp/loom-busy-$pin.json 2> /tmp/loom-busy-$pin.err
    e=$(date +%s.%N)
    sim=$(grep -o 'done in [0-9.]* s' /tmp/loom-busy-$pin.err)
    pred=$(python3 -c "import json; print('%.6f' % json.load(open('/tmp/loom-busy-$pin.json'))['predicted_window_s'])")
    printf "round %s LOOM_TOOL_PIN=%s replay %5.1f s (simulation %s), predicted %s s\n" $round $pin \
      $(python3 -c "print($e - $s)") "$sim" $pred >> $out
  done
done
cat $out
