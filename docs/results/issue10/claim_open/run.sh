#!/usr/bin/env bash
# A write fault's claim of a unit opens the pages it won (BENCHMARKS.md,
# "First touch in units across hosts", "One fault a unit").  OLD: a build of
# the library before (9fca8cc) with apps and bench; run as root from the
# repository root, the cluster up (scripts/cluster.sh up 2).
set -euo pipefail
OLD=${OLD:?a build directory of the library before}
R=docs/results/issue10/claim_open
export MPIEXEC=${MPIEXEC:-$PWD/.venv/bin/mpiexec}
for tr in auto async rma; do
  python3 bench/compare_builds.py --a "$OLD/bench/loom_bench" --b build/bench/loom_bench --rounds 3 \
    --env LOOM_TRANSPORT=$tr --launch "env LOOM_CLUSTER_CPUS=1 $PWD/scripts/cluster.sh run 2 1 --" \
    --json $R/fault_h2r1_$tr.json fault > $R/fault_h2r1_$tr.txt
done
python3 bench/compare_builds.py --a "$OLD/bench/loom_bench" --b build/bench/loom_bench --rounds 3 \
  --launch "$PWD/scripts/cluster.sh run 2 2 --" --json $R/fault_h2r2.json fault > $R/fault_h2r2.txt
python3 bench/compare_builds.py --a "$OLD/bench/loom_bench" --b build/bench/loom_bench --rounds 3 --np 2 \
  --mpiexec "$MPIEXEC" --json $R/fault_np2.json fault > $R/fault_np2.txt
python3 bench/compare_builds.py --a "$OLD/bench/loom_bench" --b build/bench/loom_bench --rounds 3 --np 2 \
  --env LOOM_LOCAL_MAP=0 --mpiexec "$MPIEXEC" --json $R/fault_np2_nomap.json fault > $R/fault_np2_nomap.txt
python3 apps/ab_builds.py --a "$OLD" --b build --apps sor,lu,linpack,fft,cg,mg,is,ep,barnes --reps 3 \
  --launch "env LOOM_CLUSTER_CPUS=1 $PWD/scripts/cluster.sh run 2 1 --" --json $R/apps_h2r1_cpus1.json \
  > $R/apps_h2r1_cpus1.txt
for app in linpack barnes is; do
  for b in "$OLD" build; do
    echo "$app $b: $(LOOM_STATS=1 LOOM_CLUSTER_CPUS=1 scripts/cluster.sh run 2 1 -- "$(realpath $b)/apps/${app}_loom" 2>&1 |
      grep -E '^loom\[[01]\] stats' | sed 's/ | /\n/g' | grep -oE 'faults read [0-9]+ write [0-9]+|twins [0-9]+|migrations [0-9]+|invalidations [0-9]+' | tr '\n' ' ')"
  done
done > $R/stats.txt
# Again with 5 runs for the programs whose first 3 moved most
python3 apps/ab_builds.py --a "$OLD" --b build --apps fft,cg,mg --reps 5 \
  --launch "env LOOM_CLUSTER_CPUS=1 $PWD/scripts/cluster.sh run 2 1 --" \
  --json $R/apps_fft_cg_mg_h2r1_cpus1.json > $R/apps_fft_cg_mg_h2r1_cpus1.txt
