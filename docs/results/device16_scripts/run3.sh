#!/bin/bash
# Issue #10 on 16 cores: the emulated cluster where the hosts do not share cores.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w3; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-500}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all3.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log3.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work 2>/dev/null; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
export LD_LIBRARY_PATH=$R/.venv/lib:$R/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
command -v ip tc nsenter unshare taskset; ip -V
M=$R/.venv/bin/mpiexec; B=build/bench/loom_bench; C=scripts/cluster.sh
lb() {  # lb TAG TIMEOUT [ENV=..] launcher... -- cmd
  local tag=$1 t=$2; shift 2
  [ "$(left)" -gt 30 ] || { echo "skip $tag"; return; }
  [ $t -gt $(($(left) - 10)) ] && t=$(($(left) - 10))
  stamp "$tag"
  timeout $t env "$@" --max-reps 11 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1; echo "rc=$?"
  grep -E "^[a-z_]+ +ranks|ratio|speed|mpi" "$O/$tag.txt" | head -20
}
stamp "cluster up 4"
$C up 4; echo "up rc=$?"
lb h4r1_barrier_cpus4 90 LOOM_CLUSTER_CPUS=4 $C run 4 1 -- $B barrier
lb h2r1_barrier_cpus8 60 LOOM_CLUSTER_CPUS=8 $C run 2 1 -- $B barrier
lb h1r2_barrier 30 X=1 $M -n 2 $B barrier
lb h2r1_jacobi_cpus8 90 LOOM_CLUSTER_CPUS=8 $C run 2 1 -- $B jacobi
lb h2r1_pagefetch_cpus8 60 LOOM_CLUSTER_CPUS=8 $C run 2 1 -- $B pagefetch
lb h2r1_lock_cpus8 60 LOOM_CLUSTER_CPUS=8 $C run 2 1 -- $B lock
stamp "suite, 2 hosts x 1 (8 cores each) against one host x 2"
L=$(($(left) - 70)); [ $L -gt 200 ] && L=200
[ $L -gt 40 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/run_suite.py --apps sor,lu,linpack,ep,cg,mg --ranks 2 --hosts 2 --reps 1 --timeout 60 \
  --json "$O/suite_h2r1_cpus8.json" >"$O/suite_h2r1_cpus8.txt" 2>&1; tail -9 "$O/suite_h2r1_cpus8.txt"
lb h2r1_barrier_dirty_cpus8 60 LOOM_CLUSTER_CPUS=8 $C run 2 1 -- $B barrier_dirty
$C down
stamp done
