#!/bin/bash
# A split-phase barrier of every rank by MPI_Iallgather of the interval
# heads against the signals and the loaded heads (docs/BENCHMARKS.md,
# "Group barriers' signals"): the previous build's libloom (OLD, a
# directory with libloom.so*) against this build's, the same loom_bench,
# alternated by compare_builds, at 2 hosts x 1 and 2 x 2 (SHAPES), and one
# host x 2 with LOOM_LOCAL_MAP=0 (the MPI path; with peers mapped no code
# of the change runs).  Run as root from anywhere:
#   OLD=/tmp/oldG ROUNDS=3 SHAPES="2x1 2x2 4x1" run.sh
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue10/split_ibarrier
OLD=${OLD:?OLD: the previous build library directory}
ROUNDS=${ROUNDS:-3}
SHAPES=${SHAPES:-2x1 2x2}
export MPIEXEC=$PWD/.venv/bin/mpiexec
A=$(mktemp)
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$OLD" "$PWD/build/bench/loom_bench" > $A
chmod +x $A
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true; rm -f $A' EXIT
cmp() { python3 bench/compare_builds.py --a $A --b $PWD/build/bench/loom_bench --rounds $ROUNDS "$@" barrier; }
for shape in $SHAPES; do
  h=${shape%x*} r=${shape#*x}
  scripts/cluster.sh down >/dev/null 2>&1 || true
  scripts/cluster.sh up $h
  cmp --launch "scripts/cluster.sh run $h $r --" --json $R/compare_h${h}r$r.json > $R/compare_h${h}r$r.txt
done
scripts/cluster.sh down >/dev/null 2>&1 || true
cmp --np 2 --mpiexec $MPIEXEC --env LOOM_LOCAL_MAP=0 --json $R/compare_h1r2_nomap.json > $R/compare_h1r2_nomap.txt
