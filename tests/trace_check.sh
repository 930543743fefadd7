#!/bin/sh
# Runs a program with LOOM_TRACE, then checks its trace with the tool:
# every record well formed (loom trace check), the Perfetto JSON valid
# (loom trace view: per track non-decreasing timestamps, complete events
# properly nested), and the summary readable.
#   trace_check.sh PYTHON TRACE_DIR LAUNCHER... -- PROGRAM [ARGS]
py=$1 dir=$2
shift 2
tool=$(dirname "$0")/../tools/loom
rm -rf "$dir"
LOOM_TRACE=$dir "$@" || { echo "trace_check: the program failed"; exit 1; }
"$py" "$tool" trace check "$dir" || exit 1
"$py" "$tool" trace view "$dir" --out "$dir/trace.json" || exit 1
"$py" "$tool" trace summary "$dir" --json > "$dir/summary.json" || { echo "trace_check: summary failed"; exit 1; }
if [ -n "${EXPECT_NOTICES:-}" ]; then  # notices of this kind were sent, and others acted on notices
  "$py" -c "import json,sys; ev=json.load(open(sys.argv[1]))['traceEvents']; s=json.load(open(sys.argv[2]))['ranks']; \
sys.exit(0 if any(e.get('cat') == 'notice' and e['args']['kind'] == sys.argv[3] for e in ev) and \
sum(r['notices_received'] for r in s) > 0 else 1)" "$dir/trace.json" "$dir/summary.json" "$EXPECT_NOTICES" ||
    { echo "trace_check: no $EXPECT_NOTICES notices in the trace"; exit 1; }
fi
du -sh "$dir" | sed 's/^/trace_check: trace size /'
rm -rf "$dir"  # kept only when a check failed
echo "trace_check: ok"
