#!/bin/bash
# One device call (16 cores), issue #10: run31.sh found lock_alternating at 27-31 us with each emulated host on one
# core and 53-142 us with two or more: is it the wake of an idle core?  The lock benchmark with 2 cores a host
# (LOOM_CLUSTER_CPUS=2), as it is, with a nice-19 spinner on each host's cores (the cores never idle), and with
# /dev/cpu_dma_latency held at 0 (the kernel keeps idle cores out of sleep states), alternated, twice; then the
# page fetch from a computing home the same three ways.  Carry as run30.sh.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w32; mkdir -p "$O" "$OUTD"
exec >"$O/log.txt" 2>&1
. "$R/docs/results/device16_scripts/device_env.sh"
C=scripts/cluster.sh; B=$R/build/bench/loom_bench; CP=${CP:-2}
cat /sys/devices/system/cpu/cpuidle/current_driver /sys/devices/system/cpu/cpuidle/current_governor 2>&1 | tr '\n' ' '
ls /sys/devices/system/cpu/cpu0/cpuidle/ 2>&1 | tr '\n' ' '; echo
$C up 2 >/dev/null 2>&1; $C status | head -1
hogs() { for c in $(seq 0 $((2 * CP - 1))); do taskset -c $c nice -n 19 sh -c 'while :; do :; done' & done; }
qos() { python3 -c 'import os,struct,time; f=os.open("/dev/cpu_dma_latency",os.O_WRONLY); os.write(f,struct.pack("i",0)); time.sleep(60)' & }
one() {  # one CMD MODE REP
  local pids=""
  case $2 in hog) hogs; pids=$(jobs -p);; qos) qos; pids=$!; sleep 0.3;; esac
  LOOM_CLUSTER_CPUS=$CP timeout 40 $C run 2 1 -- $B $1 --max-reps 15 --json "$O/$1_$2_$3.json" >"$O/$1_$2_$3.txt" 2>&1
  local rc=$?; [ -n "$pids" ] && kill $pids 2>/dev/null; wait 2>/dev/null
  echo "$1 $2 $3 rc=$rc: $(grep -E "^(raw_mpi_cas|lock_alternating|lock_take_through|raw_mpi_get_4k |pagefetch +pages=1024 unit_pages=1|pagefetch_busy_home)" "$O/$1_$2_$3.txt" | sed -E 's/ +/ /g' | cut -d' ' -f1-4 | tr '\n' ';')"
}
for rep in 1 2; do for mode in plain hog qos; do
  [ $((SECONDS - T0)) -lt ${DEADLINE:-100} ] || break 2; one lock $mode $rep; done; done
for mode in plain hog qos; do [ $((SECONDS - T0)) -lt ${DEADLINE:-100} ] || break; one pagefetch $mode 1; done
$C down; tar czf "$OUTD/all32.tgz" -C "$O" .; cp "$O/log.txt" "$OUTD/log32.txt"; echo "== [$((SECONDS - T0)) s] done"
