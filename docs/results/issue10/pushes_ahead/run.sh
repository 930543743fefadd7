#!/bin/bash
# MG by hand in MPI against Loom's MG with the library before pushes ahead
# (OLD, a directory holding that libloom.so.0, run through
# LD_LIBRARY_PATH) and with this build's, the three alternated, N rounds,
# 2 emulated hosts x 1 rank, each host on a core of its own; then the
# medians (table.txt) and every run (runs.txt).
#   sudo OLD=/tmp/lib-trust2 N=15 docs/results/issue10/pushes_ahead/run.sh
#   (RATE=1gbit for links limited to 1 Gbit/s; OUT= another directory)
set -u
cd "$(dirname "$0")/../../../.."
ROOT=$PWD
N=${N:-15}
RATE=${RATE:-}
OLD=${OLD:?the directory of the library before the change}
OUT=${OUT:-$ROOT/docs/results/issue10/pushes_ahead}
export MPIEXEC=${MPIEXEC:-$ROOT/.venv/bin/mpiexec}
B=$ROOT/build/apps
mkdir -p "$OUT"
runs=$OUT/runs${RATE:+_$RATE}.txt
: > "$runs"
bash scripts/cluster.sh down >/dev/null 2>&1
bash scripts/cluster.sh up 2 $RATE > /dev/null || exit 1
trap 'bash scripts/cluster.sh down >/dev/null 2>&1' EXIT
one() {  # label prog [env]: one line "label time sync_time valid"
  local label=$1 prog=$2 out line
  shift 2
  out=$(env "$@" LOOM_CLUSTER_CPUS=1 timeout 120 bash scripts/cluster.sh run 2 1 -- "$B/$prog" 2>&1)
  line=$(echo "$out" | grep '^RESULT') || { echo "$label failed: $out" >&2; return 1; }
  python3 -c '
import json, sys
r = json.loads(sys.argv[2][7:])
print(sys.argv[1], r["time"], r.get("exchange_time", r.get("barrier_time")), r["valid"])' "$label" "$line" | tee -a "$runs"
}
for i in $(seq 1 "$N"); do
  one mpi mg_mpi
  if [ $((i % 2)) = 1 ]; then one old mg_loom LD_LIBRARY_PATH=$OLD; one new mg_loom
  else one new mg_loom; one old mg_loom LD_LIBRARY_PATH=$OLD; fi
done
python3 - "$runs" <<'PY' | tee "$OUT/table${RATE:+_$RATE}.txt"
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
by = {}
for lab, t, s, v in rows:
    by.setdefault(lab, []).append((float(t), float(s), v == "True"))
print("| program | runs | time, median (range) s | sync or exchange, median s | every run valid |")
print("|---|---|---|---|---|")
for lab in ("mpi", "old", "new"):
    x = by.get(lab, [])
    if not x: continue
    ts = [a for a, _, _ in x]
    print(f"| {lab} | {len(x)} | {st.median(ts):.4f} ({min(ts):.4f}-{max(ts):.4f}) | {st.median(b for _, b, _ in x):.4f} | {all(c for _, _, c in x)} |")
m = {lab: st.median(a for a, _, _ in by[lab]) for lab in by}
print(f"Loom / MPI across 2 hosts: before {m['old'] / m['mpi']:.2f}, after {m['new'] / m['mpi']:.2f}; after / before {m['new'] / m['old']:.2f}")
PY
