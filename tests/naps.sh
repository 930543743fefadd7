#!/bin/sh
# The async protocol thread's longest nap across 2 emulated hosts x 1 rank,
# as LOOM_PRINT_CONFIG's first line says it: 50 us where each rank's
# affinity holds 2 CPUs for each rank of the job that may run on them, else
# 500 (src/transport/cores.hpp).  The hosts are namespaces of this machine,
# one kernel: unpinned, its 2 ranks share every CPU, so the answer is the
# machine's (50 us from 4 physical cores); pinned to one CPU a host
# (LOOM_CLUSTER_CPUS=1), each rank has one CPU, so 500 on any machine.
# Usage: naps.sh CLUSTER_SH PROGRAM
cl=$1
prog=$2
line() {
  out=$("$@" 2>&1)
  rc=$?
  [ $rc -eq 77 ] && exit 77
  [ $rc -ne 0 ] && { echo "$out"; echo "naps.sh: '$*' exited $rc"; exit 1; }
  echo "$out" | grep "progress thread"
}
# Physical cores under this process's affinity (hyperthreads of a core once).
cores=$(python3 -c '
import os
seen = set()
for c in os.sched_getaffinity(0):
    try:
        t = "/sys/devices/system/cpu/cpu%d/topology/" % c
        seen.add((open(t + "physical_package_id").read().strip(), open(t + "core_id").read().strip()))
    except OSError:
        seen.add(("cpu", c))
print(len(seen))')
if [ "$cores" -ge 4 ]; then want="naps of up to 50 us while a core is spare"; else want="naps of up to 500 us: cores shared"; fi
got=$(LOOM_PRINT_CONFIG=1 line "$cl" run 2 1 -- "$prog") || exit $?
echo "unpinned, $cores cores: $got"
echo "$got" | grep -q "$want" || { echo "naps.sh: expected '$want'"; exit 1; }
got=$(LOOM_PRINT_CONFIG=1 LOOM_CLUSTER_CPUS=1 line "$cl" run 2 1 -- "$prog") || exit $?
echo "one CPU a host: $got"
echo "$got" | grep -q "naps of up to 500 us: cores shared" || { echo "naps.sh: expected 500 us pinned to one CPU a host"; exit 1; }
echo "naps.sh: ok"
