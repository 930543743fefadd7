#!/bin/sh
# unreachable_host.sh PROG: on the emulated cluster (scripts/cluster.sh up 2
# done by the fixture), make host 1 unable to reach host 0 (a blackhole
# route in host 1's namespace, removed on every exit path), run PROG on
# 2 hosts x 1 rank, and check that the job fails with Loom's message naming
# the network settings to check.  MPICH ends the rank inside MPI_Init (its
# own allreduce there finds the peer unreachable); its launcher may then
# wait for the dead proxy, so the run is cut at 30 s: the check is the
# message, not the launcher's exit.
here=$(cd "$(dirname "$0")" && pwd)
cl=$here/../scripts/cluster.sh
prefix=${LOOM_CLUSTER_PREFIX:-loomc-}
[ "$(id -u)" -eq 0 ] || { echo "unreachable_host.sh: skipped: needs root"; exit 77; }
"$cl" status >/dev/null 2>&1 || exit 77
ns=${prefix}h1
ip -n "$ns" route add blackhole 198.18.0.1/32 || { echo "unreachable_host.sh: no host 1 ($ns)"; exit 1; }
out=$(mktemp)
trap 'ip -n "$ns" route del blackhole 198.18.0.1/32 2>/dev/null; rm -f "$out"' EXIT INT TERM
timeout 30 "$cl" run 2 1 -- "$@" >"$out" 2>&1
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
echo "unreachable_host.sh: ok"
