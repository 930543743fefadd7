#!/bin/sh
# pid_namespace.sh MPIEXEC PROGRAM: ranks of one host in private PID
# namespaces (shared host name and IPC, /proc of their own) advertise pid 1,
# and /proc/1/fd/<n> on each names the rank's own files, not the peer's.
# Loom must see that the file it opened is not the peer's memfd (device and
# inode differ), say so, and reach the peer through MPI; the program must
# pass.  Before the check, each rank mapped its own memory as its peer's
# and the job hung or computed wrong results.
# MPICH's single-copy path (CMA, process_vm_readv by pid) and its
# process-shared RMA mutexes do not work across PID namespaces, so the run
# turns CMA off and uses the default transport (auto: requests, no MPI
# atomics).  Needs root (unshare); exit 77 (skipped) otherwise.
mpiexec=$1; prog=$2
if [ "$(id -u)" != 0 ] || ! unshare --pid --fork --mount-proc true 2>/dev/null; then
  echo "pid_namespace.sh: needs root and unshare --pid: skipped"; exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Whether /proc/1/fd/<n> exists in a rank's namespace depends on the fd
# numbers MPI left; up to 4 runs, until one shows a foreign file detected.
# Every run must pass, with both ranks saying they use MPI for the other.
seen=0
for run in 1 2 3 4; do
  MPIR_CVAR_CH4_CMA_ENABLE=0 LOOM_TRANSPORT=auto timeout 30 "$mpiexec" -n 2 \
    sh -c 'exec unshare --pid --fork --mount-proc "$0"' "$prog" >"$out" 2>&1
  rc=$?
  cat "$out"
  [ "$rc" -eq 0 ] || { echo "FAIL: run $run: the job exited with $rc"; exit 1; }
  n=$(grep -c "cannot map same-host rank" "$out")
  [ "$n" -eq 2 ] || { echo "FAIL: run $run: expected both ranks to fall back to MPI, $n did"; exit 1; }
  if grep -q "is not its shared memory" "$out"; then seen=1; break; fi
done
[ "$seen" -eq 1 ] || { echo "FAIL: no run opened a foreign file, so the check was not exercised"; exit 1; }
echo "pid_namespace.sh: ok (run $run)"
