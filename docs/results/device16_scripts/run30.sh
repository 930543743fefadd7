#!/bin/bash
# One device call (16 cores), issue #10: the cross-host micro-benchmark targets where every rank has cores of
# its own (on the 2-core machine three of them miss by what the ranks' sharing of cores costs: page fetch
# 1.38x trap+get against <= 1.3, a subset of 3 at 2 hosts x 2 1.23x MPI_Barrier against <= 1.2, Jacobi 1.35x
# the MPI halo exchange against <= 1.2), then the suite's CG and MG at 2 hosts against one host (<= 1.3), then
# run29's A/B of this build against ebe73df's libloom (.devold/).  Written to replace run29.sh, whose A/B
# comes last here.  Falls back to one host (the suite at 8 ranks against threads) where the machine allows
# no network namespaces, after printing why.
# Carry: docs/results/device16_scripts/prepare_carry.sh ebe73df makes .devvenv, .devbuild and .devold.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w30; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-380}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all30.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log30.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
. "$R/docs/results/device16_scripts/device_env.sh"
CP2=${CP2:-8}; CP4=${CP4:-4}
C=scripts/cluster.sh; B=$R/build/bench/loom_bench; OLD="LD_LIBRARY_PATH=$R/.devold"
nproc; lscpu | grep -E "Model name|Thread|Core|Socket|NUMA node" ; uname -r; python3 --version
stamp "cluster up 4"; $C up 4; up=$?; echo "up rc=$up"; $C status
if [ $up -ne 0 ]; then
  echo "-- why: ip netns add / unshare --net"; ip netns add loomdiag; echo "netns rc=$?"; ip netns del loomdiag
  unshare --net true; echo "unshare rc=$?"
  stamp "fallback: one host, the suite at 8 ranks against threads"
  L=$(($(left) - 5)); timeout $L python3 apps/run_suite.py --apps sor,lu,cg,mg,ep,is,fft,linpack --ranks 8 --reps 2 \
    --timeout 60 --json "$O/suite_r8.json" >"$O/suite_r8.txt" 2>&1; cat "$O/suite_r8.txt" | cut -c1-160
  stamp done; exit 0
fi
for shape in "2 1 $CP2" "2 2 $CP2" "4 1 $CP4"; do set -- $shape
  echo "h$1r$2 cpus=$3: $(LOOM_CLUSTER_CPUS=$3 LOOM_PRINT_CONFIG=1 timeout 20 $C run $1 $2 -- build/apps/ep_loom 2>&1 | grep -o 'progress thread.*')"
done
m() {  # m HOSTS RANKS CPUS CMD TAG: one loom_bench command, its result rows on one line
  local tag=h$1r$2_$4_$5
  LOOM_CLUSTER_CPUS=$3 timeout 60 $C run $1 $2 -- $B $4 --max-reps 21 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1
  echo "$tag rc=$?"; grep -vE "^(#|result)" "$O/$tag.txt" | sed -E 's/ +/ /g' | cut -c1-110
}
for rep in 1 2 3; do
  [ "$(left)" -gt 300 ] || break
  m 2 1 $CP2 pagefetch $rep; m 2 1 $CP2 barrier $rep; m 2 1 $CP2 lock $rep; m 2 1 $CP2 barrier_dirty $rep
  m 2 2 $CP2 barrier $rep; m 4 1 $CP4 barrier $rep
  stamp "micro rep $rep"
done
[ "$(left)" -gt 200 ] && m 2 1 $CP2 jacobi 1; stamp "jacobi"
export LOOM_CLUSTER_CPUS=$CP2
stamp "suite CG, MG: 2 hosts x 1 against one host x 2 (this build)"
L=$(($(left) - 90)); [ $L -gt 20 ] && timeout $L python3 apps/run_suite.py --apps cg,mg,sor,lu --ranks 2 --hosts 2 --reps 3 \
  --timeout 40 --json "$O/suite_h2r1.json" >"$O/suite_h2r1.txt" 2>&1; cut -c1-160 "$O/suite_h2r1.txt" | tail -8
stamp "ab 2 hosts x 1: ebe73df (A) against this build (B)"
L=$(($(left) - 5)); [ $L -gt 30 ] && timeout $L python3 apps/ab_builds.py --a build --b build --env-a "$OLD" \
  --apps cg,mg,is,ep,sor --reps 3 --launch "$C run 2 1 --" --json "$O/ab_h2r1.json" 2>&1 | tail -8
$C down; stamp done
