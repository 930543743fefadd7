#!/bin/bash
# A reader tells a home whose cores are taken that it reads its pages by MPI_Get (kOpReading, at most every
# 0.5 ms), and the home's waits yield-poll instead of napping for 1 ms after it (src/spin.hpp,
# idle_read_until).  The library with it (NEW, a directory with libloom.so.0) against the one before (OLD),
# alternated, same binaries: the page fetch at 2 hosts x 2 and 2 x 1, Jacobi by pair and full barriers at
# 3 hosts x 1 (bench/stencil_pairs, 3 ranks, 2 sweeping: the case the naps were made for), and the
# applications at 2 hosts x 2.  Run as root on the 2-core machine; the files land here (summary.txt).
# ROUNDS (default "1 2"), SHAPES (default "2x2 2x1"), STENCIL=0 and APPS=0 pick a part: more rounds of the
# 2 x 2 fetch and Jacobi were  ROUNDS="3 4 5" SHAPES=2x2 APPS=0 run.sh  (summary appended); IS_SOR=5 runs
# IS and SOR 5 more times each; R=DIR writes elsewhere: waiting_only/ (the home heeding the word only while
# it waits) and final/ (that, and its protocol thread's pace not restarted by the word: the version kept),
# each run as  R=docs/results/issue10/read_tell/DIR ROUNDS="1 2 3 4 5" SHAPES=2x2 IS_SOR=5 run.sh.
# variants.txt has the shorter comparisons between them.  TRANSPORT=rma runs all of it under LOOM_TRANSPORT=rma
# (the rma path's words, 2026-11-30:  R=docs/results/issue10/read_tell/rma TRANSPORT=rma ROUNDS="1 2 3 4 5"
# IS_SOR=5 run.sh).
set -e
[ -n "$TRANSPORT" ] && export LOOM_TRANSPORT=$TRANSPORT
cd "$(dirname "$0")/../../../.."
R=${R:-docs/results/issue10/read_tell}
OLD=${OLD:?OLD: the previous build library directory}
NEW=${NEW:?NEW: this build library directory}
export MPIEXEC=$PWD/.venv/bin/mpiexec
C=scripts/cluster.sh; B=$PWD/build/bench
trap '$C down >/dev/null 2>&1 || true' EXIT
$C down >/dev/null 2>&1 || true; $C up 3 >/dev/null
ROUNDS=${ROUNDS:-1 2}; SHAPES=${SHAPES:-2x2 2x1}
[ "${ROUNDS%% *}" = 1 ] && : > $R/summary.txt
for i in $ROUNDS; do for lib in old new; do
  d=$OLD; [ $lib = new ] && d=$NEW
  for shape in $SHAPES; do set -- ${shape/x/ }
    LD_LIBRARY_PATH=$d timeout 150 $C run $1 $2 -- $B/loom_bench pagefetch --max-reps 11 > $R/pagefetch_h$1r$2_${lib}_$i.txt 2>&1
    echo "pagefetch h$1r$2 $lib $i: $(grep -E '^(pagefetch +pages=1024 unit_pages=1 |pagefetch_busy_home )' $R/pagefetch_h$1r$2_${lib}_$i.txt | sed -E 's/ +/ /g' | cut -d' ' -f1,4,5 | tr '\n' ';')" | tee -a $R/summary.txt
  done
  [ "${STENCIL:-1}" = 1 ] && for m in pairs full; do flag=""; [ $m = full ] && flag=--full
    out=$(LD_LIBRARY_PATH=$d timeout 120 $C run 3 1 -- $B/stencil_pairs --n 512 --sweeps 2000 --active 2 $flag)
    echo "stencil h3r1 $lib $m $i: $(echo "$out" | sed -n 's/.*: \([0-9.]*\) s, result identical.*/\1/p')" | tee -a $R/summary.txt
  done
done; done
[ "${APPS:-1}" = 1 ] || exit 0
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --env-b LD_LIBRARY_PATH=$NEW --reps 3 \
  --launch "$C run 2 2 --" --apps sor,cg,mg,barnes,is,lu --json $R/apps_h2r2.json | tee $R/apps_h2r2.txt
[ -z "$IS_SOR" ] && exit 0  # IS and SOR again, more runs
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --env-b LD_LIBRARY_PATH=$NEW --reps $IS_SOR \
  --launch "$C run 2 2 --" --apps is,sor --json $R/apps_is_sor_h2r2.json | tee $R/apps_is_sor_h2r2.txt
