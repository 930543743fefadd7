#!/bin/bash
# A new walk along a step seen before fetches ahead at once (stride_known): the library before (OLD, a directory
# with libloom.so.0, here 3fb5ecd's) against this build's, alternated, same binaries.  Run as root on the 2-core
# machine; the files land here.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue10/stride_known
. docs/results/issue10/ab_setup.sh
pinned_hosts
for i in 1 2; do
  for v in old new; do
    if [ $v = old ]; then E="LD_LIBRARY_PATH=$OLD"; else E="X=1"; fi
    for a in lu linpack fft; do
      env $E LOOM_STATS=1 $L $PWD/build/apps/${a}_loom 2>&1 | grep -E "^ +[01] |RESULT" > $R/stats_${a}_$v$i.txt
    done
  done
done
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" --apps lu --reps 20 \
  --json $R/lu_h2r1_cpus1_20.json > $R/lu_h2r1_cpus1_20.txt
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" \
  --apps linpack,fft,fft3d,sor,cg,mg --reps 5 --json $R/apps_h2r1_cpus1.json > $R/apps_h2r1_cpus1.txt
unset LOOM_CLUSTER_CPUS
scripts/cluster.sh down >/dev/null
LOOM_LOCAL_MAP=0 python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --np 2 \
  --apps lu,linpack,fft --reps 5 --json $R/apps_np2_lm0.json > $R/apps_np2_lm0.txt
# Again across hosts (the 20-run LU set read 1.20, ranges overlapping; CG, which takes no stride, 1.24 in its set):
pinned_hosts
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" --apps lu --reps 20 \
  --json $R/lu_h2r1_cpus1_20b.json > $R/lu_h2r1_cpus1_20b.txt
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" --apps lu,linpack --reps 10 \
  --json $R/lu_linpack_h2r1_cpus1_10.json > $R/lu_linpack_h2r1_cpus1_10.txt
