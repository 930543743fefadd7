#!/bin/bash
# One device call (16 cores).  Issue #10: LOOM_POLL (the protocol thread keeps polling when idle where its rank
# has spare cores) against LOOM_POLL=0 (naps of up to 500 us, the behaviour before it), same build, runs
# alternated, 2 emulated hosts x 1 rank pinned to 8 cores each: the micro-benchmarks, then the applications
# (ab_builds --env-a/--env-b), then the suite 2 hosts x 1 against one host x 2 with the default (auto).
# Issue #14: 2 ranks x 8 threads before host locks (8363e95, as /tmp/old/build) against this build (run18.sh's
# part that ran out of time).
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w19; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-340}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all19.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log19.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
mkdir -p /tmp/old; [ -e /tmp/old/build ] || ln -s "$R/.devold/build" /tmp/old/build
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
export MPIEXEC=$R/.venv/bin/mpiexec
C=scripts/cluster.sh; B=build/bench/loom_bench
nproc; git log -1 --format=%h 2>/dev/null
stamp "cluster up 2"; $C up 2; echo "up rc=$?"
LOOM_POLL=auto LOOM_PRINT_CONFIG=1 LOOM_CLUSTER_CPUS=8 timeout 20 $C run 2 1 -- $B barrier --max-reps 3 2>&1 | grep -E "^loom:"
for r in 1 2; do for p in 0 auto; do
  for cmd in halo pagefetch lock jacobi; do
    tag=h2r1_${cmd}_poll${p}_$r; stamp "$tag"
    LOOM_POLL=$p LOOM_CLUSTER_CPUS=8 timeout 40 $C run 2 1 -- $B $cmd --max-reps 11 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1
    grep -E "^(halo_round|pagefetch |lock_uncontended|lock_contended|jacobi_loom .*ranks=2|jacobi_mpi)|ratio|speedup_over_1" "$O/$tag.txt" | cut -c1-110
  done
done; done
stamp "ab 2 hosts x 1: LOOM_POLL=0 against auto"
L=$(($(left) - 160)); [ $L -gt 100 ] && L=100
[ $L -gt 30 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/ab_builds.py --a build --b build --env-a LOOM_POLL=0 --env-b LOOM_POLL=auto \
  --apps sor,cg,mg,lu,linpack,ep,is --reps 4 --launch "$C run 2 1 --" --json "$O/ab_h2r1_poll.json" 2>&1 | tail -9
stamp "ab 2x8: 8363e95 vs this build"
L=$(($(left) - 100)); [ $L -gt 60 ] && L=60
[ $L -gt 20 ] && timeout $L python3 apps/ab_builds.py --a /tmp/old/build --b build --apps barnes,is,fft3d,cg --np 2 --threads 8 --reps 3 \
  --json "$O/ab_2x8.json" 2>&1 | tail -6
stamp "suite, 2 hosts x 1 against one host x 2"
L=$(($(left) - 8))
[ $L -gt 30 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/run_suite.py --apps cg,mg,lu,linpack,ep,sor --ranks 2 --hosts 2 --reps 3 --timeout 60 \
  --json "$O/suite_h2r1.json" >"$O/suite_h2r1.txt" 2>&1; tail -9 "$O/suite_h2r1.txt"
$C down
stamp done
