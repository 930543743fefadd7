#!/bin/sh
# What loom_init and a quarter-memory block cost a rank, this build against
# the library before (96e2ba1's libloom.so.0 copied to OLDLIB, default
# /tmp/oldlib; the same init_cost binary), alternated, twice each:
#   one host (2 ranks; as shipped, and the protocol's path LOOM_HOST_SHARE=0),
#   2 emulated hosts x 1 (auto, and rma: smaller sizes, the old rma took
#   ~7.5 us a page to allocate).
# Run from the repository root with scripts/cluster.sh up 2 done and MPIEXEC set.
R=docs/results/init_cost_lazy
OLD="env LD_LIBRARY_PATH=${OLDLIB:-/tmp/oldlib}"
B=$PWD/build/bench/init_cost
for i in 1 2; do
  for v in old new; do
    pre=""; [ $v = old ] && pre="$OLD"
    $pre $MPIEXEC -n 2 $B 1G 16G 64G 256G > $R/np2_${v}_$i.jsonl
    LOOM_HOST_SHARE=0 $pre $MPIEXEC -n 2 $B 1G 16G 64G 256G > $R/np2_noshare_${v}_$i.jsonl
    scripts/cluster.sh run 2 1 -- $pre $B 1G 16G 64G 256G > $R/h2r1_auto_${v}_$i.jsonl
    LOOM_TRANSPORT=rma scripts/cluster.sh run 2 1 -- $pre $B 1G 16G > $R/h2r1_rma_${v}_$i.jsonl
  done
done
