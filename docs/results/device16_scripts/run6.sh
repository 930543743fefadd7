#!/bin/bash
# Fetches without the rank lock on 16 cores: old (ae4d107) against new (the working tree's build),
# the thread_faults microbenchmark and the hybrid suite, one host and 2 pinned emulated hosts;
# then the threaded stress, litmus and mt_threads at 2 x 8 with the new build.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w6; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-500}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all6.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log6.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
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
stamp "thread_faults, one host, 2 ranks"
tf h1r2 $M -n 2 2>&1 | tee "$O/tf_h1r2.txt"
stamp "cluster up 2"
$C up 2; echo "up rc=$?"
stamp "thread_faults, 2 hosts x 1 rank, 8 cores each, no barrier prefetch"
tf h2r1 env LOOM_CLUSTER_CPUS=8 LOOM_PREFETCH=0 $C run 2 1 -- 2>&1 | tee "$O/tf_h2r1.txt"
stamp "ab 2x8 one host"
timeout 150 python3 apps/ab_builds.py --a /tmp/oldtree/build --b build --apps is,barnes,fft3d,cg,mg,sor --np 2 --threads 8 --reps 3 --json "$O/ab_2x8.json" 2>&1 | tail -9
stamp "ab 2 hosts x 1 x 8"
L=$(($(left) - 60)); [ $L -gt 170 ] && L=170
[ $L -gt 40 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/ab_builds.py --a /tmp/oldtree/build --b build --apps is,barnes,fft3d,cg,mg,sor --threads 8 --reps 3 --launch "$C run 2 1 --" --json "$O/ab_h2r1t8.json" 2>&1 | tail -9
stamp "stress, litmus, mt_threads at 2 x 8 (new build)"
for mode in map mpi; do for proto in hlrc erc-invalidate erc-update; do for prog in mr_stress mr_litmus mt_threads; do
  [ "$(left)" -gt 8 ] || break 3
  lm=1; tr=auto; [ $mode = mpi ] && { lm=0; tr=rma; }
  echo -n "$prog $mode $proto: "
  LOOM_LOCAL_MAP=$lm LOOM_TRANSPORT=$tr LOOM_PROTOCOL=$proto LOOM_MEM_SIZE=256M timeout 30 $M -n 2 build/tests/$prog 8 >"$O/t.txt" 2>&1
  echo "rc=$? $(tail -1 "$O/t.txt")"
done; done; done 2>&1 | tee "$O/mt_2x8.txt"
stamp done
