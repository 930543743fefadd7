#!/bin/bash
# The page push at a subset's barrier (tried, not kept: ARCHITECTURE.md,
# "Tried and not kept: pushes at a subset's barrier") against the previous
# build's libloom (OLD, a directory with libloom.so*), alternated, same
# binaries.  The runs of BENCHMARKS.md, "Pushes at a subset's barrier":
#   git checkout 40056ff && ninja -C build && cp -a build/libloom.so* /tmp/old40056ff/
#   git checkout 83c3721 && ninja -C build    (the push; e21ee00: gets at the wait)
#   sudo OLD=/tmp/old40056ff docs/results/issue10/subset_push/run.sh
# What it runs: Jacobi 512^2 by pair barriers and, for reference, by barriers of
# every rank (bench/stencil_pairs, SWEEPS sweeps) at 3 hosts x 1 with 2 and
# 3 ranks sweeping, at 2 hosts x 2, and on one host x 3 with and without
# LOOM_LOCAL_MAP=0.  Run as root; results.txt (one line a run: "config
# lib mode seconds prefetched read") and summary.txt (medians) land here,
# or in $R.
set -e
cd "$(dirname "$0")/../../../.."
R=${R:-docs/results/issue10/subset_push}
OLD=${OLD:?OLD: the previous build library directory}
SWEEPS=${SWEEPS:-1000}
ROUNDS=${ROUNDS:-5}
export MPIEXEC=$PWD/.venv/bin/mpiexec
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
B=$PWD/build/bench/stencil_pairs
: > $R/results.txt
stencil() {  # label, active ranks, launcher...
  local label=$1 active=$2
  shift 2
  for i in $(seq 1 $ROUNDS); do
    for lib in old new; do
      for m in pairs full; do
        flag=""
        [ $m = full ] && flag=--full
        if [ $lib = old ]; then out=$(LD_LIBRARY_PATH=$OLD "$@" $B --n 512 --sweeps $SWEEPS --active $active $flag)
        else out=$("$@" $B --n 512 --sweeps $SWEEPS --active $active $flag); fi
        echo "$label $lib $m $(echo "$out" | sed -n 's/.*: \([0-9.]*\) s, result identical; \([0-9]*\) pages prefetched, \([0-9]*\) read/\1 \2 \3/p')" |
          tee -a $R/results.txt
      done
    done
  done
}
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 3 >/dev/null
stencil h3r1_a2 2 scripts/cluster.sh run 3 1 --
stencil h3r1_a3 3 scripts/cluster.sh run 3 1 --
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 2 >/dev/null
stencil h2r2_a4 4 scripts/cluster.sh run 2 2 --
scripts/cluster.sh down >/dev/null 2>&1 || true
LOOM_HOST_SHARE=0 LOOM_LOCAL_MAP=0 stencil h1r3_nomap 3 $MPIEXEC -n 3
LOOM_HOST_SHARE=0 stencil h1r3 3 $MPIEXEC -n 3
python3 - $R/results.txt > $R/summary.txt <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 6]
print("| configuration | mode | old s (median) | new s (median) | new / old | pages prefetched old / new (read) |")
print("|---|---|---|---|---|---|")
for cfg in dict.fromkeys(r[0] for r in rows):
    for m in ("pairs", "full"):
        got = {lib: [r for r in rows if r[0] == cfg and r[1] == lib and r[2] == m] for lib in ("old", "new")}
        if not got["old"] or not got["new"]:
            continue
        med = {lib: st.median(float(r[3]) for r in got[lib]) for lib in got}
        pf = {lib: got[lib][-1] for lib in got}
        print(f"| {cfg} | {m} | {med['old']:.4f} | {med['new']:.4f} | {med['new'] / med['old']:.2f} | "
              f"{pf['old'][4]} / {pf['new'][4]} ({pf['new'][5]}) |")
PY
cat $R/summary.txt
