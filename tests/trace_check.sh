#!/bin/sh
# Runs a program with LOOM_TRACE, then checks its trace with the tool:
# every record well formed (loom trace check), the Perfetto JSON valid
# (loom trace view: per track non-decreasing timestamps, complete events
# properly nested), and the summary readable; with EXPECT_NOTICES, notices
# of that kind; with EXPECT_THREADS=T, operations of T threads per rank;
# with EXPECT_LOCK_ARROWS=value, lock hand-over arrows matched by the
# hand-over value; =time, arrows all matched by time (no values).
#   trace_check.sh PYTHON TRACE_DIR LAUNCHER... -- PROGRAM [ARGS]
py=$1 dir=$2
shift 2
tool=$(dirname "$0")/../tools/loom
rm -rf "$dir"
LOOM_TRACE=$dir "$@"
rc=$?
# (77: a launcher that cannot run here, the emulated cluster without MPICH's mpiexec, said why: skipped)
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "trace_check: the program failed"; exit 1; }
"$py" "$tool" trace check "$dir" || exit 1
"$py" "$tool" trace view "$dir" --out "$dir/trace.json" || exit 1
"$py" "$tool" trace summary "$dir" --json > "$dir/summary.json" || { echo "trace_check: summary failed"; exit 1; }
if [ -n "${EXPECT_NOTICES:-}" ]; then  # notices of this kind were sent, and others acted on notices
  "$py" -c "import json,sys; ev=json.load(open(sys.argv[1]))['traceEvents']; s=json.load(open(sys.argv[2]))['ranks']; \
sys.exit(0 if any(e.get('cat') == 'notice' and e['args']['kind'] == sys.argv[3] for e in ev) and \
sum(r['notices_received'] for r in s) > 0 else 1)" "$dir/trace.json" "$dir/summary.json" "$EXPECT_NOTICES" ||
    { echo "trace_check: no $EXPECT_NOTICES notices in the trace"; exit 1; }
fi
if [ -n "${EXPECT_THREADS:-}" ]; then  # every rank's operations on that many thread tracks
  "$py" -c "import json,sys; ev=json.load(open(sys.argv[1]))['traceEvents']; n=int(sys.argv[2]); \
ranks={e['pid'] for e in ev if e.get('ph') == 'X'}; \
sys.exit(0 if all({e['tid'] for e in ev if e.get('ph') == 'X' and e['pid'] == p} >= set(range(n)) for p in ranks) else 1)" \
    "$dir/trace.json" "$EXPECT_THREADS" || { echo "trace_check: not every rank has $EXPECT_THREADS thread tracks"; exit 1; }
fi
if [ -n "${EXPECT_LOCK_ARROWS:-}" ]; then  # hand-over arrows, each matched the way expected
  "$py" -c "import json,sys; ev=json.load(open(sys.argv[1]))['traceEvents']; \
s=[e for e in ev if e.get('ph') == 's' and e.get('cat') == 'lock']; \
m=[e['args']['matched by'] for e in s]; \
sys.exit(0 if ('hand-over value' in m if sys.argv[2] == 'value' else m and set(m) == {'time'}) else 1)" \
    "$dir/trace.json" "$EXPECT_LOCK_ARROWS" || { echo "trace_check: no lock arrows matched by $EXPECT_LOCK_ARROWS as expected"; exit 1; }
fi
du -sh "$dir" | sed 's/^/trace_check: trace size /'
rm -rf "$dir"  # kept only when a check failed
echo "trace_check: ok"
