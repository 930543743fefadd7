#!/bin/bash
# The final form (mapped peers only; loom_unlock dooms no fetch): old (ae4d107) against new, thread_faults
# on one host, the hybrid suite as 2 x 8 on one host and 2 x 2 x 4 on 2 pinned emulated hosts.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w9; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-500}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all9.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log9.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
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
tf() {  # tf LABEL LAUNCH...: thread_faults T=1,2,4,8, old and new alternated, 2 rounds
  for rep in 1 2; do for T in 1 2 4 8; do for b in /tmp/oldtree/build build; do
    echo -n "$1 $b T=$T: "; timeout 40 "${@:2}" $b/bench/thread_faults $T 512 20 | grep "rank 1" | sed 's/.*rounds: //'
  done; done; done
}
stamp "thread_faults, one host, 2 ranks"
tf h1r2 $M -n 2 2>&1 | tee "$O/tf_h1r2.txt"
stamp "ab 2x8 one host"
timeout 100 python3 apps/ab_builds.py --a /tmp/oldtree/build --b build --apps is,barnes,cg,mg --np 2 --threads 8 --reps 5 --json "$O/ab_2x8.json" 2>&1 | tail -7
stamp "cluster up 2"
$C up 2; echo "up rc=$?"
stamp "ab 2 hosts x 2 x 4"
L=$(($(left) - 15)); [ $L -gt 150 ] && L=150
[ $L -gt 40 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/ab_builds.py --a /tmp/oldtree/build --b build --apps is,barnes,cg,mg --threads 4 --reps 5 --launch "$C run 2 2 --" --json "$O/ab_h2r2t4.json" 2>&1 | tail -7
stamp done
