#!/bin/bash
# LU on the SCASH paper's platform (MODEL.md, "At scale") from fresh traces of 16 and 64 ranks,
# predicted with and without the stride replay.  Output: scash_lu.txt beside this script.
set -e
cd "$(dirname "$0")/../../../.."
export MPIEXEC=${MPIEXEC:-$PWD/.venv/bin/mpiexec}
P="--platform docs/results/issue17/platform_one_host.json --platform tools/platforms/myrinet_pm.json --platform tools/platforms/pentium_pro_200.json"
python3 bench/model_scaling.py --apps lu --ranks 16,64 $P --traces /tmp/exp/scal > /dev/null
for r in 16 64; do
  for st in on off; do
    python3 tools/loom predict /tmp/exp/scal/lu_paper_np$r $P --stride $st --json 2>/dev/null | python3 -c "
import json, sys; p = json.load(sys.stdin)
print('lu', $r, 'ranks, --stride $st:', round(p['predicted_s'], 4), 's;', p['strided_faults'], 'faults fetched windows ahead,', p['faults_answered_ahead'], 'answered so')"
  done
done
