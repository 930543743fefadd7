#!/bin/bash
# `loom predict --cores` against real runs whose ranks outnumber the
# machine's cores (docs/MODEL.md, "Hosts that share cores"): Jacobi 1024^2,
# 100 sweeps, barriers of every rank (bench/stencil_pairs --full), each
# round traced on one host (3 ranks on this machine's 2 cores), then
# untraced on 3 emulated hosts x 1 (links unlimited), predicted for 3
# hosts on the tenth run's calibration with a core per rank and with
# --cores 2.  Run as root; cores_full.txt lands here.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/subset
PLAT=docs/results/issue17/paired_bb12c4d
T=${TRACES:-/tmp/loom-cores}
ROUNDS=${ROUNDS:-3}
. docs/results/issue17/subset/three_hosts.sh
: > $R/cores_full.txt
for i in $(seq 1 $ROUNDS); do
  LOOM_TRACE=$T/full.$i LOOM_HOST_SHARE=0 $MPIEXEC -n 3 $B --n 1024 --sweeps 100 --full > /dev/null
  m=$(scripts/cluster.sh run 3 1 -- $B --n 1024 --sweeps 100 --full | sed -n 's/.*: \([0-9.]*\) s, result identical.*/\1/p')
  line="round $i: measured $m s; predicted"
  for c in 0 2; do
    p=$(tools/loom predict $T/full.$i --hosts 3 --platform $PLAT/platform_one_host.json \
        --platform $PLAT/platform_h2_unlimited.json --window 2:103 --cores $c --json 2>/dev/null |
        python3 -c "import json, sys; print('%.4f' % json.load(sys.stdin)['predicted_window_s'])")
    line="$line, --cores $c: $p s"
  done
  echo "$line" | tee -a $R/cores_full.txt
done
