#!/bin/bash
# Fetches without the rank lock, only from mapped peers: old (ae4d107) against new across 2 pinned
# emulated hosts, as 2 x 1 x 8 (no mapped peer: the code path of old) and 2 x 2 x 4 (a mapped peer per host).
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w8; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-500}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all8.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log8.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
mkdir -p /tmp/oldtree; [ -e /tmp/oldtree/build ] || ln -s "$R/.devold/build" /tmp/oldtree/build
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
M=$R/.venv/bin/mpiexec; C=scripts/cluster.sh
ldd build/bench/thread_faults | grep -E "loom|mpi"; ldd /tmp/oldtree/build/bench/thread_faults | grep -E "loom|not found"
tf() {  # tf LABEL LAUNCH...: thread_faults T=1,2,4,8, old and new alternated, 2 rounds
  for rep in 1 2; do for T in 1 2 4 8; do for b in /tmp/oldtree/build build; do
    echo -n "$1 $b T=$T: "; timeout 40 "${@:2}" $b/bench/thread_faults $T 512 20 | grep "rank 1" | sed 's/.*rounds: //'
  done; done; done
}
stamp "cluster up 2"
$C up 2; echo "up rc=$?"
stamp "ab 2 hosts x 1 x 8"
LOOM_CLUSTER_CPUS=8 timeout 120 python3 apps/ab_builds.py --a /tmp/oldtree/build --b build --apps is,barnes --threads 8 --reps 6 --launch "$C run 2 1 --" --json "$O/ab_h2r1t8.json" 2>&1 | tail -5
stamp "ab 2 hosts x 2 x 4"
L=$(($(left) - 15)); [ $L -gt 150 ] && L=150
[ $L -gt 40 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/ab_builds.py --a /tmp/oldtree/build --b build --apps is,barnes,cg,mg --threads 4 --reps 3 --launch "$C run 2 2 --" --json "$O/ab_h2r2t4.json" 2>&1 | tail -7
stamp done
