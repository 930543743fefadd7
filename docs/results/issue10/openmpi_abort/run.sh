#!/bin/bash
# How Open MPI 5.0.11's launcher ends a job on the emulated cluster (2 hosts
# x 2 ranks) after MPI_Abort and after a rank is killed.  Root; from the
# repository root, with .venv-ompi (LOOM_MPI=openmpi scripts/setup.sh) and
# build-ompi/ built:
#   bash docs/results/issue10/openmpi_abort/run.sh > docs/results/issue10/openmpi_abort/run.out 2>&1
# 1. abort_race.c (plain MPI): all 4 ranks call MPI_Abort at once, or only
#    rank 0, or only rank 3; N runs each (default 12), each cut at 30 s.
# 2. tests/killed_rank (Loom) killed by SIGKILL at 2 x 1: which rank the
#    launcher names, with Loom's abort delay (its default now) and without
#    (OMPI_MCA_opal_abort_delay=0, the user's setting, which Loom keeps).
# 3. tests/hang lock (Loom, LOOM_HANG_TIMEOUT=2) at 2 x 2: how long the job
#    takes to end, and how many ranks said they aborted it.
set -u
N=${N:-12}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true; pkill -9 -f prted; pkill -9 -f prterun; rm -rf "$tmp"' EXIT
export MPIEXEC=$root/.venv-ompi/bin/mpiexec OMPI_MCA_osc=^ucx LOOM_MEM_SIZE=64M
.venv-ompi/bin/mpicc -O2 "$here/abort_race.c" -o "$tmp/abort_race" || exit 1
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 2 >/dev/null || exit 1
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
cleanup() { pkill -9 -f prted; pkill -9 -f prterun; pkill -9 -f "$1"; sleep 0.2; } 2>/dev/null

echo "== 1. abort_race, 2 hosts x 2 ranks: exit status:milliseconds per run (124: cut at 30 s)"
for who in all 0 3; do
  line="" late=0
  for ((i = 0; i < N; i++)); do
    s=$(date +%s%N)
    ABORTERS=$who timeout 30 scripts/cluster.sh run 2 2 -- "$tmp/abort_race" >"$tmp/out" 2>&1
    rc=$? t=$(ms "$s")
    line="$line $rc:$t"
    [ "$t" -gt 20000 ] && late=$((late + 1))
    cleanup abort_race
  done
  echo "aborters=$who:$line  (past 20 s: $late of $N)"
done

echo "== 2. killed_rank kill, 2 hosts x 1 rank: the rank the launcher names"
for delay in default 0; do
  named=0 survivor=0
  for ((i = 0; i < N; i++)); do
    if [ "$delay" = default ]; then
      sh tests/killed_rank.sh kill "$root/scripts/cluster.sh" run 2 1 -- "$root/build-ompi/tests/killed_rank" >"$tmp/out" 2>&1
    else
      OMPI_MCA_opal_abort_delay=0 sh tests/killed_rank.sh kill "$root/scripts/cluster.sh" run 2 1 -- "$root/build-ompi/tests/killed_rank" >"$tmp/out" 2>&1
    fi
    grep -aq "killed_rank.sh: kill: ok" "$tmp/out" && named=$((named + 1))
    grep -aq "due to process rank 0" "$tmp/out" && survivor=$((survivor + 1))
    cleanup tests/killed_rank
  done
  echo "abort delay $delay: the dead rank named in $named of $N; the survivor (rank 0) named in $survivor of $N"
  grep -a "killed_rank.sh: kill: exit status\|prterun\|process rank" "$tmp/out" | sed 's/^/  last run: /'
done

echo "== 3. hang lock, 2 hosts x 2 ranks: exit status:milliseconds:ranks that said they aborted"
line="" late=0
for ((i = 0; i < N; i++)); do
  s=$(date +%s%N)
  LOOM_HANG_TIMEOUT=2 timeout 40 scripts/cluster.sh run 2 2 -- "$root/build-ompi/tests/hang" lock >"$tmp/out" 2>&1
  rc=$? t=$(ms "$s")
  line="$line $rc:$t:$(grep -ac 'loom: hang: the job is aborted' "$tmp/out")"
  [ "$t" -gt 20000 ] && late=$((late + 1))
  cleanup tests/hang
done
echo "hang lock:$line  (past 20 s: $late of $N)"
