#!/bin/bash
# Subset barriers that hand on their members' knowledge (docs/BENCHMARKS.md,
# "Group barriers' signals"): the previous build's libloom against this
# build's at 2 hosts x 2 and 4 x 1 (SHAPES: subsets of 2 and 3 exist from 3
# ranks on), and one host x 4 with LOOM_LOCAL_MAP=0 (the MPI path; with
# peers mapped no code of the change runs; NOMAP=0 leaves it out).  Run as
# root from anywhere:
#   OLD=/tmp/oldS ROUNDS=3 SHAPES="2x2 4x1" run.sh
d=$(cd "$(dirname "$0")" && pwd)
np=4
[ "${NOMAP:-1}" = 0 ] && np=0
R=${d#$(cd "$d/../../../.." && pwd)/} SHAPES=${SHAPES:-2x2 4x1} NOMAP_NP=$np exec "$d/../barrier_ab.sh"
