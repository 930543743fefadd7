#!/bin/bash
# A check push opens its page alone (check_pages; open_alone.patch, not kept): the library before (OLD, a directory
# with libloom.so.0, here 12e3309's) against a build with the patch, alternated, same binaries.  Run as root on the 2-core machine; the files land here.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue10/check_pages
. docs/results/issue10/ab_setup.sh
export LOOM_CLUSTER_CPUS=1
for rate in unlimited 1gbit; do
  scripts/cluster.sh down >/dev/null 2>&1 || true
  if [ $rate = unlimited ]; then scripts/cluster.sh up 2 >/dev/null; else scripts/cluster.sh up 2 $rate >/dev/null; fi
  python3 bench/compare_builds.py --a /tmp/oldbench.sh --b build/bench/loom_bench --rounds 3 \
    --launch "$L" --json $R/bench_h2r1_$rate.json halo jacobi > $R/bench_h2r1_$rate.txt
  python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" \
    --apps sor,mg,cg,lu,is,fft --reps 5 --json $R/apps_h2r1_$rate.json > $R/apps_h2r1_$rate.txt
done
unset LOOM_CLUSTER_CPUS
scripts/cluster.sh down >/dev/null
# (one host with LOOM_LOCAL_MAP=0 was next; stopped before it finished, its files dropped)
# Afterwards (the run above was stopped after apps_h2r1_1gbit; apps_np2_lm0 is partial):
scripts/cluster.sh up 2 >/dev/null
LOOM_CLUSTER_CPUS=1 python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD \
  --launch "$L" --apps mg,cg,sor --reps 10 --json $R/apps_h2r1_unlimited_10.json > $R/apps_h2r1_unlimited_10.txt
# The change measured, not kept: open_alone.patch (against 12e3309).
