#!/bin/bash
# One device call (16 cores), issue #10 at ebe73df: is a fetch from a home that computes (pagefetch_busy_home),
# and a lock taken from the other rank's keep (lock_alternating), the protocol thread's nap or the core?  On 2
# shared cores both are both.  The experiment library (.devexp/, ebe73df with docs/results/issue10/device16_nap/
# nap.patch: LOOM_X_NAPMAX_US caps the protocol thread's naps, LOOM_X_NAPHOLD_MS keeps that cap only that long
# after the last request served, 500 us after) runs the same programs through LD_LIBRARY_PATH.  2 emulated hosts
# x 1 rank pinned to 8 cores each.  Then the suite's CG and MG, 2 hosts against one host (the <= 1.3 target).
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w28; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-400}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all28.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log28.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
. "$R/docs/results/device16_scripts/device_env.sh"
C=scripts/cluster.sh; B=build/bench/loom_bench; EXP="LD_LIBRARY_PATH=$R/.devexp"
nproc; grep -m1 "model name" /proc/cpuinfo; lscpu | grep -E "^(Thread|Core|Socket)"; command -v ip tc nsenter unshare python3
stamp "cluster up 2"; $C up 2; echo "up rc=$?"
export LOOM_CLUSTER_CPUS=8
# name|settings: 500 us naps (the build's), 50 us, 20 us, and 50 us for 20 ms after a request
CFGS=("cap500|X=1" "cap50|LOOM_X_NAPMAX_US=50" "cap20|LOOM_X_NAPMAX_US=20" "hold50|LOOM_X_NAPMAX_US=50 LOOM_X_NAPHOLD_MS=20")
for rep in 1 2; do for cfg in "${CFGS[@]}"; do for cmd in pagefetch lock; do
  [ "$(left)" -gt 300 ] || break 3
  tag=${cmd}_${cfg%%|*}_$rep
  env $EXP ${cfg#*|} timeout 40 $C run 2 1 -- $B $cmd --max-reps 11 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1
  echo "$tag rc=$?: $(grep -E "^(pagefetch |pagefetch_busy|lock_alternating|lock_turns_bare|lock_uncontended)" "$O/$tag.txt" | sed -E 's/ +/ /g' | cut -d' ' -f1-5 | tr '\n' ';')"
done; done; stamp "micro rep $rep"; done
stamp "ab: 500 us naps (A) against 50 us for 20 ms after a request (B)"
L=$(($(left) - 130)); [ $L -gt 40 ] && timeout $L python3 apps/ab_builds.py --a build --b build --env-a "$EXP" \
  --env-b "$EXP LOOM_X_NAPMAX_US=50 LOOM_X_NAPHOLD_MS=20" --apps is,barnes,cg,mg,ep,linpack --reps 3 \
  --launch "$C run 2 1 --" --json "$O/ab_hold50.json" 2>&1 | tail -9
stamp "suite CG, MG: 2 hosts x 1 against one host x 2 (this build)"
L=$(($(left) - 60)); [ $L -gt 30 ] && timeout $L python3 apps/run_suite.py --apps cg,mg --ranks 2 --hosts 2 --reps 3 --timeout 40 \
  --json "$O/suite_h2r1.json" >"$O/suite_h2r1.txt" 2>&1; tail -6 "$O/suite_h2r1.txt" | cut -c1-150
stamp "ab: 500 us naps against 50 us always (what a short cap costs computing ranks)"
L=$(($(left) - 5)); [ $L -gt 30 ] && timeout $L python3 apps/ab_builds.py --a build --b build --env-a "$EXP" \
  --env-b "$EXP LOOM_X_NAPMAX_US=50" --apps ep,linpack,cg --reps 2 \
  --launch "$C run 2 1 --" --json "$O/ab_cap50.json" 2>&1 | tail -6
$C down; stamp done
