#!/bin/bash
# Three short device calls right after run26.sh on the same warm 16-core machine, as run (one command line
# each; $OUT's files are in docs/results/issue10/device16_spin/):
#  1. run26's 2 hosts x 2 gave MG 1.20x and CG 1.19x with this build: is it the spin by time?  94b8677's
#     library against this build with LOOM_SPIN=1500 (spins about as long as 50 polls of MPI did), then this
#     build against itself with LOOM_SPIN=1500 (ab_spin_L.json, ab_spin_X.json);
#  2. one host x 2, the library against this build (run26's was cut by its timeout) (ab_h1r2.json);
#  3. that run's MG 1.32x again with 8 repetitions, and this build against itself with LOOM_SPIN=1500
#     (ab_h1r2_mg.json, ab_h1r2_mg_spin.json).
set +e; rm -rf .venv && cp -a .devvenv .venv
export PATH=$PWD/.venv/bin:$PATH:$PWD/.venv/net/bin MPIEXEC=$PWD/.venv/bin/mpiexec
C=scripts/cluster.sh
case ${1:-1} in
1) export LOOM_CLUSTER_CPUS=8; $C up 2 >/dev/null
   for p in "LD_LIBRARY_PATH=$PWD/.devold|LOOM_SPIN=1500" "X=1|LOOM_SPIN=1500"; do
     timeout 70 python3 apps/ab_builds.py --a build --b build --env-a "${p%%|*}" --env-b "${p##*|}" --apps mg,cg --reps 4 \
       --launch "$C run 2 2 --" --json $OUT/ab_spin_${p:0:1}.json 2>&1 | tail -4
   done; $C down;;
2) timeout 85 python3 apps/ab_builds.py --a build --b build --env-a "LD_LIBRARY_PATH=$PWD/.devold" --apps mg,cg,is,sor --reps 4 \
     --json $OUT/ab_h1r2.json 2>&1 | tail -6;;
3) timeout 30 python3 apps/ab_builds.py --a build --b build --env-a "LD_LIBRARY_PATH=$PWD/.devold" --apps mg --reps 8 \
     --json $OUT/ab_h1r2_mg.json 2>&1 | tail -2
   timeout 30 python3 apps/ab_builds.py --a build --b build --env-b "LOOM_SPIN=1500" --apps mg --reps 8 \
     --json $OUT/ab_h1r2_mg_spin.json 2>&1 | tail -2;;
esac
