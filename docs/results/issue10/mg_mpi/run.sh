#!/bin/bash
# Loom's MG against MG written by hand in MPI (apps/mg/mg_mpi.c, the same
# kernels), one host x 2 ranks and 2 emulated hosts x 1 rank (each host on
# a core of its own), the programs alternated, R rounds; then the table of
# medians (table.txt) and every run (runs.txt).
#   sudo docs/results/issue10/mg_mpi/run.sh            (R=7, RATE= for unlimited links)
#   R=5 RATE=1gbit OUT=... docs/results/issue10/mg_mpi/run.sh
set -u
cd "$(dirname "$0")/../../../.."
ROOT=$PWD
R=${R:-7}
RATE=${RATE:-}
OUT=${OUT:-$ROOT/docs/results/issue10/mg_mpi}
ARGS=${ARGS:-}
export MPIEXEC=${MPIEXEC:-$ROOT/.venv/bin/mpiexec}
B=$ROOT/build/apps
mkdir -p "$OUT"
runs=$OUT/runs${RATE:+_$RATE}.txt
: > "$runs"
bash scripts/cluster.sh down >/dev/null 2>&1
bash scripts/cluster.sh up 2 $RATE > /dev/null || exit 1
trap 'bash scripts/cluster.sh down >/dev/null 2>&1' EXIT
one() {  # shape prog: one line "shape prog time sync_time valid"
  local shape=$1 prog=$2 out
  if [ "$shape" = h1r2 ]; then
    out=$(timeout 120 "$MPIEXEC" -n 2 "$B/$prog" $ARGS 2>&1)
  else
    out=$(LOOM_CLUSTER_CPUS=1 timeout 120 bash scripts/cluster.sh run 2 1 -- "$B/$prog" $ARGS 2>&1)
  fi
  local line
  line=$(echo "$out" | grep '^RESULT') || { echo "$shape $prog failed: $out" >&2; return 1; }
  python3 -c '
import json, sys
r = json.loads(sys.argv[3][7:])
sync = r.get("exchange_time", r.get("barrier_time"))
print(sys.argv[1], sys.argv[2], r["time"], sync, r["valid"])' "$shape" "$prog" "$line" | tee -a "$runs"
}
for i in $(seq 1 "$R"); do
  for shape in h1r2 h2r1; do
    one $shape mg_mpi
    one $shape mg_loom
  done
done
python3 - "$runs" <<'PY' | tee "${runs%.txt}_table.txt"
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
t = {}
for shape, prog, time, sync, valid in rows:
    t.setdefault((shape, prog), []).append((float(time), float(sync), valid == "True"))
def med(k, i=0): return statistics.median(x[i] for x in t[k])
def rng(k): v = [x[0] for x in t[k]]; return f"{min(v):.4f}-{max(v):.4f}"
print("| program | one host x 2, s | 2 hosts x 1, s | 2 hosts / one host | sync or exchange at 2 hosts, s (worker 0) | every run valid |")
print("|---|---|---|---|---|---|")
for prog in ("mg_mpi", "mg_loom"):
    a, b = med(("h1r2", prog)), med(("h2r1", prog))
    ok = all(x[2] for k in t if k[1] == prog for x in t[k])
    print(f"| {prog} | {a:.4f} ({rng(('h1r2', prog))}) | {b:.4f} ({rng(('h2r1', prog))}) | {b / a:.2f} | {med(('h2r1', prog), 1):.4f} | {ok} |")
print(f"Loom / MPI at 2 hosts: {med(('h2r1', 'mg_loom')) / med(('h2r1', 'mg_mpi')):.2f}; on one host: "
      f"{med(('h1r2', 'mg_loom')) / med(('h1r2', 'mg_mpi')):.2f}  (medians of {len(t[('h2r1', 'mg_mpi')])} runs each)")
PY
