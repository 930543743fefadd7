#!/bin/sh
# loom place end to end (tools/loom_place.py, LOOM_TRACE_HOMES, LOOM_PLACEMENT):
# SOR at 2 ranks with its grid homed page by page in turn (LOOM_HOME=cyclic,
# no migration), so half of each rank's rows live on the other rank; traced
# with the homes' accesses, `loom place` must give each half of the grid to
# the rank that works on it; a rerun with the file must validate and fault
# far less; and a trace without LOOM_TRACE_HOMES is refused.
#   place_check.sh PYTHON DIR MPIEXEC [FLAGS...] -- SOR_LOOM
py=$1 dir=$2
shift 2
tool=$(dirname "$0")/../tools/loom
rm -rf "$dir" && mkdir -p "$dir"
launch=""
while [ "$1" != "--" ]; do launch="$launch $1"; shift; done
shift
sor=$1
# (LOOM_HOST_SHARE=0: the placement is measured by the protocol's fetches, which one host otherwise skips)
export LOOM_HOME=cyclic LOOM_MIGRATE=0 LOOM_MEM_SIZE=64M LOOM_LOG_ERRORS=0 LOOM_HOST_SHARE=0
args="--n 130 --iters 60"
LOOM_TRACE=$dir/plain $launch -n 2 $sor $args > /dev/null || { echo "place_check: the traced run failed"; exit 1; }
"$py" "$tool" place "$dir/plain" --out "$dir/no.txt" 2> "$dir/err.txt"
[ $? -eq 2 ] && grep -q "LOOM_TRACE_HOMES=1" "$dir/err.txt" || { echo "place_check: a trace without the homes was not refused"; exit 1; }
LOOM_TRACE=$dir/homes LOOM_TRACE_HOMES=1 $launch -n 2 $sor $args > "$dir/traced.txt" || { echo "place_check: the traced run failed"; exit 1; }
"$py" "$tool" place "$dir/homes" --out "$dir/placement.txt" || exit 1
"$py" - "$(dirname "$0")/../tools" "$dir/placement.txt" <<'PY' || exit 1
import sys
sys.path.insert(0, sys.argv[1])
import loom_place
pages, ranges = loom_place.read_file(sys.argv[2])[0]
homes = {p: rank for first, count, rank in ranges for p in range(first, first + count)}
# The grid's rows are split in two halves: each page of the first goes to
# rank 0, of the second to rank 1 (the page holding the boundary may go
# either way).
wrong = [p for p, h in homes.items() if abs(p - pages / 2) > 2 and h != (0 if p < pages / 2 else 1)]
ok = len(homes) >= pages * 0.9 and not wrong
print(f"place_check: block 0: {len(homes)} of {pages} pages placed, {len(wrong)} on the wrong half")
sys.exit(0 if ok else 1)
PY
faults() { sed -n 's/.*"faults": \([0-9]*\).*/\1/p' "$1" | head -1; }
$launch -n 2 $sor $args > "$dir/default.txt" || { echo "place_check: the default run failed"; exit 1; }
LOOM_PLACEMENT=$dir/placement.txt $launch -n 2 $sor $args > "$dir/placed.txt" || { echo "place_check: the placed run failed"; exit 1; }
grep -q '"valid": true' "$dir/placed.txt" || { echo "place_check: the placed run did not validate"; exit 1; }
a=$(faults "$dir/default.txt") b=$(faults "$dir/placed.txt")
echo "place_check: faults $a by default, $b with the placement"
[ -n "$a" ] && [ -n "$b" ] && [ "$b" -lt $((a / 4)) ] || { echo "place_check: the placement did not cut the faults"; exit 1; }
rm -rf "$dir"
echo "place_check: ok"
