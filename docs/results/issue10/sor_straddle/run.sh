#!/bin/bash
# SOR across 2 emulated hosts x 1, a core each: the paper size (n 1026, whose
# block boundary falls 16 bytes into a page, so that rank 1 writes a page
# homed on rank 0 every sweep) against n 1024 (rows of 2 whole pages: no page
# is written by both ranks), alternated, 3 rounds; rank 1's diffs and its
# barrier and diff time from LOOM_STATS.  Root, from the repository root:
#   sudo bash docs/results/issue10/sor_straddle/run.sh > docs/results/issue10/sor_straddle/run.out
export MPIEXEC=${MPIEXEC:-$PWD/.venv/bin/mpiexec}
scripts/cluster.sh up 2 >/dev/null
for i in 1 2 3; do for n in 1026 1024; do
  out=$(LOOM_STATS=1 LOOM_CLUSTER_CPUS=1 scripts/cluster.sh run 2 1 -- "$PWD/build/apps/sor_loom" --n $n 2>&1)
  t=$(echo "$out" | grep '^RESULT' | python3 -c "import sys,json; d=json.loads(sys.stdin.read().split('RESULT ',1)[1]); print('time', d['time'], 'valid', d['valid'])")
  d1=$(echo "$out" | grep 'loom\[1\] stats' | grep -o 'diffs [0-9]* ([0-9]* B)')
  t1=$(echo "$out" | grep 'loom\[1\] time' | grep -o 'barrier [0-9.]*\|diff [0-9.]*' | tr '\n' ' ')
  echo "n=$n $t rank1: $d1 $t1"
done; done
