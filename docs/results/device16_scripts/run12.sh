#!/bin/bash
# Second call: SPLASH-3 across 2 hosts (the first call's launcher path was relative), and the A/B with 7 reps.
# Issue #10 on 16 cores after d0dd260 (locks whose home does the queue's work): the lock, old (369b144)
# against new, 2 hosts x 1 pinned 8 cores each; barrier, page fetch, Jacobi; the suite and Barnes-Hut/IS
# A/B across 2 hosts; SPLASH-3 on one host and across 2 hosts (#13).
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w12; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-520}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all12.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log12.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
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
stamp "splash3 2 hosts"
LOOM_CLUSTER_CPUS=8 timeout 150 python3 scripts/splash3.py bench --out build/splash3 --ranks 2 --programs fft,lu,radix,cholesky,ocean,water,barnes --launch "$R/scripts/cluster.sh run 2 1 --" --json "$O/splash3_h2.json" 2>&1 | tail -9
stamp "ab 2 hosts x 1, 7 reps: is,lu,cg,mg,sor old vs new"
L=$(($(left) - 10)); [ $L -gt 200 ] && L=200
LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/ab_builds.py --a /tmp/oldtree/build --b build --apps is,lu,cg,mg,barnes --reps 7 \
  --launch "$R/scripts/cluster.sh run 2 1 --" --json "$O/ab_h2r1_7.json" 2>&1 | tail -8
$C down
stamp done
