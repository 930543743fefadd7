#!/bin/bash
# One device call (16 cores), at a60a221.  Issue #10: Jacobi, halo and barrier across 2 emulated hosts x 1 rank
# pinned to 8 cores each, with the barrier's push (default) and LOOM_PREFETCH=gets in the same build; the suite
# 2 hosts x 1 against one host x 2 (the <= 1.3 target); the suite across the 2 hosts before the push (208145d, as
# /tmp/old2/build) against it.  Issue #14: 2 ranks x 8 threads before host locks (8363e95, as /tmp/old/build)
# against them, and the suite as 16 x 1, 2 x 8 and the threads build on 16.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w18; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-430}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all18.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log18.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
mkdir -p /tmp/old /tmp/old2; [ -e /tmp/old/build ] || ln -s "$R/.devold/build" /tmp/old/build; [ -e /tmp/old2/build ] || ln -s "$R/.devold2/build" /tmp/old2/build
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
export MPIEXEC=$R/.venv/bin/mpiexec
C=scripts/cluster.sh; B=build/bench/loom_bench
nproc; command -v ip tc bridge nsenter taskset python3
for b in build /tmp/old/build /tmp/old2/build; do ldd $b/apps/cg_loom | grep -E "loom|not found"; done
stamp "cluster up 2"; $C up 2; echo "up rc=$?"
for pf in 1 gets 1 gets; do
  tag=h2r1_jacobi_pf$pf; [ -e "$O/$tag.txt" ] && tag=${tag}_2; stamp "$tag"
  LOOM_PREFETCH=$pf LOOM_CLUSTER_CPUS=8 timeout 40 $C run 2 1 -- $B jacobi --max-reps 11 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1
  grep -E "^jacobi|speed|ratio" "$O/$tag.txt" | cut -c1-150
done
for pf in 1 gets 1 gets; do
  for cmd in halo barrier; do
    tag=h2r1_${cmd}_pf$pf; [ -e "$O/$tag.txt" ] && tag=${tag}_2; stamp "$tag"
    LOOM_PREFETCH=$pf LOOM_CLUSTER_CPUS=8 timeout 30 $C run 2 1 -- $B $cmd --max-reps 11 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1
    grep -E "^(halo|barrier)|ratio" "$O/$tag.txt" | cut -c1-150
  done
done
stamp "suite, 2 hosts x 1 against one host x 2"
L=$(($(left) - 250)); [ $L -gt 120 ] && L=120
[ $L -gt 40 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/run_suite.py --apps cg,mg,sor,lu --ranks 2 --hosts 2 --reps 5 --timeout 60 \
  --json "$O/suite_h2r1_reps5.json" >"$O/suite_h2r1_reps5.txt" 2>&1; tail -8 "$O/suite_h2r1_reps5.txt"
stamp "ab 2 hosts x 1: 208145d vs a60a221"
L=$(($(left) - 180)); [ $L -gt 80 ] && L=80
[ $L -gt 30 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/ab_builds.py --a /tmp/old2/build --b build --apps sor,cg,mg,lu --reps 3 \
  --launch "$C run 2 1 --" --json "$O/ab_h2r1_push.json" 2>&1 | tail -6
$C down
stamp "ab 2x8: 8363e95 vs a60a221"
L=$(($(left) - 110)); [ $L -gt 70 ] && L=70
[ $L -gt 20 ] && timeout $L python3 apps/ab_builds.py --a /tmp/old/build --b build --apps barnes,is,fft3d,cg,sor --np 2 --threads 8 --reps 5 \
  --json "$O/ab_2x8.json" 2>&1 | tail -7
stamp "suite 16 x 1, 2 x 8, threads"
L=$(($(left) - 8))
[ $L -gt 30 ] && timeout $L python3 apps/run_suite.py --ranks 16 --threads 8 --reps 1 --timeout 60 --json "$O/suite16_2x8.json" >"$O/suite16_2x8.txt" 2>&1; tail -16 "$O/suite16_2x8.txt"
stamp done
