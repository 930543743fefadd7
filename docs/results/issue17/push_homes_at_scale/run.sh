#!/bin/bash
# The SCASH scaling (MODEL.md, "At scale") and the SCI topology question
# predicted again after the planned barrier push took its pages' homes
# from the fetches that brought them (ecd957e): fresh traces (the old ones
# are gone), each replayed by this model and by 22a0ca3's (the model
# before the fix) so that the fix's own effect is the difference on the
# same traces.  Every file lands in this folder (the documented
# scaling_scash_myrinet.json and topology_sci_*.json stay as measured).
# TOPOLOGY=1 also predicts LU, SOR and CG at 32 and 64 nodes on the SCI
# network (switch, ring, torus) both ways, into this folder; SKIP_SCASH=1
# leaves the SCASH set out; SIZES=32:torus:8x4 (what was run on
# 2026-11-28: 20 minutes, CG's replays 2-3 minutes each) only 32 nodes.
# Run from anywhere (no root); CPU-bound for 10-40 minutes.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/push_homes_at_scale
T=${TRACES:-/tmp/loom-scal}
OLD=${OLD:-/tmp/loom-model-22a0ca3}
rm -rf "$OLD" && mkdir -p "$OLD" && git archive 22a0ca3 bench tools | tar -x -C "$OLD"
I=docs/results/issue17
MYR="--platform $I/platform_one_host.json --platform tools/platforms/myrinet_pm.json --platform tools/platforms/pentium_pro_200.json"
if [ -z "$SKIP_SCASH" ]; then
  python3 bench/model_scaling.py --apps lu,fft,barnes --ranks 1,2,4,8,16,32,64 $MYR --traces $T \
    --json $R/scaling_scash_myrinet.json
  python3 $OLD/bench/model_scaling.py --build-dir $PWD/build --apps lu,fft,barnes --ranks 1,2,4,8,16,32,64 $MYR \
    --traces $T --json $R/scaling_scash_myrinet_22a0ca3.json
fi
if [ -n "$TOPOLOGY" ]; then
  SCI="--platform $I/platform_one_host.json --platform tools/platforms/sci_scampi.json --platform tools/platforms/pentium_pro_200.json"
  for t in ${SIZES:-32:torus:8x4 64:torus:8x8}; do n=${t%%:*}
    python3 bench/model_scaling.py --apps lu,sor,cg --ranks $n --topologies star,ring,${t#*:} $SCI --traces $T \
      --json $R/topology_sci_$n.json
    python3 $OLD/bench/model_scaling.py --build-dir $PWD/build --apps lu,sor,cg --ranks $n --topologies star,ring,${t#*:} \
      $SCI --traces $T --json $R/topology_sci_${n}_22a0ca3.json
  done
fi
