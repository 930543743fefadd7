#!/bin/bash
# A slow home is told (read_nap): the library before (OLD, a directory with libloom.so.0, here b60a8bf's) against
# this build's, alternated, same binaries.  Run as root on the 2-core machine; the files land here.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue10/read_nap
. docs/results/issue10/ab_setup.sh
pinned_hosts
python3 bench/compare_builds.py --a /tmp/oldbench.sh --b build/bench/loom_bench --rounds 4 \
  --launch "$L" --json $R/pagefetch_h2r1_stream.json pagefetch > $R/pagefetch_h2r1_stream.txt
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" \
  --apps lu,linpack,cg,mg,sor,fft,is,barnes,ep --reps 7 --json $R/apps_h2r1_cpus1.json > $R/apps_h2r1_cpus1.txt
unset LOOM_CLUSTER_CPUS
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "scripts/cluster.sh run 2 2 --" \
  --apps lu,cg,mg,sor,is --reps 5 --json $R/apps_h2r2.json > $R/apps_h2r2.txt
scripts/cluster.sh down >/dev/null
python3 bench/compare_builds.py --a /tmp/oldbench.sh --b build/bench/loom_bench --rounds 3 --np 2 --mpiexec $MPIEXEC \
  --env LOOM_LOCAL_MAP=0 --json $R/pagefetch_np2_lm0.json pagefetch > $R/pagefetch_np2_lm0.txt
LOOM_LOCAL_MAP=0 python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --np 2 \
  --apps lu,cg,mg,sor,is --reps 5 --json $R/apps_np2_lm0.json > $R/apps_np2_lm0.txt
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --np 2 --apps lu,cg,mg,sor --reps 3 \
  --json $R/apps_np2.json > $R/apps_np2.txt
# the fetch at 2 x 2 and 2 x 1 and Jacobi by pair and full barriers at 3 hosts (the earlier word's script)
mkdir -p $R/tell_run
R=$R/tell_run OLD=$OLD NEW=$PWD/build ROUNDS="1 2 3 4 5 6" APPS=0 docs/results/issue10/read_tell/run.sh
