#!/usr/bin/env bash
# The across-hosts figures of docs/BENCHMARKS.md ("Across hosts"): loom_bench
# on the emulated cluster (scripts/cluster.sh), each run's JSON and text into
# OUT (default docs/results) as cluster_<shape>_<command>_<setting>.*:
#   h2r1 default   barrier lock pagefetch barrier_dirty jacobi (defaults)
#   h2r1 rma       the same with LOOM_TRANSPORT=rma
#   h2r2 default   the same at 2 hosts x 2 ranks
#   h4r1 default   barrier
#   h2r1 1gbit / 100mbit   the five at links limited by tc tbf
#   h2r1 cpus1     jacobi with each host on a core of its own
# Needs root; takes the cluster down and up (prefix loomf-).  Usage:
#   sudo bench/cluster_figures.sh [OUT] [BUILD]
# SETS="h2r1_default h2r1_rma ..." runs only those of the sets above (named
# shape_setting; the rates' sets are h2r1_1gbit and h2r1_100mbit); with
# MPIEXEC=.venv-ompi/bin/mpiexec and BUILD build-ompi, under Open MPI.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/docs/results}
bench=${2:-$here/build}/bench/loom_bench
cl=$here/scripts/cluster.sh
export LOOM_CLUSTER_PREFIX=loomf-
export MPIEXEC=${MPIEXEC:-$here/.venv/bin/mpiexec}
trap '"$cl" down >/dev/null 2>&1 || true' EXIT
mkdir -p "$out"
five="barrier lock pagefetch barrier_dirty jacobi"
run() {  # run SHAPE_H SHAPE_R NAME_SUFFIX CMD [ENV...]
  local h=$1 r=$2 tag=$3 cmd=$4
  shift 4
  local base=$out/cluster_h${h}r${r}_${cmd}_${tag}
  echo "== h${h}r${r} $cmd $tag" >&2
  env "$@" "$cl" run "$h" "$r" -- "$bench" "$cmd" --json "$base.json" >"$base.txt" 2>&1 ||
    { echo "failed: see $base.txt" >&2; return 1; }
}
sets=${SETS:-h2r1_default h2r1_rma h2r2_default h4r1_default h2r1_cpus1 h2r1_1gbit h2r1_100mbit}
want() { [[ " $sets " == *" $1 "* ]]; }
"$cl" down >/dev/null 2>&1 || true
"$cl" up 4 >/dev/null
if want h2r1_default; then for c in $five; do run 2 1 default "$c"; done; fi
if want h2r1_rma; then for c in $five; do run 2 1 rma "$c" LOOM_TRANSPORT=rma; done; fi
if want h2r2_default; then for c in $five; do run 2 2 default "$c"; done; fi
if want h4r1_default; then run 4 1 default barrier; fi
if want h2r1_cpus1; then run 2 1 cpus1 jacobi LOOM_CLUSTER_CPUS=1; fi
for rate in 1gbit 100mbit; do
  want "h2r1_$rate" || continue
  "$cl" down >/dev/null
  "$cl" up 2 "$rate" >/dev/null
  for c in $five; do run 2 1 "$rate" "$c"; done
done
