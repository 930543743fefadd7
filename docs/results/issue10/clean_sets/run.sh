#!/bin/bash
# Clean writer sets not read again (clean_sets): the library before (OLD, a directory with libloom.so.0, here
# c810020's) against this build's, alternated, same binaries.  Run as root on the 2-core machine with SPLASH-3 built
# (scripts/splash3.py build --out build/splash3); the files land here.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue10/clean_sets
. docs/results/issue10/ab_setup.sh
pinned_hosts
python3 $R/splash3_ab.py --out build/splash3 --old $OLD --programs ocean,fft --reps 8 --launch "$PWD/$L" \
  > $R/splash3_h2r1_cpus1.txt
python3 $R/splash3_ab.py --out build/splash3 --old $OLD --programs ocean,water,cholesky,lu --reps 12 --launch "$PWD/$L" \
  > $R/splash3_h2r1_cpus1_12.txt
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" \
  --apps sor,lu,linpack,cg,mg,is,barnes --reps 5 --json $R/apps_h2r1_cpus1.json > $R/apps_h2r1_cpus1.txt
unset LOOM_CLUSTER_CPUS
scripts/cluster.sh down >/dev/null
LOOM_LOCAL_MAP=0 python3 $R/splash3_ab.py --out build/splash3 --old $OLD --programs ocean,fft --reps 8 \
  > $R/splash3_np2_lm0.txt
LOOM_LOCAL_MAP=0 python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --np 2 \
  --apps sor,lu,cg,mg,is,barnes --reps 5 --json $R/apps_np2_lm0.json > $R/apps_np2_lm0.txt
# Barnes-Hut again (the 5-run set read 1.18, ranges overlapping), and OCEAN's rank statistics, alternated:
pinned_hosts
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" --apps barnes --reps 12 \
  --json $R/barnes_h2r1_cpus1_12.json > $R/barnes_h2r1_cpus1_12.txt
O=$PWD/build/splash3/loom/apps/ocean/contiguous_partitions C="$PWD/$L"
for i in 1 2 3; do
  for v in old new; do
    if [ $v = old ]; then E="LD_LIBRARY_PATH=$OLD"; else E="X=1"; fi
    (cd $O && env $E LOOM_STATS=1 $C ./OCEAN -p2 -n130 -o > /dev/null 2> /tmp/ocean_stats_$v$i.txt) || true
    grep -E "^ +[01] |loom\[1\] time" /tmp/ocean_stats_$v$i.txt > $R/ocean_stats_h2r1_$v$i.txt
  done
done
