#!/bin/bash
# One device call (16 cores).  Issue #10: the barrier's agreement by rows (this build) against MPI_Iallreduce
# (479e83d's libloom, .devold/), alternated: 4 emulated hosts x 1 rank pinned to 4 cores each, 2 hosts x 2 ranks
# and 2 hosts x 1 pinned to 8 (on 2 shared cores the rows cost 4 ranks more than they gave: 1.1-1.2x).
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w23; mkdir -p "$O" "$OUTD"
stamp() { tar czf "$OUTD/all23.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log23.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
export MPIEXEC=$R/.venv/bin/mpiexec
C=scripts/cluster.sh; B=build/bench/loom_bench; OLD="LD_LIBRARY_PATH=$R/.devold"
stamp "cluster up 4"; $C up 4; echo "up rc=$?"
for rep in 1 2 3; do for v in old new; do for shape in "4 1 4" "2 2 8" "2 1 8"; do
  set -- $shape; tag=h$1r$2_barrier_${v}_$rep
  [ $((SECONDS - T0)) -lt 120 ] || break
  if [ $v = old ]; then e="$OLD"; else e="X=1"; fi
  env $e LOOM_CLUSTER_CPUS=$3 timeout 20 $C run $1 $2 -- $B barrier --max-reps 9 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1
  echo "$tag: $(grep -E "^barrier_(mpi|loom) +ranks=$(($1 * $2))" "$O/$tag.txt" | sed -E 's/ +/ /g' | cut -d' ' -f1,5 | tr '\n' ' ')"
done; done; done
$C down
stamp done
