#!/bin/bash
# A barrier's diffs unacknowledged in a job of 2 ranks (late_acks): the library before (OLD, a directory with
# libloom.so.0, here 93ed64b's) against this build's, alternated, same binaries.  Run as root on the 2-core
# machine; the files land here.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue10/late_acks
. docs/results/issue10/ab_setup.sh
pinned_hosts
python3 bench/compare_builds.py --a /tmp/oldbench.sh --b build/bench/loom_bench --rounds 3 \
  --launch "$L" --json $R/barrier_dirty_h2r1.json barrier_dirty > $R/barrier_dirty_h2r1.txt
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" \
  --apps sor,lu,linpack,cg,mg,is,barnes,fft,ep --reps 5 --json $R/apps_h2r1_cpus1.json > $R/apps_h2r1_cpus1.txt
unset LOOM_CLUSTER_CPUS
scripts/cluster.sh down >/dev/null
LOOM_LOCAL_MAP=0 python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --np 2 \
  --apps sor,lu,cg,mg,is,barnes --reps 5 --json $R/apps_np2_lm0.json > $R/apps_np2_lm0.txt
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --np 2 --apps sor,lu,cg,mg,is,barnes --reps 3 \
  --json $R/apps_np2.json > $R/apps_np2.txt
# Afterwards, the same library pair:
pinned_hosts
python3 bench/compare_builds.py --a /tmp/oldbench.sh --b build/bench/loom_bench --rounds 8 \
  --launch "$L" --json $R/barrier_dirty_h2r1_8rounds.json barrier_dirty > $R/barrier_dirty_h2r1_8rounds.txt
# SOR's barriers taken apart, 400 sweeps, twice each alternated
for i in 1 2; do
  for v in old new; do
    rm -rf /tmp/sor_$v$i
    if [ $v = old ]; then E="LD_LIBRARY_PATH=$OLD"; else E="X=1"; fi
    env $E LOOM_TRACE=/tmp/sor_$v$i scripts/cluster.sh run 2 1 -- $PWD/build/apps/sor_loom --iters 400
    python3 tools/loom trace summary /tmp/sor_$v$i > $R/sor_anatomy_h2r1_$v$i.txt
  done
done
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" \
  --apps sor --reps 10 --json $R/sor_h2r1_cpus1_10.json > $R/sor_h2r1_cpus1_10.txt
unset LOOM_CLUSTER_CPUS
scripts/cluster.sh down >/dev/null
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --np 2 --apps lu,cg,is,barnes --reps 8 \
  --json $R/apps_np2_again.json > $R/apps_np2_again.txt
scripts/cluster.sh up 2 >/dev/null
LOOM_CLUSTER_CPUS=1 python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD \
  --launch "$L" --apps is,cg --reps 10 --json $R/is_cg_h2r1_cpus1_10.json > $R/is_cg_h2r1_cpus1_10.txt
# (the other barrier_dirty sets: barrier_dirty_h2r1_5rounds.json (--rounds 5) and _8rounds_first.json (--rounds 8),
#  the command above; _unpinned_8rounds.json without LOOM_CLUSTER_CPUS; _np2_lm0_8rounds.json:
#  python3 bench/compare_builds.py --a /tmp/oldbench.sh --b build/bench/loom_bench --rounds 8 --np 2 --mpiexec $MPIEXEC \
#    --env LOOM_LOCAL_MAP=0 --json $R/barrier_dirty_np2_lm0_8rounds.json barrier_dirty)
# The hosts sharing both cores, then links of 1 Gbit/s with a core each:
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 2 >/dev/null
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" \
  --apps sor,is --reps 8 --json $R/sor_is_h2r1_shared_8.json > $R/sor_is_h2r1_shared_8.txt
scripts/cluster.sh down >/dev/null
scripts/cluster.sh up 2 1gbit >/dev/null
LOOM_CLUSTER_CPUS=1 python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD \
  --launch "$L" --apps sor,is --reps 6 --json $R/sor_is_h2r1_1gbit_6.json > $R/sor_is_h2r1_1gbit_6.txt
