#!/bin/bash
# A read claim's runs all remembered (read_runs): the library before (OLD, a directory with libloom.so.0, here
# 94e18bf's) against this build's, alternated, same binaries.  Run as root on the 2-core machine; the files land here.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue10/read_runs
. docs/results/issue10/ab_setup.sh
pinned_hosts
python3 bench/compare_builds.py --a /tmp/oldbench.sh --b build/bench/loom_bench --rounds 3 \
  --launch "$L" --json $R/fault_h2r1.json fault > $R/fault_h2r1.txt
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" \
  --apps is,cg,sor,lu,mg --reps 5 --json $R/apps_h2r1_cpus1.json > $R/apps_h2r1_cpus1.txt
unset LOOM_CLUSTER_CPUS
scripts/cluster.sh down >/dev/null
python3 bench/compare_builds.py --a /tmp/oldbench.sh --b build/bench/loom_bench --rounds 3 --np 2 --mpiexec $MPIEXEC \
  --env LOOM_LOCAL_MAP=0 --json $R/fault_np2_lm0.json fault > $R/fault_np2_lm0.txt
LOOM_LOCAL_MAP=0 python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --np 2 \
  --apps is,cg,sor,lu,mg --reps 5 --json $R/apps_np2_lm0.json > $R/apps_np2_lm0.txt
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --np 2 --apps is,cg,sor,lu,mg --reps 3 \
  --json $R/apps_np2.json > $R/apps_np2.txt
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --np 2 --apps sor,lu,cg --reps 6 \
  --json $R/apps_np2_again.json > $R/apps_np2_again.txt
# SPLASH-3, unmodified, bench sizes, 2 hosts x 1 with a core each (the claim_read script's A/B)
python3 scripts/splash3.py build --out /tmp/s3
scripts/cluster.sh up 2 >/dev/null
python3 docs/results/issue10/claim_read/splash3_ab.py --out /tmp/s3 --old-lib "$OLD" \
  --launch "env LOOM_CLUSTER_CPUS=1 $PWD/scripts/cluster.sh run 2 1 --" \
  --programs fft,lu,radix,ocean,cholesky,water --reps 3 --json $R/splash3_h2r1_cpus1.json > $R/splash3_h2r1_cpus1.txt
