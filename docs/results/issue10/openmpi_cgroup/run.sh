#!/bin/bash
# Open MPI 5.0.11 at 2 emulated hosts x 2 ranks on this machine's cores:
# each run with the cluster's own cpu cgroup (scripts/cluster.sh's default,
# LOOM_CLUSTER_CGROUP=1) and without it (=0: host 0's ranks in the caller's
# session, host i's in its daemon's, scheduled by the kernel's autogroups),
# alternated, N rounds (default 6), each run cut at 60 s.  Per run: the
# program's wall time, and where the program times itself, that time.
#   SPLASH-3 RADIX (test size) under LOOM_TRANSPORT=rma
#   SPLASH-3 OCEAN (test size) under LOOM_PROTOCOL=erc-update
#   tests/mr_locks under LOOM_TRANSPORT=rma
#   tests/killed_rank kill   (the job must end within 10 s)
#   tests/hang.sh collective (the job must end within 20 s)
# Root; from the repository root, with .venv-ompi and build-ompi/ built and
# ../shared/splash3 beside the repository:
#   bash docs/results/issue10/openmpi_cgroup/run.sh > docs/results/issue10/openmpi_cgroup/run.out 2>&1
set -u
N=${N:-6}
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
export MPIEXEC=$root/.venv-ompi/bin/mpiexec OMPI_MCA_osc=^ucx
python3 scripts/splash3.py build --out "$tmp/s3" --loomcc "$root/build-ompi/bin/loomcc" >"$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log"; exit 1; }
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 2 >/dev/null || exit 1
cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null | sed 's/^/sched_autogroup_enabled: /'
one() {  # name cgroup env... -- command...
  local name=$1 cg=$2 envs=() s t rc own
  shift 2
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  s=$(date +%s%N)
  env "${envs[@]}" LOOM_CLUSTER_CGROUP=$cg timeout 60 "$@" >"$tmp/out" 2>&1
  rc=$?
  t=$(( ($(date +%s%N) - s) / 1000000 ))
  own=$(awk '/Total time with initialization/ {printf " own %d ms", $NF / 1000}' "$tmp/out")
  echo "$name cgroup=$cg rc=$rc wall $t ms$own"
  { pkill -9 -f prted; pkill -9 -f prterun; } 2>/dev/null
  sleep 0.2
}
run="scripts/cluster.sh run 2 2 --"
for ((i = 0; i < N; i++)); do
  for cg in 0 1; do
    one radix_rma $cg LOOM_TRANSPORT=rma LOOM_MEM_SIZE=1G -- $run "$tmp/s3/loom/kernels/radix/RADIX" -p4 -n262144 -t
    one ocean_erc_update $cg LOOM_PROTOCOL=erc-update LOOM_MEM_SIZE=1G -- \
      $run "$tmp/s3/loom/apps/ocean/contiguous_partitions/OCEAN" -p4 -n130 -o
    one mr_locks_rma $cg LOOM_TRANSPORT=rma LOOM_MEM_SIZE=64M -- $run "$root/build-ompi/tests/mr_locks"
    one killed_rank_kill $cg LOOM_MEM_SIZE=64M -- $run "$root/build-ompi/tests/killed_rank" kill
    one hang_collective $cg LOOM_MEM_SIZE=64M -- tests/hang.sh collective $run "$root/build-ompi/tests/hang"
  done
done
