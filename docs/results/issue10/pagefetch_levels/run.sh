#!/bin/bash
# The page fetch per fault against a raw MPI_Get, and the levels a raw get
# sits on (levels.c), across 2 emulated hosts x 1 rank:
#   sudo docs/results/issue10/pagefetch_levels/run.sh        (N=3 rounds)
# Each round: levels.c with its first window created, then allocated
# (levels.txt), and loom_bench pagefetch (pagefetch_<round>.json).  Then
# one round of both with the hosts' routes set to `quickack 1`, which
# turns off TCP's delayed acknowledgements (quickack.txt,
# pagefetch_quickack.json); the routes are put back.
set -u
cd "$(dirname "$0")/../../../.."
ROOT=$PWD
N=${N:-3}
OUT=${OUT:-$ROOT/docs/results/issue10/pagefetch_levels}
export MPIEXEC=${MPIEXEC:-$ROOT/.venv/bin/mpiexec}
MPICC=${MPICC:-$ROOT/.venv/bin/mpicc}
LEVELS=$(mktemp -d)/levels
"$MPICC" -O2 -I"$ROOT/include" -o "$LEVELS" "$OUT/levels.c" -L"$ROOT/build" -lloom -Wl,-rpath,"$ROOT/build" || exit 1
bash scripts/cluster.sh down >/dev/null 2>&1
bash scripts/cluster.sh up 2 >/dev/null || exit 1
trap 'bash scripts/cluster.sh down >/dev/null 2>&1' EXIT
run() { timeout 300 bash scripts/cluster.sh run 2 1 -- "$@"; }
routes() {  # [quickack 1]: host i's route to the others, with that option or none
  local i
  for i in 0 1; do
    ip -n "loomc-h$i" route change 198.18.0.0/24 dev eth0 proto kernel scope link src "198.18.0.$((i + 1))" "$@"
  done
}
: > "$OUT/levels.txt"
for r in $(seq 1 "$N"); do
  for kind in create allocate; do run "$LEVELS" "$kind" >> "$OUT/levels.txt"; done
  run "$ROOT/build/bench/loom_bench" pagefetch --max-reps 11 --json "$OUT/pagefetch_$r.json" > /dev/null
done
routes quickack 1
: > "$OUT/quickack.txt"
for kind in create allocate; do run "$LEVELS" "$kind" >> "$OUT/quickack.txt"; done
run "$ROOT/build/bench/loom_bench" pagefetch --max-reps 11 --json "$OUT/pagefetch_quickack.json" > /dev/null
routes
python3 - "$OUT" <<'PY' > "$OUT/table.txt"
import glob, json, os, sys
out = sys.argv[1]
def row(res, name, unit=None):
    for x in res:
        if x["name"] == name and (unit is None or x.get("params", {}).get("unit_pages") == unit):
            return x
print("file  trap  get(first window)  get(2nd window)  get(beside Loom)  fetch  fetch(beside)  "
      "fetch/(trap+get first)  /(trap+get 2nd)  beside: median (min-max)")
for f in sorted(glob.glob(os.path.join(out, "pagefetch_*.json"))):
    res = json.load(open(f))["results"]
    t = row(res, "raw_fault_trap_plus_mprotect")["median"]
    g1 = row(res, "raw_mpi_get_4k")["median"]
    g2 = row(res, "raw_mpi_get_4k_created_window")["median"]
    gb = row(res, "raw_mpi_get_4k_beside_loom")["median"]
    pf = row(res, "pagefetch", 1)
    pb = row(res, "pagefetch_beside_get", 1)
    e = pb["extra"]
    print(f"{os.path.basename(f)}  {t:.1f}  {g1:.1f}  {g2:.1f}  {gb:.1f}  {pf['median']:.1f}  {pb['median']:.1f}  "
          f"{pf['median'] / (t + g1):.2f}  {pf['median'] / (t + g2):.2f}  "
          f"{e['ratio_to_trap_plus_get']:.2f} ({e['ratio_min']:.2f}-{e['ratio_max']:.2f})")
PY
cat "$OUT/table.txt"
