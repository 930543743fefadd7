#!/bin/bash
# Programs across 2 emulated hosts x 1 rank (a core each) with the hosts'
# routes as made (TCP's delayed acknowledgements on) and with `quickack 1`,
# alternated, N rounds: hand-written MPI MG, and Loom's MG, CG and SOR.
#   sudo N=8 docs/results/issue10/pagefetch_levels/apps_quickack.sh
# Every run's line in apps_quickack_runs.txt, medians in apps_quickack.txt.
set -u
cd "$(dirname "$0")/../../../.."
ROOT=$PWD
N=${N:-8}
OUT=${OUT:-$ROOT/docs/results/issue10/pagefetch_levels}
export MPIEXEC=${MPIEXEC:-$ROOT/.venv/bin/mpiexec}
B=$ROOT/build/apps
runs=$OUT/apps_quickack_runs.txt
: > "$runs"
bash scripts/cluster.sh down >/dev/null 2>&1
bash scripts/cluster.sh up 2 >/dev/null || exit 1
trap 'bash scripts/cluster.sh down >/dev/null 2>&1' EXIT
routes() {  # [quickack 1]
  local i
  for i in 0 1; do
    ip -n "loomc-h$i" route change 198.18.0.0/24 dev eth0 proto kernel scope link src "198.18.0.$((i + 1))" "$@"
  done
}
one() {  # setting prog: one line "setting prog time valid"
  local set=$1 prog=$2 out line
  out=$(LOOM_CLUSTER_CPUS=1 timeout 120 bash scripts/cluster.sh run 2 1 -- "$B/$prog" 2>&1)
  line=$(echo "$out" | grep '^RESULT') || { echo "$set $prog failed: $out" >&2; return 1; }
  python3 -c '
import json, sys
r = json.loads(sys.argv[3][7:])
print(sys.argv[1], sys.argv[2], r["time"], r["valid"])' "$set" "$prog" "$line" | tee -a "$runs"
}
round() {  # setting
  if [ "$1" = quickack ]; then routes quickack 1; else routes; fi
  for p in mg_mpi mg_loom cg_loom sor_loom; do one "$1" "$p"; done
}
for i in $(seq 1 "$N"); do
  if [ $((i % 2)) = 1 ]; then round delayed; round quickack; else round quickack; round delayed; fi
done
routes
python3 - "$runs" <<'PY' | tee "$OUT/apps_quickack.txt"
import statistics as st, sys
by = {}
for l in open(sys.argv[1]):
    s, p, t, v = l.split()
    by.setdefault((p, s), []).append((float(t), v == "True"))
print("| program | delayed acks: median (range) s | quickack 1: median (range) s | quickack / delayed | every run valid |")
print("|---|---|---|---|---|")
for p in ("mg_mpi", "mg_loom", "cg_loom", "sor_loom"):
    d = [t for t, _ in by.get((p, "delayed"), [])]
    q = [t for t, _ in by.get((p, "quickack"), [])]
    if not d or not q: continue
    ok = all(v for s in ("delayed", "quickack") for _, v in by[(p, s)])
    print(f"| {p} | {st.median(d):.4f} ({min(d):.4f}-{max(d):.4f}) | {st.median(q):.4f} ({min(q):.4f}-{max(q):.4f}) | "
          f"{st.median(q) / st.median(d):.2f} | {ok} |")
for s in ("delayed", "quickack"):
    m = st.median(t for t, _ in by[("mg_loom", s)]) / st.median(t for t, _ in by[("mg_mpi", s)])
    print(f"Loom / MPI MG, {s}: {m:.2f}")
PY
