#!/usr/bin/env bash
# Set up, build, and run the main job: a 2-D Jacobi solver (2048 x 2048
# doubles, 50 sweeps) written the plain shared-memory way, on 2 processes
# under Loom.  It prints the sequential time, the Loom time, the speed-up,
# whether the result is bit-identical to the sequential one, and Loom's
# statistics (every rank, and the all-ranks summary); before and after, the
# machine it ran on (cores, load average, MPI), so that a loaded machine
# does not read as a slow Loom.
set -euo pipefail
cd "$(dirname "$0")/.."
# Open MPI's osc/ucx prints a harmless error when UCX has no transport.
[ "${LOOM_MPI:-mpich}" = openmpi ] && export OMPI_MCA_osc=${OMPI_MCA_osc:-^ucx}
scripts/setup.sh
venv=${LOOM_VENV:-$PWD/.venv}
flags=()
[ "${LOOM_MPI:-mpich}" = openmpi ] && [ "$(id -u)" = 0 ] && flags=(--allow-run-as-root --oversubscribe)
machine() {  # cores, load average, and before the run a warning when the load leaves less than 2 cores free
  local cores load
  cores=$(nproc)
  read -r load _ < /proc/loadavg
  echo "demo: $1: $cores cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min), MPI: $(cat "$venv/.loom-mpi" 2>/dev/null || echo "the one in $venv") ($venv/bin/mpiexec)"
  if [ "$1" = before ] && awk -v l="$load" -v c="$cores" 'BEGIN { exit !(l > c - 2 + 0.5) }'; then
    echo "demo: warning: the machine is busy (load $load on $cores cores): the 2 ranks share cores with other work, and the speed-up reads low"
  fi
}
machine "before"
status=0
LOOM_STATS=1 "$venv/bin/mpiexec" "${flags[@]}" -n 2 "${BUILD_DIR:-build}/bench/loom_bench" jacobi --min-reps 3 --max-reps 5 "$@" || status=$?
machine "after"
exit $status
