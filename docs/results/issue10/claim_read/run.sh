#!/usr/bin/env bash
# A read fault's claim of a unit opens the run it won read-only, and a write
# to it registers the rest (BENCHMARKS.md, "First touch in units across
# hosts", "Reads and increments").  OLD_LIB: a directory with libloom.so.0
# of the library before (633720e); the same loom_bench and programs run
# against it through LD_LIBRARY_PATH (they find libloom by RUNPATH, which
# LD_LIBRARY_PATH overrides).  Run as root from the repository root, the
# cluster up (scripts/cluster.sh up 2).
set -euo pipefail
OLD_LIB=${OLD_LIB:?a directory with the old libloom.so.0}
R=docs/results/issue10/claim_read
export MPIEXEC=${MPIEXEC:-$PWD/.venv/bin/mpiexec}
A=/tmp/loom-bench-old.sh
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$OLD_LIB" "$PWD/build/bench/loom_bench" > $A
chmod +x $A
for tr in auto async rma; do
  python3 bench/compare_builds.py --a $A --b build/bench/loom_bench --rounds 3 \
    --env LOOM_TRANSPORT=$tr --launch "env LOOM_CLUSTER_CPUS=1 $PWD/scripts/cluster.sh run 2 1 --" \
    --json $R/fault_h2r1_$tr.json fault > $R/fault_h2r1_$tr.txt
done
python3 bench/compare_builds.py --a $A --b build/bench/loom_bench --rounds 3 \
  --launch "$PWD/scripts/cluster.sh run 2 2 --" --json $R/fault_h2r2.json fault > $R/fault_h2r2.txt
python3 bench/compare_builds.py --a $A --b build/bench/loom_bench --rounds 3 --np 2 \
  --mpiexec "$MPIEXEC" --json $R/fault_np2.json fault > $R/fault_np2.txt
python3 bench/compare_builds.py --a $A --b build/bench/loom_bench --rounds 3 --np 2 \
  --env LOOM_LOCAL_MAP=0 --mpiexec "$MPIEXEC" --json $R/fault_np2_nomap.json fault > $R/fault_np2_nomap.txt
# The programs: the same binaries, alternated, the old library by LD_LIBRARY_PATH
python3 apps/ab_builds.py --a build --b build --env-a "LD_LIBRARY_PATH=$OLD_LIB" \
  --apps sor,lu,linpack,fft,cg,mg,is,ep,barnes --reps 3 \
  --launch "env LOOM_CLUSTER_CPUS=1 $PWD/scripts/cluster.sh run 2 1 --" --json $R/apps_h2r1_cpus1.json \
  > $R/apps_h2r1_cpus1.txt
# Again with 5 runs for the programs whose first 3 moved most
python3 apps/ab_builds.py --a build --b build --env-a "LD_LIBRARY_PATH=$OLD_LIB" --apps sor,cg,is --reps 5 \
  --launch "env LOOM_CLUSTER_CPUS=1 $PWD/scripts/cluster.sh run 2 1 --" --json $R/apps_sor_cg_is_h2r1_cpus1.json \
  > $R/apps_sor_cg_is_h2r1_cpus1.txt
# IS alone, 11 runs (1.12 in both sets above, ranges overlapping, LOOM_STATS the same counts: stats.txt)
python3 apps/ab_builds.py --a build --b build --env-a "LD_LIBRARY_PATH=$OLD_LIB" --apps is --reps 11 \
  --launch "env LOOM_CLUSTER_CPUS=1 $PWD/scripts/cluster.sh run 2 1 --" --json $R/apps_is11_h2r1_cpus1.json \
  > $R/apps_is11_h2r1_cpus1.txt
for app in is cg; do
  for lib in "$OLD_LIB" build; do
    echo "$app $lib: $(LD_LIBRARY_PATH=$(realpath $lib) LOOM_STATS=1 LOOM_CLUSTER_CPUS=1 scripts/cluster.sh run 2 1 -- "$PWD/build/apps/${app}_loom" 2>&1 |
      grep -E '^loom\[[01]\] stats' | sed 's/ | /\n/g' | grep -oE 'faults read [0-9]+ write [0-9]+|twins [0-9]+|invalidations [0-9]+' | tr '\n' ' ')"
  done
done > $R/stats.txt
