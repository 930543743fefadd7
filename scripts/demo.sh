#!/usr/bin/env bash
# Set up, build, and run the main job: a 2-D Jacobi solver (2048 x 2048
# doubles, 50 sweeps) written the plain shared-memory way, on 2 processes
# under Loom.  It prints the sequential time, the Loom time, the speed-up,
# whether the result is bit-identical to the sequential one, and Loom's
# per-rank statistics.
set -euo pipefail
cd "$(dirname "$0")/.."
# Open MPI's osc/ucx prints a harmless error when UCX has no transport.
[ "${LOOM_MPI:-mpich}" = openmpi ] && export OMPI_MCA_osc=${OMPI_MCA_osc:-^ucx}
scripts/setup.sh
venv=${LOOM_VENV:-$PWD/.venv}
flags=()
[ "${LOOM_MPI:-mpich}" = openmpi ] && [ "$(id -u)" = 0 ] && flags=(--allow-run-as-root --oversubscribe)
LOOM_STATS=1 "$venv/bin/mpiexec" "${flags[@]}" -n 2 "${BUILD_DIR:-build}/bench/loom_bench" jacobi --min-reps 3 --max-reps 5 "$@"
