#!/bin/sh
# SPLASH-3 OCEAN, non-contiguous partitions (40 GB of declared arrays), under
# LOOM_MEM_SIZE=64G: each rank's peak resident memory and the run's time,
# the library before (OLDLIB) and this build, alternated, 3 times each; one
# host (2 ranks) and 2 emulated hosts x 1.  Run from the repository root
# after scripts/splash3.py build --out build/splash3, with MPIEXEC set and
# scripts/cluster.sh up 2.
D=$PWD/build/splash3/loom/apps/ocean/non_contiguous_partitions
OLD="env LD_LIBRARY_PATH=${OLDLIB:-/tmp/oldlib}"
cd $D
for i in 1 2 3; do
  for v in old new; do
    pre=""; [ $v = old ] && pre="$OLD"
    for where in np2 h2r1; do
      if [ $where = np2 ]; then L="$MPIEXEC -n 2"; else L="$OLDPWD/scripts/cluster.sh run 2 1 --"; fi
      echo "== $where $v $i"
      LOOM_MEM_SIZE=64G $L $pre /usr/bin/time -f "rank peak %M KB, %e s" $D/OCEAN -p2 -n130 -o 2>&1 | grep -E "peak|Total time without"
    done
  done
done
