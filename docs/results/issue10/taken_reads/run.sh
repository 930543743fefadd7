#!/bin/bash
# Page reads by requests from homes whose cores are taken (src/transport/transport.cpp), with the wait's
# yields restarted after a request it serves (src/spin.hpp, IdlePace::served), against the library before
# (OLD, a directory with libloom.so.0), alternated, same binaries: the page fetch at 2 hosts x 2 and 2 x 1,
# Jacobi by pair and full barriers at 3 hosts x 1 (bench/stencil_pairs, 3 ranks, 2 sweeping), and the
# applications at 2 hosts x 2.  Run as root on the 2-core machine; the files land here.  Tried and not kept
# (BENCHMARKS.md, "The fetch at 2 hosts x 2 on 2 cores is slower since 0148d0a"): the applications' A/B
# was stopped once the page fetch and Jacobi had come out slower (summary.txt).
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue10/taken_reads
OLD=${OLD:?OLD: the previous build library directory}
export MPIEXEC=$PWD/.venv/bin/mpiexec
C=scripts/cluster.sh; B=$PWD/build/bench
trap '$C down >/dev/null 2>&1 || true' EXIT
$C down >/dev/null 2>&1 || true; $C up 3 >/dev/null
: > $R/summary.txt
for i in 1 2; do for lib in old new; do
  e=X=1; [ $lib = old ] && e=LD_LIBRARY_PATH=$OLD
  for shape in "2 2" "2 1"; do set -- $shape
    env $e timeout 120 $C run $1 $2 -- $B/loom_bench pagefetch --max-reps 11 > $R/pagefetch_h$1r$2_${lib}_$i.txt 2>&1
    echo "pagefetch h$1r$2 $lib $i: $(grep -E '^(pagefetch +pages=1024 unit_pages=1 |pagefetch_busy_home )' $R/pagefetch_h$1r$2_${lib}_$i.txt | sed -E 's/ +/ /g' | cut -d' ' -f1,4,5 | tr '\n' ';')" | tee -a $R/summary.txt
  done
  for m in pairs full; do flag=""; [ $m = full ] && flag=--full
    out=$(env $e timeout 120 $C run 3 1 -- $B/stencil_pairs --n 512 --sweeps 2000 --active 2 $flag)
    echo "stencil h3r1 $lib $m $i: $(echo "$out" | sed -n 's/.*: \([0-9.]*\) s, result identical.*/\1/p')" | tee -a $R/summary.txt
  done
done; done
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --reps 3 --launch "$C run 2 2 --" \
  --apps sor,cg,mg,barnes,is,lu --json $R/apps_h2r2.json | tee $R/apps_h2r2.txt
