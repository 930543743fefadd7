#!/bin/sh
# loom_bench of this build with the program's blocking MPI calls left to the
# MPI library (LOOM_MPI_SERVES=0): build A of the comparisons here.
exec env LOOM_MPI_SERVES=0 "$(dirname "$0")/../../../../build/bench/loom_bench" "$@"
