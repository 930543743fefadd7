#!/bin/bash
# Jacobi by pair barriers with 2 of 3 ranks sweeping (a core each), at 3
# hosts x 1 and on one host with LOOM_LOCAL_MAP=0: 40056ff (no prefetch at
# a subset's barrier), e21ee00 (gets at its wait) and 83c3721 (the push),
# each libloom in /tmp/old40056ff, /tmp/gets, /tmp/push (built as run.sh
# says), alternated, 7 rounds; the binaries of the current build.  Run as
# root; a2_three_builds.txt lands here.
cd "$(dirname "$0")/../../../.."
export MPIEXEC=$PWD/.venv/bin/mpiexec
B=$PWD/build/bench/stencil_pairs
R=docs/results/issue10/subset_push
: > $R/a2_three_builds.txt
scripts/cluster.sh down >/dev/null 2>&1; scripts/cluster.sh up 3 >/dev/null
for i in 1 2 3 4 5 6 7; do for lib in old40056ff gets push; do
  out=$(LD_LIBRARY_PATH=/tmp/$lib timeout 120 scripts/cluster.sh run 3 1 -- $B --n 512 --sweeps 1000 --active 2 | sed -n 's/.*: \([0-9.]*\) s, result identical; \([0-9]*\) pages prefetched, \([0-9]*\) read/\1 \2 \3/p')
  echo "h3r1_a2 $lib pairs $out" | tee -a $R/a2_three_builds.txt
done; done
scripts/cluster.sh down >/dev/null 2>&1
for i in 1 2 3 4 5 6 7; do for lib in old40056ff gets push; do
  out=$(LD_LIBRARY_PATH=/tmp/$lib LOOM_LOCAL_MAP=0 LOOM_HOST_SHARE=0 timeout 120 $MPIEXEC -n 3 $B --n 512 --sweeps 1000 --active 2 | sed -n 's/.*: \([0-9.]*\) s, result identical; \([0-9]*\) pages prefetched, \([0-9]*\) read/\1 \2 \3/p')
  echo "h1r3_nomap_a2 $lib pairs $out" | tee -a $R/a2_three_builds.txt
done; done
