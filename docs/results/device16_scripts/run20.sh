#!/bin/bash
# One device call (16 cores), at 479e83d (kept asks since the last suite figures).  Issue #10: the suite 2 hosts x 1
# (8 pinned cores each) against one host x 2 (the <= 1.3 target), then where SOR's and MG's cross-host barriers
# go: a trace of each (loom trace summary), LOOM_STATS, and SOR with LOOM_MIGRATE=0 alternated with the default.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w20; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-270}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all20.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log20.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
export MPIEXEC=$R/.venv/bin/mpiexec
C=scripts/cluster.sh
nproc; git log -1 --format=%h 2>/dev/null; command -v ip tc nsenter python3
stamp "cluster up 2"; $C up 2; echo "up rc=$?"
stamp "suite, 2 hosts x 1 against one host x 2"
LOOM_CLUSTER_CPUS=8 timeout 110 python3 apps/run_suite.py --apps sor,mg,lu,cg --ranks 2 --hosts 2 --reps 3 --timeout 40 \
  --json "$O/suite_h2r1.json" >"$O/suite_h2r1.txt" 2>&1; tail -8 "$O/suite_h2r1.txt"
for app in sor mg; do
  stamp "trace $app"; rm -rf /tmp/tr_$app
  LOOM_TRACE=/tmp/tr_$app LOOM_CLUSTER_CPUS=8 timeout 30 $C run 2 1 -- build/apps/${app}_loom 2>&1 | grep -o '"time": [0-9.]*'
  timeout 40 python3 tools/loom trace summary /tmp/tr_$app >"$O/trace_summary_$app.txt" 2>&1; tail -4 "$O/trace_summary_$app.txt" | cut -c1-400
  stamp "stats $app"
  LOOM_STATS=1 LOOM_CLUSTER_CPUS=8 timeout 30 $C run 2 1 -- build/apps/${app}_loom >"$O/stats_$app.txt" 2>&1; grep -E "RESULT" "$O/stats_$app.txt" | cut -c1-400
done
for rep in 1 2; do for m in 1 0; do
  [ "$(left)" -gt 20 ] || break; stamp "sor migrate=$m rep $rep"
  LOOM_MIGRATE=$m LOOM_CLUSTER_CPUS=8 timeout 25 $C run 2 1 -- build/apps/sor_loom >"$O/sor_migrate${m}_$rep.txt" 2>&1
  grep RESULT "$O/sor_migrate${m}_$rep.txt" | cut -c1-330
done; done
$C down
stamp done
