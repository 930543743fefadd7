#!/bin/bash
# Clean writer sets kept at exact lock acquires (clean_sets_locks): the library before (OLD, a directory with
# libloom.so.0, here 031c76e's) against this build's, alternated, same binaries.  Run as root on the 2-core machine
# with SPLASH-3 built (scripts/splash3.py build --out build/splash3); the files land here.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue10/clean_sets_locks
. docs/results/issue10/ab_setup.sh
pinned_hosts
python3 docs/results/issue10/clean_sets/splash3_ab.py --out build/splash3 --old $OLD --programs barnes,water,cholesky,ocean \
  --reps 8 --launch "$PWD/$L" > $R/splash3_h2r1_cpus1.txt
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" --apps barnes,is --reps 8 \
  --json $R/apps_h2r1_cpus1.json > $R/apps_h2r1_cpus1.txt
# SPLASH-3 BARNES once with each library, its statistics (writer_loads, t_lock) into barnes_stats_h2r1_{old,new}.json:
for v in old new; do
  if [ $v = old ]; then E="LD_LIBRARY_PATH=$OLD"; else E="X=1"; fi
  env $E LOOM_STATS_FILE=$PWD/$R/barnes_stats_h2r1_$v.json python3 -c "
import sys, types; sys.path.insert(0, 'scripts'); import splash3
splash3.run(types.SimpleNamespace(out='$PWD/build/splash3', launch='$PWD/$L', mpiexec='', timeout=600), 'loom', 'barnes', 2, 'test')"
done
unset LOOM_CLUSTER_CPUS
scripts/cluster.sh down >/dev/null
LOOM_LOCAL_MAP=0 python3 docs/results/issue10/clean_sets/splash3_ab.py --out build/splash3 --old $OLD \
  --programs barnes,water,cholesky --reps 6 > $R/splash3_np2_lm0.txt
