#!/bin/sh
# Open MPI 5 (build-ompi, .venv-ompi): loom_bench lock and pingpong across 2
# emulated hosts x 1, a core each, with LOOM_MPI_SERVES=0 and 1 in turn,
# twice; the outputs beside this script (ompi_{off,on}_{1,2}.txt).
cd "$(dirname "$0")/../../../.." || exit 1
export MPIEXEC=$PWD/.venv-ompi/bin/mpiexec LOOM_CLUSTER_CPUS=1
out=docs/results/issue10/mpi_serves
for i in 1 2; do
  for x in 0 1; do
    n=$([ $x = 1 ] && echo on || echo off)
    { LOOM_MPI_SERVES=$x scripts/cluster.sh run 2 1 -- "$PWD/build-ompi/bench/loom_bench" lock
      LOOM_MPI_SERVES=$x scripts/cluster.sh run 2 1 -- "$PWD/build-ompi/bench/loom_bench" pingpong --max-bytes 65536; } \
      > $out/ompi_${n}_$i.txt 2>&1
  done
done
