#!/bin/sh
# killed_rank.sh MODE LAUNCH...: run "LAUNCH killed_rank-binary MODE" (the
# binary is the last word of LAUNCH) and check that the job ends within 10 s
# with a non-zero status, and with a message naming the dead rank:
#   kill: SIGKILL cannot be caught, so only the launcher can speak for the
#         dead rank: its message must be there (MPICH's hydra names a pid and
#         host, at times that of a rank it killed while cleaning up, so the
#         pid is not compared; Open MPI's prterun names "process rank R with
#         PID P", which must be the dead rank's);
#   segv: Loom's "loom: rank R (pid P on HOST): segmentation fault" line;
#   exit: Loom's "loom: rank R (pid P on HOST) exited without calling
#         loom_finalize" line.
# (grep -a: Open MPI's output can hold a NUL, and grep then calls the file
# binary and prints no line.)
mode=$1; shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s%N)
timeout 60 "$@" "$mode" >"$out" 2>&1
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
cat "$out"
echo "killed_rank.sh: $mode: exit status $rc after $ms ms"
[ "$rc" -eq 77 ] && exit 77
line=$(grep -ao 'rank [0-9]* (pid [0-9]*) dies now' "$out" | head -n 1)
[ -n "$line" ] || { echo "FAIL: the rank did not get to die"; exit 1; }
rank=$(echo "$line" | sed 's/rank \([0-9]*\) .*/\1/')
pid=$(echo "$line" | sed 's/.*(pid \([0-9]*\)).*/\1/')
[ "$rc" -ne 0 ] || { echo "FAIL: the job exited 0"; exit 1; }
[ "$rc" -ne 124 ] || { echo "FAIL: the job still ran after 60 s"; exit 1; }
[ "$ms" -le 10000 ] || { echo "FAIL: the job took $ms ms to end (limit 10 s)"; exit 1; }
if grep -aq "got past the wait" "$out"; then echo "FAIL: a survivor got past the wait"; exit 1; fi
if [ "$mode" = segv ]; then
  grep -aq "loom: rank $rank (pid $pid on .*): segmentation fault" "$out" || { echo "FAIL: no message naming rank $rank"; exit 1; }
elif [ "$mode" = exit ]; then
  grep -aq "loom: rank $rank (pid $pid on .*) exited without calling loom_finalize" "$out" || { echo "FAIL: no message naming rank $rank"; exit 1; }
elif grep -aq "prterun\|PRTE" "$out"; then
  # Open MPI's launcher names the rank and its pid; it must be the dead one,
  # not a survivor that aborted on the closed connection.
  grep -aq "process rank $rank with PID $pid" "$out" || { echo "FAIL: Open MPI's launcher did not name rank $rank (pid $pid)"; exit 1; }
else
  grep -aqi "BAD TERMINATION\|exited on signal\|killed" "$out" || { echo "FAIL: no message from the launcher"; exit 1; }
fi
echo "killed_rank.sh: $mode: ok (rank $rank, pid $pid)"
