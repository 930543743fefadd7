#!/bin/bash
# One device call (16 cores), issue #10: why lock_alternating across 2 hosts costs 79-138 us on 16 cores (run30/run29)
# and 36 us on the 2-core machine: the lock benchmark under each placement of the hosts' cores and each transport,
# this build and ebe73df's, twice.  Carry as run30.sh.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w31; mkdir -p "$O" "$OUTD"
exec >"$O/log.txt" 2>&1
. "$R/docs/results/device16_scripts/device_env.sh"
C=scripts/cluster.sh; B=$R/build/bench/loom_bench
$C up 2 >/dev/null 2>&1; $C status | head -1
for rep in 1 2; do
  for v in "cpus8 LOOM_CLUSTER_CPUS=8" "cpus1 LOOM_CLUSTER_CPUS=1" "cpus2 LOOM_CLUSTER_CPUS=2" "free LOOM_CLUSTER_CPUS=0" \
           "rma LOOM_CLUSTER_CPUS=8 LOOM_TRANSPORT=rma" "prog0 LOOM_CLUSTER_CPUS=8 LOOM_PROGRESS=0" \
           "old8 LOOM_CLUSTER_CPUS=8 LD_LIBRARY_PATH=$R/.devold" "old1 LOOM_CLUSTER_CPUS=1 LD_LIBRARY_PATH=$R/.devold"; do
    set -- $v; tag=$1; shift
    [ $((SECONDS - T0)) -lt ${DEADLINE:-200} ] || break 2
    env "$@" timeout 40 $C run 2 1 -- $B lock --max-reps 21 --json "$O/lock_${tag}_$rep.json" >"$O/lock_${tag}_$rep.txt" 2>&1
    echo "$tag $rep rc=$?: $(grep -E "^(raw_mpi_cas|lock_alternating|lock_take_through|lock_take_after|lock_turns)" "$O/lock_${tag}_$rep.txt" | sed -E 's/ +/ /g' | cut -d' ' -f1,3-5 | tr '\n' ';')"
  done
done
$C down; tar czf "$OUTD/all31.tgz" -C "$O" .; cp "$O/log.txt" "$OUTD/log31.txt"; echo "== [$((SECONDS - T0)) s] done"
