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
"$py" "$tool" trace summary "$dir" >/dev/null || { echo "trace_check: summary failed"; exit 1; }
du -sh "$dir" | sed 's/^/trace_check: trace size /'
rm -rf "$dir"  # kept only when a check failed
echo "trace_check: ok"
