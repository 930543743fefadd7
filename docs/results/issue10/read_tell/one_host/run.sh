#!/bin/bash
# One host, the same binaries with the library before (OLD) and with the reads told (NEW), alternated, two
# rounds: loom_bench pagefetch and barrier at 4 ranks on the 2-core machine (every peer mapped: nothing is
# told, the wait loops' naps as before).  The files land here.
set -e
cd "$(dirname "$0")/../../../../.."
R=docs/results/issue10/read_tell/one_host
OLD=${OLD:?OLD: the previous build library directory}
NEW=${NEW:?NEW: this build library directory}
M=$PWD/.venv/bin/mpiexec
for i in 1 2; do for lib in old new; do
  d=$OLD; [ $lib = new ] && d=$NEW
  for cmd in pagefetch barrier; do
    LD_LIBRARY_PATH=$d timeout 300 $M -n 4 build/bench/loom_bench $cmd --max-reps 11 > $R/${cmd}_np4_${lib}_$i.txt 2>&1
  done
  echo "np4 $lib $i: $(grep -hE '^(pagefetch +pages=1024 unit_pages=1 |barrier_loom +ranks=4|barrier_mpi +ranks=4)' $R/*_np4_${lib}_$i.txt | sed -E 's/ +/ /g' | cut -d' ' -f1-5 | tr '\n' ';')" | tee -a $R/summary.txt
done; done
