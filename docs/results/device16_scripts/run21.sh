#!/bin/bash
# One device call (16 cores).  Issue #10: the barrier's agreement by rows and pushes ahead (a home sends the pages
# its asker asks for in a cycle as it arrives at the barrier) against the library before them (479e83d's libloom,
# carried as .devold/, the same programs), alternated, 2 emulated hosts x 1 rank pinned to 8 cores each: the
# applications (ab_builds), the halo round and the empty barrier (loom_bench halo, barrier), then the suite 2 hosts
# x 1 against one host x 2 (the <= 1.3 target) and Jacobi with the new library.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w21; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-330}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all21.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log21.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
export MPIEXEC=$R/.venv/bin/mpiexec
C=scripts/cluster.sh; B=build/bench/loom_bench; OLD="LD_LIBRARY_PATH=$R/.devold"
nproc; git log -1 --format=%h 2>/dev/null; ls -la .devold
stamp "cluster up 2"; $C up 2; echo "up rc=$?"
stamp "stats mg (new)"
LOOM_STATS=1 LOOM_CLUSTER_CPUS=8 timeout 20 $C run 2 1 -- build/apps/mg_loom 2>&1 | grep -E "prefetched|RESULT" | cut -c1-300
stamp "ab 2 hosts x 1: old lib (A) against new (B)"
LOOM_CLUSTER_CPUS=8 timeout 110 python3 apps/ab_builds.py --a build --b build --env-a "$OLD" --apps mg,cg,sor,lu --reps 4 \
  --launch "$C run 2 1 --" --json "$O/ab_h2r1_ahead.json" 2>&1 | tail -7
for rep in 1 2; do for lib in old new; do for cmd in halo barrier; do
  [ "$(left)" -gt 140 ] || break; tag=h2r1_${cmd}_${lib}_$rep; stamp "$tag"
  if [ $lib = old ]; then e="$OLD"; else e="X=1"; fi
  env $e LOOM_CLUSTER_CPUS=8 timeout 30 $C run 2 1 -- $B $cmd --max-reps 11 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1
  grep -E "^(halo_round|raw_mpi|barrier_mpi |barrier_loom )" "$O/$tag.txt" | cut -c1-120
done; done; done
stamp "suite, 2 hosts x 1 against one host x 2 (new)"
L=$(($(left) - 40))
[ $L -gt 30 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/run_suite.py --apps mg,sor,cg,lu --ranks 2 --hosts 2 --reps 3 --timeout 40 \
  --json "$O/suite_h2r1.json" >"$O/suite_h2r1.txt" 2>&1; tail -7 "$O/suite_h2r1.txt" | cut -c1-140
stamp "jacobi (new)"
[ "$(left)" -gt 25 ] && LOOM_CLUSTER_CPUS=8 timeout $(($(left) - 3)) $C run 2 1 -- $B jacobi --max-reps 11 --json "$O/h2r1_jacobi_new.json" >"$O/h2r1_jacobi_new.txt" 2>&1
grep -E "^jacobi|ratio_to_mpi_halo =|speedup_over_1_rank =" "$O/h2r1_jacobi_new.txt" | cut -c1-110
$C down
stamp done
