#!/bin/bash
# What LOOM_TRACE_HOMES's home-page faults leave in a trace's computation
# (docs/MODEL.md, "The barriers' pushes across hosts, and the releases'
# mprotects"): Jacobi whose rank 0 set both grids up, 100 sweeps, traced
# with and without LOOM_TRACE_HOMES, on one host and across 2 emulated
# hosts; each rank's replayed computation in the timed part (--window 1:-1,
# the trap outside the handler taken out of it) and its faults.  Run as
# root from anywhere; writes homes_compute.txt beside this script.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/pushes
P=docs/results/issue17/paired_15f5e22
export MPIEXEC=$PWD/.venv/bin/mpiexec
T=$(mktemp -d)
trap 'rm -rf $T; scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
J="$PWD/build/apps/sor_loom --jacobi --root-init --iters 100"
run_one() { env LOOM_HOST_SHARE=0 LOOM_MIGRATE=0 LOOM_TRACE=$T/$1 "${@:2}" $MPIEXEC -n 2 $J > /dev/null; }
run_two() { scripts/cluster.sh run 2 1 -- env LOOM_MIGRATE=0 LOOM_TRACE=$T/$1 "${@:2}" $J > /dev/null; }
run_one one_plain
run_one one_homes LOOM_TRACE_HOMES=1
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 2
run_two two_plain
run_two two_homes LOOM_TRACE_HOMES=1
for t in one_plain one_homes two_plain two_homes; do
  tools/loom predict $T/$t --window 1:-1 --json --platform $P/platform_one_host.json \
      --platform $P/platform_h2_unlimited.json 2>/dev/null |
    python3 -c "
import json, sys
sys.path.insert(0, 'tools')
import loom_trace
d = json.load(sys.stdin)
n = {r.rank: sum(1 for x in r.recs if x[2] == 1) for r in loom_trace.load('$T/$t')}
print('$t', 'window', d['window'], ' '.join(f\"rank {r['rank']}: computation {r['window']['compute_s'] * 1e3:.1f} ms, \"
      f\"{n[r['rank']]} faults;\" for r in d['per_rank']))"
done | tee $R/homes_compute.txt
