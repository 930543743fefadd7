#!/bin/sh
# unreachable_host.sh PROG: on the emulated cluster (scripts/cluster.sh up 2
# done by the fixture), make host 1 unable to reach host 0 (a blackhole
# route in host 1's namespace, removed on every exit path), run PROG on
# 2 hosts x 1 rank, and check that the job fails with Loom's message naming
# the network settings to check.  MPICH ends host 1's rank inside MPI_Init
# (its own allreduce there finds the peer unreachable) and host 0's waits
# there for it: its launcher does not end it.  Loom's watch on MPI_Init ends
# host 0's rank after LOOM_INIT_TIMEOUT (5 s here) with its own message, and
# the job must then end by itself: the run is cut at 60 s, and a cut run
# fails (before the watch, the launcher waited until it was killed).
here=$(cd "$(dirname "$0")" && pwd)
cl=$here/../scripts/cluster.sh
prefix=${LOOM_CLUSTER_PREFIX:-loomc-}
[ "$(id -u)" -eq 0 ] || { echo "unreachable_host.sh: skipped: needs root"; exit 77; }
"$cl" status >/dev/null 2>&1 || exit 77
ns=${prefix}h1
ip -n "$ns" route add blackhole 198.18.0.1/32 || { echo "unreachable_host.sh: no host 1 ($ns)"; exit 1; }
out=$(mktemp)
trap 'ip -n "$ns" route del blackhole 198.18.0.1/32 2>/dev/null; rm -f "$out"' EXIT INT TERM
LOOM_INIT_TIMEOUT=5 timeout 60 "$cl" run 2 1 -- "$@" >"$out" 2>&1
rc=$?
# (a launcher that cannot run here, the emulated cluster without MPICH's mpiexec: skipped)
[ "$rc" -eq 77 ] && grep -q "^cluster.sh: skipped:" "$out" && { cat "$out"; exit 77; }
grep "loom:" "$out"
echo "unreachable_host.sh: exit status $rc"
[ "$rc" -ne 0 ] || { echo "FAIL: the job succeeded across an unreachable host"; exit 1; }
# Open MPI starts a daemon on every host first (cluster.sh run_openmpi):
# host 1's cannot reach mpiexec on host 0, and the job ends there, before
# any rank runs, with Open MPI's message that names the TCP connection.
if grep -q "A daemon failed to report back" "$out"; then
  grep -q "unable to complete a TCP connection" "$out" || { cat "$out"; echo "FAIL: no message naming the connection"; exit 1; }
  echo "unreachable_host.sh: ok (Open MPI: its daemon could not connect)"
  exit 0
fi
grep -q "loom: MPI_Init_thread ended the process .* FI_TCP_IFACE" "$out" || { cat "$out"; echo "FAIL: no Loom message naming the network settings"; exit 1; }
[ "$rc" -ne 124 ] || { cat "$out"; echo "FAIL: the job did not end by itself (cut at 60 s)"; exit 1; }
grep -q "loom: MPI_Init_thread has not returned after 5 s (pid [0-9]* on node0).* FI_TCP_IFACE" "$out" ||
  { cat "$out"; echo "FAIL: host 0's rank did not end with Loom's message about the wait in MPI_Init"; exit 1; }
echo "unreachable_host.sh: ok"
