#!/bin/bash
# Issue #10 on 16 cores after d0dd260 (locks whose home does the queue's work): the lock, old (369b144)
# against new, 2 hosts x 1 pinned 8 cores each; barrier, page fetch, Jacobi; the suite and Barnes-Hut/IS
# A/B across 2 hosts; SPLASH-3 on one host and across 2 hosts (#13).
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w11; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-520}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all11.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log11.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
mkdir -p /tmp/oldtree; [ -e /tmp/oldtree/build ] || ln -s "$R/.devold/build" /tmp/oldtree/build
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
M=$R/.venv/bin/mpiexec; C=scripts/cluster.sh; B=build/bench/loom_bench; OB=/tmp/oldtree/build/bench/loom_bench
nproc; ldd $B | grep -E "loom|not found"; ldd $OB | grep -E "loom|not found"
lb() {  # lb TAG TIMEOUT BENCH CMD: 2 hosts x 1, 8 cores each
  [ "$(left)" -gt 40 ] || { echo "skip $1"; return; }
  stamp "$1"
  LOOM_CLUSTER_CPUS=8 timeout $2 $C run 2 1 -- $3 $4 --max-reps 11 --json "$O/$1.json" >"$O/$1.txt" 2>&1; echo "rc=$?"
  grep -E "^[a-z_]+ +|ratio" "$O/$1.txt" | grep -v "^result" | head -12
}
stamp "cluster up 2"; $C up 2; echo "up rc=$?"
for rep in 1 2; do
  lb h2r1_lock_old_$rep 45 $OB lock
  lb h2r1_lock_new_$rep 45 $B lock
done
lb h2r1_barrier_1 40 $B barrier
lb h2r1_barrier_2 40 $B barrier
lb h2r1_pagefetch 40 $B pagefetch
lb h2r1_jacobi 60 $B jacobi
stamp "ab 2 hosts x 1: barnes,is,lu,cg,mg old vs new"
L=$(($(left) - 200)); [ $L -gt 120 ] && L=120
[ $L -gt 40 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/ab_builds.py --a /tmp/oldtree/build --b build --apps barnes,is,lu,cg,mg --reps 3 \
  --launch "$C run 2 1 --" --json "$O/ab_h2r1.json" 2>&1 | tail -8
stamp "suite, 2 hosts x 1 against one host x 2"
L=$(($(left) - 110)); [ $L -gt 100 ] && L=100
[ $L -gt 40 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/run_suite.py --apps sor,lu,linpack,ep,cg,mg,barnes,is --ranks 2 --hosts 2 --reps 1 --timeout 60 \
  --json "$O/suite_h2r1.json" >"$O/suite_h2r1.txt" 2>&1; tail -12 "$O/suite_h2r1.txt"
stamp "splash3 one host"
L=$(($(left) - 60)); [ $L -gt 60 ] && L=60
[ $L -gt 20 ] && timeout $L python3 scripts/splash3.py bench --out build/splash3 --ranks 2 --programs fft,lu,radix,cholesky,ocean,water,barnes --json "$O/splash3_h1.json" 2>&1 | tail -9
stamp "splash3 2 hosts"
L=$(($(left) - 5))
[ $L -gt 20 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 scripts/splash3.py bench --out build/splash3 --ranks 2 --programs fft,lu,radix,cholesky,ocean,water,barnes --launch "$C run 2 1 --" --json "$O/splash3_h2.json" 2>&1 | tail -9
$C down
stamp done
