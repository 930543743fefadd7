# Sourced by the results scripts that set a previous build's library against this build's (read_nap, read_runs,
# late_acks, check_pages), from the repository root: OLD (a directory with that libloom.so.0) is required,
# /tmp/oldbench.sh runs this build's loom_bench on it, and the emulated cluster comes down on every exit.
OLD=${OLD:?OLD: the previous build library directory}
export MPIEXEC=$PWD/.venv/bin/mpiexec
printf '#!/bin/sh\nexport LD_LIBRARY_PATH=%s\nexec %s "$@"\n' "$OLD" "$PWD/build/bench/loom_bench" > /tmp/oldbench.sh
chmod +x /tmp/oldbench.sh
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
# The launch prefix of 2 emulated hosts × 1 rank, and those hosts brought up each on a core of its own.
L="scripts/cluster.sh run 2 1 --"
pinned_hosts() { scripts/cluster.sh up 2 >/dev/null; export LOOM_CLUSTER_CPUS=1; }
