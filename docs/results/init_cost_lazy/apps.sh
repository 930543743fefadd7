#!/bin/sh
# The applications on the library before (A: LD_LIBRARY_PATH=OLDLIB, 96e2ba1)
# and this build (B), alternated, one host and 2 emulated hosts x 1.
R=docs/results/init_cost_lazy
P=sor,lu,linpack,cg,mg,is,fft,barnes
python3 apps/ab_builds.py --a build --b build --env-a "LD_LIBRARY_PATH=${OLDLIB:-/tmp/oldlib}" --apps $P --reps 3 \
  --json $R/apps_np2.json > $R/apps_np2.txt 2>&1
python3 apps/ab_builds.py --a build --b build --env-a "LD_LIBRARY_PATH=${OLDLIB:-/tmp/oldlib}" --apps $P --reps 3 \
  --launch "scripts/cluster.sh run 2 1 --" --json $R/apps_h2r1.json > $R/apps_h2r1.txt 2>&1
