#!/bin/bash
# Each suite program once at 2 emulated hosts x 1 (a core each) with
# LOOM_STRIDE=0 and 1: faults, pages fetched and pages fetched ahead along
# a stride, per rank (from LOOM_STATS_FILE).  Needs `scripts/cluster.sh up 2`.
#   sudo docs/results/issue10/stride/stats.sh > docs/results/issue10/stride/stats.txt
cd "$(dirname "$0")/../../../.." || exit 1
export MPIEXEC=${MPIEXEC:-$PWD/.venv/bin/mpiexec}
for app in sor lu linpack ep cg mg is fft fft3d barnes nas_lu; do
  for s in 0 1; do
    f=$(mktemp /tmp/stride_stats.XXXXXX)
    t=$(LOOM_CLUSTER_CPUS=1 scripts/cluster.sh run 2 1 -- /usr/bin/env LOOM_STRIDE=$s LOOM_STATS_FILE=$f \
        "$PWD/build/apps/${app}_loom" 2>&1 | grep -o '"time": [0-9.]*' | head -1)
    python3 - "$app" "$s" "$f" "$t" <<'PY'
import json, sys
app, s, f, t = sys.argv[1:5]
d = json.load(open(f))
ranks = d["per_rank"]
row = " ".join("r%d faults %d fetched %d strided %d" % (x["rank"], x["read_faults"] + x["write_faults"], x["pages_fetched"], x["pages_strided"]) for x in ranks)
print("%-8s stride=%s %s | %s" % (app, s, t, row))
PY
    rm -f "$f"
  done
done
