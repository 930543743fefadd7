#!/bin/sh
# The fault path reads the lazily zeroed tables: loom_bench, the library
# before (A, bench_oldlib.sh) against this build (B), alternated.
# Run from the repository root with scripts/cluster.sh up 2 done and MPIEXEC set.
R=docs/results/init_cost_lazy
A=$R/bench_oldlib.sh
B=build/bench/loom_bench
python3 bench/compare_builds.py --a $A --b $B --np 2 --mpiexec $MPIEXEC --rounds 5 --env LOOM_HOST_SHARE=0 \
  --json $R/compare_np2_noshare.json fault pagefetch remote_rw barrier_dirty lock > $R/compare_np2_noshare.txt 2>&1
python3 bench/compare_builds.py --a $A --b $B --np 2 --mpiexec $MPIEXEC --rounds 5 \
  --json $R/compare_np2.json fault remote_rw lock > $R/compare_np2.txt 2>&1
python3 bench/compare_builds.py --a $A --b $B --rounds 3 --launch "scripts/cluster.sh run 2 1 --" \
  --json $R/compare_h2r1.json fault pagefetch remote_rw barrier_dirty > $R/compare_h2r1.txt 2>&1
