#!/usr/bin/env bash
# SPLASH-3 (unmodified, bench sizes) across 2 emulated hosts x 1, a core
# each: 9fca8cc's library (before this session's claims opened pages)
# against this one, alternated.  OLD_LIB: 9fca8cc's build directory.  Run
# as root from the repository root, the cluster up (scripts/cluster.sh up 2).
set -euo pipefail
OLD_LIB=${OLD_LIB:?a directory with the old libloom.so.0}
R=docs/results/issue10/claim_read
export MPIEXEC=${MPIEXEC:-$PWD/.venv/bin/mpiexec}
python3 scripts/splash3.py build --out /tmp/s3
python3 $R/splash3_ab.py --out /tmp/s3 --old-lib "$OLD_LIB" --launch "env LOOM_CLUSTER_CPUS=1 $PWD/scripts/cluster.sh run 2 1 --" \
  --programs fft,lu,radix,ocean,cholesky,water --reps 3 --json $R/splash3_h2r1_cpus1.json > $R/splash3_h2r1_cpus1.txt
python3 $R/splash3_ab.py --out /tmp/s3 --old-lib "$OLD_LIB" --launch "$PWD/scripts/cluster.sh run 2 2 --" --ranks 4 \
  --programs fft,lu,radix,ocean,cholesky,water --reps 3 --json $R/splash3_h2r2.json > $R/splash3_h2r2.txt
