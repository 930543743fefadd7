#!/bin/sh
# intercept_misuse.sh MODE LAUNCH...: run "LAUNCH intercept_misuse-binary
# MODE" and check that the job ends within 20 s with a non-zero status and
# Loom's message naming the MPI call and the fix:
#   op:      "... inside MPI_Allreduce ... loom_prepare ..."
#   pending: "MPI_Irecv on Loom memory ... still in flight ... MPI_Wait"
mode=$1; shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s%N)
timeout 60 "$@" "$mode" >"$out" 2>&1
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
cat "$out"
echo "intercept_misuse.sh: $mode: exit status $rc after $ms ms"
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -ne 0 ] || { echo "FAIL: the job exited 0"; exit 1; }
[ "$rc" -ne 124 ] || { echo "FAIL: the job still ran after 60 s (a deadlock?)"; exit 1; }
[ "$ms" -le 20000 ] || { echo "FAIL: the job took $ms ms to end (limit 20 s)"; exit 1; }
if grep -q "got past" "$out"; then echo "FAIL: a rank got past the misuse"; exit 1; fi
if [ "$mode" = op ]; then
  grep -q "fault on Loom memory at .* inside MPI_Allreduce" "$out" || { echo "FAIL: no message naming MPI_Allreduce"; exit 1; }
  grep -q "loom_prepare" "$out" || { echo "FAIL: the message does not name loom_prepare"; exit 1; }
else
  grep -q "MPI_Irecv on Loom memory at .* still in flight" "$out" || { echo "FAIL: no message naming MPI_Irecv"; exit 1; }
  grep -q "MPI_Wait" "$out" || { echo "FAIL: the message does not name the fix"; exit 1; }
fi
echo "intercept_misuse.sh: $mode: ok"
