#!/bin/bash
# Subset barriers that hand on their members' knowledge (docs/BENCHMARKS.md,
# "Group barriers' signals"): the previous build's libloom (OLD, a
# directory with libloom.so*) against this build's, the same loom_bench,
# alternated by compare_builds, at 2 hosts x 2 and 4 x 1 (SHAPES: subsets
# of 2 and 3 exist from 3 ranks on), and one host x 4 with
# LOOM_LOCAL_MAP=0 (the MPI path; with peers mapped no code of the change
# runs; NOMAP=0 leaves it out).  Run as root from anywhere:
#   OLD=/tmp/oldS ROUNDS=3 SHAPES="2x2 4x1" run.sh
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue10/subset_know
OLD=${OLD:?OLD: the previous build library directory}
ROUNDS=${ROUNDS:-3}
SHAPES=${SHAPES:-2x2 4x1}
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
[ "${NOMAP:-1}" = 0 ] && exit 0
cmp --np 4 --mpiexec $MPIEXEC --env LOOM_LOCAL_MAP=0 --json $R/compare_h1r4_nomap.json > $R/compare_h1r4_nomap.txt
