#!/bin/bash
# Issue #10 on 16 cores, at 29d6100's code (HEAD 2fa4b8c): CG, MG, SOR and LU 2 hosts x 1 (8 pinned cores each)
# against one host x 2, 5 runs each, for the <= 1.3 target (run16.sh had 3 runs).
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w17; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-250}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all17.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log17.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
C=scripts/cluster.sh
stamp "cluster up 2"; $C up 2; echo "up rc=$?"
stamp "suite, 2 hosts x 1 against one host x 2"
L=$(($(left) - 10))
LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/run_suite.py --apps cg,mg,sor,lu --ranks 2 --hosts 2 --reps 5 --timeout 60 \
  --json "$O/suite_h2r1_reps5.json" >"$O/suite_h2r1_reps5.txt" 2>&1; tail -8 "$O/suite_h2r1_reps5.txt"
$C down
stamp done
