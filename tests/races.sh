#!/bin/sh
# Runs tests/races.c in one mode with LOOM_TRACE and LOOM_TRACE_RUNS=1, then
# the race report: a racy mode must be reported (exit 1, "race: ..." naming
# both ranks and the bytes given), a race-free one must not (exit 0).
#   races.sh PYTHON TRACE_DIR MODE EXPECT LAUNCHER... (the launcher ends with the program)
# MODE: the program's argument ("-": none); EXPECT: "none", or the
# substring the report must contain.  LATE_UNLOCK_MS=M: every unlock record
# is stretched by M ms before the report (tests/trace_late_unlocks.py).
py=$1 dir=$2 mode=$3 expect=$4
shift 4
tool=$(dirname "$0")/../tools/loom
rm -rf "$dir"
if [ "$mode" = - ]; then set -- "$@"; else set -- "$@" "$mode"; fi
LOOM_TRACE=$dir LOOM_TRACE_RUNS=1 "$@" || { echo "races: the program failed"; exit 1; }
"$py" "$tool" trace check "$dir" || exit 1
if [ -n "${LATE_UNLOCK_MS:-}" ]; then  # as if descheduled inside each unlock (tests/trace_late_unlocks.py)
  "$py" "$(dirname "$0")/trace_late_unlocks.py" "$dir" "$LATE_UNLOCK_MS" || exit 1
fi
out=$("$py" "$tool" trace races "$dir"); rc=$?
echo "$out"
# Every synchronization of these programs can be followed to the end (a
# barrier of a subset waits for its members only, not every rank).
if echo "$out" | grep -q "could not be followed"; then echo "races: FAIL: the report lost the ordering"; exit 1; fi
if [ "$expect" = none ]; then
  [ $rc -eq 0 ] || { echo "races: FAIL: a race-free program was reported (exit $rc)"; exit 1; }
else
  [ $rc -eq 1 ] || { echo "races: FAIL: the race was not found (exit $rc)"; exit 1; }
  echo "$out" | grep -q -- "$expect" || { echo "races: FAIL: the report does not say '$expect'"; exit 1; }
fi
rm -rf "$dir"
echo "races: ok"
