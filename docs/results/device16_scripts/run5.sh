#!/bin/bash
# The copy-set leave on 16 cores, erc-invalidate: old (a842735) against new, one host and 2 pinned emulated hosts.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w5; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-170}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all5.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log5.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
mkdir -p /tmp/prevtree; [ -e /tmp/prevtree/build ] || ln -s "$R/.devprev/build" /tmp/prevtree/build
export PATH=$R/.venv/bin:$PATH:$R/.venv/net/bin PYTHONUNBUFFERED=1 LOOM_PROTOCOL=erc-invalidate
M=$R/.venv/bin/mpiexec
stamp "one host, 2 ranks"
timeout 70 python3 apps/ab_builds.py --a /tmp/prevtree/build --b build --apps barnes,mg,is,lu,cg,fft3d --reps 2 --json "$O/ab_np2.json" 2>&1 | tail -8
for b in /tmp/prevtree/build build; do echo -n "$b sor --iters 100: "; timeout 30 $M -n 2 $b/apps/sor_loom --iters 100 | grep -o '"time": [0-9.]*'; done
stamp "2 hosts x 1, 8 cores each"
scripts/cluster.sh up 2 >/dev/null
L=$(($(left) - 25)); [ $L -gt 20 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/ab_builds.py --a /tmp/prevtree/build --b build --apps barnes,mg,is,lu,cg,fft3d --reps 2 --launch "scripts/cluster.sh run 2 1 --" --json "$O/ab_h2r1_cpus8.json" 2>&1 | tail -8
for b in /tmp/prevtree/build build; do echo -n "$b sor --iters 100, 2 hosts: "; LOOM_CLUSTER_CPUS=8 timeout 10 scripts/cluster.sh run 2 1 -- $b/apps/sor_loom --iters 100 | grep -o '"time": [0-9.]*'; done
stamp done
