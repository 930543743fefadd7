#!/bin/bash
# loom_init's time with the watch on MPI_Init_thread (LOOM_INIT_TIMEOUT=auto)
# and without it (0), alternated, 6 rounds: one host x 2 ranks, then 2
# emulated hosts x 1 (root).  From the repository root:
#   sudo bash docs/results/issue10/init_watch/run.sh > docs/results/issue10/init_watch/run.out
set -e
d=docs/results/issue10/init_watch
build/bin/loomcc -O2 -o /tmp/loom_init_time $d/init_time.c
export MPIEXEC=$PWD/.venv/bin/mpiexec LOOM_MEM_SIZE=64M
for i in 1 2 3 4 5 6; do for t in 0 auto; do
  echo "one-host-x2 LOOM_INIT_TIMEOUT=$t $($MPIEXEC -n 2 env LOOM_INIT_TIMEOUT=$t /tmp/loom_init_time)"; done; done
scripts/cluster.sh up 2 >/dev/null
for i in 1 2 3 4 5 6; do for t in 0 auto; do
  echo "2-hosts-x1 LOOM_INIT_TIMEOUT=$t $(LOOM_INIT_TIMEOUT=$t scripts/cluster.sh run 2 1 -- /tmp/loom_init_time)"; done; done
