#!/bin/bash
# Wait loops that nap on hosts whose cores are all taken (src/spin.hpp,
# IdlePace) against the previous build's libloom (OLD, a directory with
# libloom.so*), alternated, same binaries: the barrier micro-benchmark at
# 2 hosts x 2, 4 hosts x 1 and one host x 4 (LOOM_LOCAL_MAP=0); Jacobi by
# pair barriers and by full barriers (bench/stencil_pairs, 3 ranks, 2
# sweeping) at 3 hosts x 1 and on one host; the applications at 4 ranks
# on one host and at 2 hosts x 2.  Run as root; the files land here
# (yield1ms_nap100us/: the same with naps after 1 ms, of up to 100 us).
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue10/idle_naps
OLD=${OLD:?OLD: the previous build library directory}
export MPIEXEC=$PWD/.venv/bin/mpiexec
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
[ "${SKIP_BARRIER:-0}" = 1 ] || OLD=$OLD R=$R SHAPES="2x2 4x1" NOMAP_NP=4 docs/results/issue10/barrier_ab.sh
B=$PWD/build/bench/stencil_pairs
: > $R/stencil.txt
stencil() {  # label, launcher...
  local label=$1
  shift
  for i in 1 2 3; do
    for lib in old new; do
      for m in pairs full; do
        flag=""
        [ $m = full ] && flag=--full
        if [ $lib = old ]; then out=$(LD_LIBRARY_PATH=$OLD "$@" $B --n 512 --sweeps 2000 --active 2 $flag)
        else out=$("$@" $B --n 512 --sweeps 2000 --active 2 $flag); fi
        echo "$label $lib $m $(echo "$out" | sed -n 's/.*: \([0-9.]*\) s, result identical.*/\1/p')" | tee -a $R/stencil.txt
      done
    done
  done
}
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 3 >/dev/null
stencil h3r1 scripts/cluster.sh run 3 1 --
scripts/cluster.sh down >/dev/null 2>&1 || true
LOOM_HOST_SHARE=0 stencil h1r3 $MPIEXEC -n 3
AB="python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --reps 3"
$AB --np 4 --apps sor,lu,cg,mg,is,barnes --json $R/apps_h1r4.json > $R/apps_h1r4.txt
scripts/cluster.sh up 2 >/dev/null
$AB --launch "scripts/cluster.sh run 2 2 --" --apps sor,cg,barnes --json $R/apps_h2r2.json > $R/apps_h2r2.txt
