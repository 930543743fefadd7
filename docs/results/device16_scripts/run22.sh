#!/bin/bash
# One device call (16 cores).  Issue #10: which part of run21's change moved what: the library before it (479e83d,
# .devold/), the agreement by rows alone (this build with LOOM_X_NOAHEAD=1, an experiment switch that turns the
# pushes ahead off), and both (this build), alternated, 2 emulated hosts x 1 rank pinned to 8 cores each.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w22; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-240}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all22.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log22.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
export MPIEXEC=$R/.venv/bin/mpiexec
C=scripts/cluster.sh; B=build/bench/loom_bench; OLD="LD_LIBRARY_PATH=$R/.devold"
stamp "cluster up 2"; $C up 2; echo "up rc=$?"
stamp "ab: rows alone (A) against rows + pushes ahead (B)"
LOOM_CLUSTER_CPUS=8 timeout 80 python3 apps/ab_builds.py --a build --b build --env-a "LOOM_X_NOAHEAD=1" --apps mg,sor,cg --reps 4 \
  --launch "$C run 2 1 --" --json "$O/ab_noahead_ahead.json" 2>&1 | tail -4
stamp "ab: old (A) against rows alone (B)"
LOOM_CLUSTER_CPUS=8 timeout 70 python3 apps/ab_builds.py --a build --b build --env-a "$OLD" --env-b "LOOM_X_NOAHEAD=1" --apps mg,sor,cg --reps 3 \
  --launch "$C run 2 1 --" --json "$O/ab_old_noahead.json" 2>&1 | tail -4
for rep in 1 2; do for v in old rows both; do for cmd in halo barrier; do
  [ "$(left)" -gt 8 ] || break; tag=h2r1_${cmd}_${v}_$rep; stamp "$tag"
  case $v in old) e="$OLD";; rows) e="LOOM_X_NOAHEAD=1";; both) e="X=1";; esac
  env $e LOOM_CLUSTER_CPUS=8 timeout 20 $C run 2 1 -- $B $cmd --max-reps 11 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1
  grep -E "^(halo_round|raw_mpi|barrier_mpi |barrier_loom )" "$O/$tag.txt" | cut -c1-100
done; done; done
$C down
stamp done
