#!/bin/bash
# Group barriers' signals (Transport::signal) against the replied store before them: this build's
# loom_bench against the same program on the previous commit's libloom (copied to OLDLIB), alternated
# (compare_builds), 3 rounds each, on 2 cores.  Run as root from anywhere; the files land beside this script.
set -e
cd "$(dirname "$0")/../../../.."
D=docs/results/issue10/signal; OLDLIB=${OLDLIB:-/tmp/oldlib74}
export MPIEXEC=$PWD/.venv/bin/mpiexec
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s/build/bench/loom_bench "$@"\n' "$OLDLIB" "$PWD" > /tmp/old_bench.sh
chmod +x /tmp/old_bench.sh
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
C="python3 bench/compare_builds.py --mpiexec $MPIEXEC --a /tmp/old_bench.sh --b build/bench/loom_bench --rounds 3"
scripts/cluster.sh up 4 >/dev/null
$C --launch "scripts/cluster.sh run 4 1 --" --json $D/compare_h4r1.json barrier > $D/compare_h4r1.txt
scripts/cluster.sh down >/dev/null; scripts/cluster.sh up 2 >/dev/null
$C --launch "scripts/cluster.sh run 2 2 --" --json $D/compare_h2r2.json barrier > $D/compare_h2r2.txt
$C --launch "scripts/cluster.sh run 2 1 --" --json $D/compare_h2r1.json barrier > $D/compare_h2r1.txt
$C --np 2 --json $D/compare_np2.json barrier > $D/compare_np2.txt
