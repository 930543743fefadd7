#!/bin/bash
# Writer sets learnt with the homes (writers_learnt): the library before (OLD, a directory with libloom.so.0, here
# f066361's) against this build's, alternated, same binaries.  Run as root on the 2-core machine; the files land here.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue10/writers_learnt
. docs/results/issue10/ab_setup.sh
pinned_hosts
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" --apps lu --reps 10 \
  --json $R/lu_h2r1_cpus1_10.json > $R/lu_h2r1_cpus1_10.txt
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" \
  --apps sor,linpack,cg,mg,is,barnes,fft,fft3d,ep --reps 5 --json $R/apps_h2r1_cpus1.json > $R/apps_h2r1_cpus1.txt
python3 bench/compare_builds.py --a /tmp/oldbench.sh --b build/bench/loom_bench --rounds 3 --launch "$L" \
  --json $R/bench_h2r1.json pagefetch barrier_dirty > $R/bench_h2r1.txt
unset LOOM_CLUSTER_CPUS
scripts/cluster.sh down >/dev/null
LOOM_LOCAL_MAP=0 python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --np 2 \
  --apps lu,linpack,cg,mg,is,barnes --reps 5 --json $R/apps_np2_lm0.json > $R/apps_np2_lm0.txt
# pagefetch alone, 5 rounds (the 3-round set's pagefetch_stride stride=1 read 1.31, ranges overlapping):
#   python3 bench/compare_builds.py ... --rounds 5 --launch "$L" --json $R/pagefetch_h2r1_5rounds.json pagefetch
# Then (second script part): LU, IS and CG again, and LU's barriers and first fetches from traces, alternated.
pinned_hosts
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" --apps lu,is,cg --reps 10 \
  --json $R/lu_is_cg_h2r1_cpus1_10.json > $R/lu_is_cg_h2r1_cpus1_10.txt
for i in 1 2 3; do
  for v in old new; do
    rm -rf /tmp/lu_$v$i
    if [ $v = old ]; then E="LD_LIBRARY_PATH=$OLD"; else E="X=1"; fi
    env $E LOOM_TRACE=/tmp/lu_$v$i scripts/cluster.sh run 2 1 -- $PWD/build/apps/lu_loom > $R/lu_trace_$v$i.out
    python3 tools/loom trace summary /tmp/lu_$v$i > $R/lu_anatomy_$v$i.txt
    python3 $R/first_fetch.py /tmp/lu_$v$i > $R/lu_first_fetch_$v$i.txt
  done
done
# LU once more, 20 runs:
python3 apps/ab_builds.py --a build --b build --env-a LD_LIBRARY_PATH=$OLD --launch "$L" --apps lu --reps 20 \
  --json $R/lu_h2r1_cpus1_20.json > $R/lu_h2r1_cpus1_20.txt
# barrier_dirty again, 6 rounds (three sets, _6rounds, _6rounds_b, _6rounds_c), and each library against itself:
python3 bench/compare_builds.py --a /tmp/oldbench.sh --b build/bench/loom_bench --rounds 6 --launch "$L" \
  --json $R/barrier_dirty_h2r1_6rounds.json barrier_dirty > $R/barrier_dirty_h2r1_6rounds.txt
for i in 1 2; do
  python3 bench/compare_builds.py --a /tmp/oldbench.sh --b /tmp/oldbench.sh --rounds 6 --launch "$L" \
    --json $R/barrier_dirty_h2r1_same_$i.json barrier_dirty > $R/barrier_dirty_h2r1_same_$i.txt
done
python3 bench/compare_builds.py --a build/bench/loom_bench --b build/bench/loom_bench --rounds 6 --launch "$L" \
  --json $R/barrier_dirty_h2r1_same_new.json barrier_dirty > $R/barrier_dirty_h2r1_same_new.txt
