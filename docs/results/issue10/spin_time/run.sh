#!/bin/bash
# Wait loops spin by time as well as by count (src/spin.hpp): this build's
# loom_bench and libloom (B) against the same loom_bench on the library of
# the commit before (A, copied to $OLDLIB), micro-benchmarks alternated by
# bench/compare_builds.py, then the applications by apps/ab_builds.py.
# One host (2 ranks, peers mapped), 4 emulated hosts x 1, 2 hosts x 1,
# links unlimited.  Run as root from anywhere; the files land beside it.
set -e
cd "$(dirname "$0")/../../../.."
O=docs/results/issue10/spin_time
OLDLIB=${OLDLIB:-/tmp/lib_mask}
export MPIEXEC=$PWD/.venv/bin/mpiexec
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
A=/tmp/loom_bench_oldlib.sh   # the same loom_bench, the old library
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$OLDLIB" "$PWD/build/bench/loom_bench" > $A
chmod +x $A
CB="python3 bench/compare_builds.py --mpiexec $MPIEXEC --a $A --b $PWD/build/bench/loom_bench"
AB="python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLDLIB"
if [ "${PART:-1}" = 1 ]; then
  $CB --np 2 --rounds 2 --json $O/bench_h1r2.json barrier lock pagefetch jacobi > $O/bench_h1r2.txt
  scripts/cluster.sh up 4 >/dev/null
  $CB --rounds 3 --launch "scripts/cluster.sh run 4 1 --" --json $O/bench_h4r1.json barrier > $O/bench_h4r1.txt
fi
# (Part 2 ran as its own call: the 4-host barrier command takes 3-4 minutes a run.)
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 4 >/dev/null
$CB --rounds 2 --launch "scripts/cluster.sh run 2 1 --" --json $O/bench_h2r1.json barrier lock pagefetch halo > $O/bench_h2r1.txt
$AB --apps sor,cg,mg,is --reps 2 --launch "scripts/cluster.sh run 4 1 --" --json $O/ab_h4r1.json > $O/ab_h4r1.txt
$AB --apps sor,cg,mg,is --reps 3 --launch "scripts/cluster.sh run 2 1 --" --json $O/ab_h2r1.json > $O/ab_h2r1.txt
scripts/cluster.sh down >/dev/null
$AB --apps sor,cg,mg,is --reps 3 --json $O/ab_h1r2.json > $O/ab_h1r2.txt
# Again at 2 hosts x 1, where the first rounds leaned the other way (halo
# 1.15, the programs 1.00-1.09), and the programs at 2 hosts x 2.
scripts/cluster.sh up 2 >/dev/null
$CB --rounds 4 --launch "scripts/cluster.sh run 2 1 --" --json $O/bench_h2r1_halo_again.json halo > $O/bench_h2r1_halo_again.txt
$AB --apps sor,cg,is --reps 5 --launch "scripts/cluster.sh run 2 1 --" --json $O/ab_h2r1_again.json > $O/ab_h2r1_again.txt
$AB --apps sor,cg,mg,is --reps 2 --launch "scripts/cluster.sh run 2 2 --" --json $O/ab_h2r2.json > $O/ab_h2r2.txt
# One host's contended lock again (the 2 rounds above gave 1.13).
$CB --np 2 --rounds 4 --json $O/bench_h1r2_lock_again.json lock > $O/bench_h1r2_lock_again.txt
