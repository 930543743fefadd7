#!/bin/bash
# A split-phase barrier of every rank by MPI_Iallgather of the interval
# heads against the signals and the loaded heads (docs/BENCHMARKS.md,
# "Group barriers' signals"): the previous build's libloom against this
# build's at 2 hosts x 1 and 2 x 2 (SHAPES), and one host x 2 with
# LOOM_LOCAL_MAP=0 (the MPI path; with peers mapped no code of the change
# runs).  Run as root from anywhere:
#   OLD=/tmp/oldG ROUNDS=3 SHAPES="2x1 2x2 4x1" run.sh
d=$(cd "$(dirname "$0")" && pwd)
R=${d#$(cd "$d/../../../.." && pwd)/} SHAPES=${SHAPES:-2x1 2x2} NOMAP_NP=2 exec "$d/../barrier_ab.sh"
