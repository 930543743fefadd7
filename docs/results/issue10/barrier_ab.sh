#!/bin/bash
# loom_bench barrier, the previous build's libloom (OLD, a directory with
# libloom.so*) against this build's, the same loom_bench, alternated by
# compare_builds, on emulated clusters of SHAPES (hosts x ranks each), then
# on one host with NOMAP_NP ranks and LOOM_LOCAL_MAP=0 (NOMAP_NP=0: not).
# Writes compare_h<H>r<R>.{txt,json} and compare_h1r<N>_nomap.{txt,json}
# into R.  Used by the run.sh beside the results it made; run as root.
set -e
cd "$(dirname "$0")/../../.."
R=${R:?R: the results directory}
OLD=${OLD:?OLD: the previous build library directory}
ROUNDS=${ROUNDS:-3}
SHAPES=${SHAPES:-2x1 2x2}
NOMAP_NP=${NOMAP_NP:-2}
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
[ "$NOMAP_NP" = 0 ] && exit 0
cmp --np $NOMAP_NP --mpiexec $MPIEXEC --env LOOM_LOCAL_MAP=0 --json $R/compare_h1r${NOMAP_NP}_nomap.json \
  > $R/compare_h1r${NOMAP_NP}_nomap.txt
