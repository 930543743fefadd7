#!/bin/bash
# tests/killed_rank kill at 2 hosts x 2 ranks under Open MPI 5.0.11, with
# Loom's abort delay (its default) and without (OMPI_MCA_opal_abort_delay=0),
# alternated, N runs each (default 20), each cut at 30 s: how many runs the
# launcher ended late (past 10 s), and how many named the dead rank (3).
# Root; from the repository root, with .venv-ompi and build-ompi/ built:
#   bash docs/results/issue10/openmpi_abort/kill_h2r2.sh > docs/results/issue10/openmpi_abort/kill_h2r2.out 2>&1
set -u
N=${N:-20}
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
export MPIEXEC=$root/.venv-ompi/bin/mpiexec OMPI_MCA_osc=^ucx LOOM_MEM_SIZE=64M
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 2 >/dev/null || exit 1
declare -A late named times
for d in 0 1; do late[$d]=0 named[$d]=0 times[$d]=""; done
for ((i = 0; i < N; i++)); do
  for d in 0 1; do
    s=$(date +%s%N)
    OMPI_MCA_opal_abort_delay=$d timeout 30 scripts/cluster.sh run 2 2 -- "$root/build-ompi/tests/killed_rank" kill >"$tmp/out" 2>&1
    t=$(( ($(date +%s%N) - s) / 1000000 ))
    times[$d]="${times[$d]} $t"
    [ "$t" -gt 10000 ] && late[$d]=$((late[$d] + 1))
    grep -aq "process rank 3 with PID" "$tmp/out" && named[$d]=$((named[$d] + 1))
    { pkill -9 -f prted; pkill -9 -f prterun; pkill -9 -f tests/killed_rank; sleep 0.2; } 2>/dev/null
  done
done
for d in 0 1; do
  echo "OMPI_MCA_opal_abort_delay=$d: past 10 s in ${late[$d]} of $N; the dead rank named in ${named[$d]} of $N; ms:${times[$d]}"
done
