#!/bin/bash
# One device call (16 cores), issue #10: the protocol thread's naps capped at 50 us where a rank has a core to
# spare (src/transport/cores.hpp; run28.sh measured the cap as an experiment).  This build against ebe73df's
# libloom (.devold/, the same programs, through LD_LIBRARY_PATH), alternated, on emulated hosts with cores of
# their own: 2 hosts x 1 and 2 x 2 pinned to 8 cores a host, 4 hosts x 1 pinned to 4; the hybrid build at 2 hosts x 1
# rank x 8 threads (its threads leave no core spare: 500-us naps, as before).  Then the suite's CG and MG, 2 hosts
# against one host (the <= 1.3 target).  Written after run28.sh and not yet run (no second machine was lent).
# Carry: docs/results/device16_scripts/prepare_carry.sh ebe73df makes .devvenv, .devbuild and .devold.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w29; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-330}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all29.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log29.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
. "$R/docs/results/device16_scripts/device_env.sh"
C=scripts/cluster.sh; B=build/bench/loom_bench; OLD="LD_LIBRARY_PATH=$R/.devold"
nproc; ls -la .devold build/libloom.so*
stamp "cluster up 4"; $C up 4; echo "up rc=$?"
for shape in "2 1 8" "2 2 8" "4 1 4" "2 1 0"; do set -- $shape
  echo "h$1r$2 cpus=$3: $(LOOM_CLUSTER_CPUS=$3 LOOM_PRINT_CONFIG=1 timeout 20 $C run $1 $2 -- build/apps/ep_loom 2>&1 | grep -o 'progress thread.*')"
done
export LOOM_CLUSTER_CPUS=8
for rep in 1 2; do for v in old new; do for cmd in pagefetch lock; do
  [ "$(left)" -gt 270 ] || break 3
  tag=${cmd}_${v}_$rep; if [ $v = old ]; then e="$OLD"; else e="X=1"; fi
  env $e timeout 40 $C run 2 1 -- $B $cmd --max-reps 11 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1
  echo "$tag rc=$?: $(grep -E "^(pagefetch |pagefetch_busy|lock_alternating|lock_turns_bare)" "$O/$tag.txt" | sed -E 's/ +/ /g' | cut -d' ' -f1-5 | tr '\n' ';')"
done; done; stamp "micro rep $rep"; done
stamp "ab 2 hosts x 1: ebe73df (A) against this build (B)"
L=$(($(left) - 120)); [ $L -gt 40 ] && timeout $L python3 apps/ab_builds.py --a build --b build --env-a "$OLD" \
  --apps is,barnes,cg,mg,ep,linpack,sor,lu --reps 4 --launch "$C run 2 1 --" --json "$O/ab_h2r1.json" 2>&1 | tail -10
stamp "ab 2 hosts x 1 x 8 threads"
L=$(($(left) - 100)); [ $L -gt 30 ] && timeout $L python3 apps/ab_builds.py --a build --b build --env-a "$OLD" \
  --apps cg,mg --reps 3 --threads 8 --launch "$C run 2 1 --" --json "$O/ab_h2r1t8.json" 2>&1 | tail -4
stamp "ab 4 hosts x 1"
L=$(($(left) - 75)); [ $L -gt 30 ] && LOOM_CLUSTER_CPUS=4 timeout $L python3 apps/ab_builds.py --a build --b build --env-a "$OLD" \
  --apps cg,mg,is,ep --reps 3 --launch "$C run 4 1 --" --json "$O/ab_h4r1.json" 2>&1 | tail -6
stamp "ab 2 hosts x 2"
L=$(($(left) - 35)); [ $L -gt 30 ] && timeout $L python3 apps/ab_builds.py --a build --b build --env-a "$OLD" \
  --apps cg,mg,is,ep --reps 3 --launch "$C run 2 2 --" --np 4 --json "$O/ab_h2r2.json" 2>&1 | tail -6
stamp "suite CG, MG: 2 hosts x 1 against one host x 2 (this build)"
L=$(($(left) - 3)); [ $L -gt 15 ] && timeout $L python3 apps/run_suite.py --apps cg,mg --ranks 2 --hosts 2 --reps 3 --timeout 40 \
  --json "$O/suite_h2r1.json" >"$O/suite_h2r1.txt" 2>&1; tail -5 "$O/suite_h2r1.txt" | cut -c1-150
$C down; stamp done
