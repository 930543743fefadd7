#!/bin/bash
# Where a fault's time goes across 2 emulated hosts: LU with a library
# built from instrument.patch (timestamps of each fault's home lookup and
# get, each MPI_Rget, and every poll of the protocol threads, at finalize
# in /tmp/loom_times_<rank>.txt) and tcpdump in host 0's namespace; then
# ana.py lines them up.  Root, `scripts/cluster.sh up 2` first, tcpdump
# installed.  The library (once):
#   git worktree add /tmp/wt-times HEAD && cd /tmp/wt-times && git apply docs/results/issue10/stride/instrument/instrument.patch
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOOM_BUILD_TESTS=OFF -DLOOM_BUILD_APPS=OFF \
#         -DLOOM_BUILD_BENCH=OFF -DMPI_C_COMPILER=$PWD/../main/.venv/bin/mpicc && ninja -C build loom
# Then: run.sh /tmp/wt-times/build [LOOM_X=v ...] > out.txt   (lu_stride*.txt:
# LOOM_STRIDE=0, 1, and 1 with LOOM_DEBUG_NOYIELD=1, which the patch adds).
# The protocol threads' wake-up delays: perf sched record -o ps.data -- <the
# cluster.sh run line below>; perf sched latency -i ps.data | grep loom-async.
# What a yield costs beside a computing thread: yield.c (yield.txt).
LIB=$1; shift
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/../../../../.." || exit 1
export MPIEXEC=${MPIEXEC:-$PWD/.venv/bin/mpiexec}
rm -f /tmp/loom_times_*.txt
ip netns exec loomc-h0 timeout 30 tcpdump -i eth0 -tt -n -s 96 tcp > /tmp/loom_times_tcp.txt 2>/dev/null &
sleep 1
LOOM_CLUSTER_CPUS=1 scripts/cluster.sh run 2 1 -- /usr/bin/env LD_LIBRARY_PATH="$LIB" LOOM_DEBUG_TIMES=1 "$@" \
  "$PWD/build/apps/lu_loom" 2>&1 | grep -o '"time": [0-9.]*'
sleep 1
pkill -f "tcpdump -i eth0 -tt" ; sleep 1
python3 "$HERE/ana.py" /tmp/loom_times_0.txt /tmp/loom_times_1.txt /tmp/loom_times_tcp.txt
