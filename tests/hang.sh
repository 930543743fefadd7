#!/bin/sh
# hang.sh MODE LAUNCH...: run "LAUNCH hang-binary MODE" with
# LOOM_HANG_TIMEOUT=2 (3 or more ranks) and check that the job ends within 20 s with a
# non-zero status, that every rank waiting in Loom reported what it waits in,
# and that the job said it was aborted (tests/hang.c has the two deadlocks).
# hang.sh late LAUNCH...: no deadlock, rank 0 late by 3 s; with
# LOOM_WAIT_NOTE=1 and no LOOM_HANG_TIMEOUT every other rank notes its wait
# once, nobody reports a hang, and the job ends with status 0.
mode=$1; shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if [ "$mode" = late ]; then
  LOOM_HANG_TIMEOUT=0 LOOM_WAIT_NOTE=1 timeout 60 "$@" late >"$out" 2>&1
  rc=$?
  cat "$out"
  [ "$rc" -eq 77 ] && grep -q "^cluster.sh: skipped:" "$out" && exit 77
  echo "hang.sh: late: exit status $rc"
  [ "$rc" -eq 0 ] || { echo "FAIL: the job did not end well"; exit 1; }
  if grep -q "loom: hang" "$out"; then echo "FAIL: a hang was reported"; exit 1; fi
  ranks=$(grep -c "^rank [0-9]*: done" "$out")
  [ "$ranks" -ge 3 ] || { echo "FAIL: $ranks ranks done"; exit 1; }
  r=1
  while [ "$r" -lt "$ranks" ]; do
    n=$(grep -c "loom: note: rank $r (pid [0-9]* on [^)]*) has waited [0-9.]* s in a barrier.*goes on waiting.*LOOM_HANG_TIMEOUT" "$out")
    [ "$n" -eq 1 ] || { echo "FAIL: rank $r noted its wait $n times (once expected)"; exit 1; }
    r=$((r + 1))
  done
  echo "hang.sh: late: ok"
  exit 0
fi
start=$(date +%s%N)
LOOM_HANG_TIMEOUT=2 timeout 60 "$@" "$mode" >"$out" 2>&1
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
cat "$out"
# A launcher that cannot run here (the emulated cluster without MPICH's
# mpiexec) skips, as the other tests through it do.
[ "$rc" -eq 77 ] && grep -q "^cluster.sh: skipped:" "$out" && exit 77
echo "hang.sh: $mode: exit status $rc after $ms ms"
[ "$rc" -ne 0 ] || { echo "FAIL: the job exited 0"; exit 1; }
[ "$rc" -ne 124 ] || { echo "FAIL: the job still ran after 60 s"; exit 1; }
[ "$ms" -le 20000 ] || { echo "FAIL: the job took $ms ms to end (limit 20 s)"; exit 1; }
if grep -q "got past" "$out"; then echo "FAIL: a rank got past the deadlock"; exit 1; fi
grep -q "loom: hang: the job is aborted" "$out" || { echo "FAIL: no abort message"; exit 1; }
# One rank aborts (watchdog.cpp): the ranks time out together, and several
# MPI_Abort calls at once can leave Open MPI's launcher running.
n=$(grep -c "loom: hang: the job is aborted" "$out")
[ "$n" -eq 1 ] || { echo "FAIL: $n ranks aborted the job (one should)"; exit 1; }
need() { grep -q "loom: hang: rank $1 .* in $2" "$out" || { echo "FAIL: rank $1 did not report waiting in $2"; exit 1; }; }
if [ "$mode" = collective ]; then
  need 1 "a barrier"; need 2 "a barrier"
  if grep -q "loom: hang: rank 0 " "$out"; then echo "FAIL: rank 0 was not waiting in Loom"; exit 1; fi
else
  need 0 "a barrier"; need 2 "a barrier"; need 1 "loom_lock 3, waiting for rank 0"
fi
echo "hang.sh: $mode: ok"
