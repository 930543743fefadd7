# Sourced by run.sh and cores_full.sh (with T, the traces' directory, set):
# bench/stencil_pairs and mpiexec, a fresh $T, and 3 emulated hosts up
# until the script exits.
B=$PWD/build/bench/stencil_pairs
export MPIEXEC=$PWD/.venv/bin/mpiexec
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
rm -rf "$T"
mkdir -p "$T"
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 3 >/dev/null
