#!/bin/bash
# Kept locks (issue #10) on 16 cores: the build before them (ea3e400, as /tmp/oldtree/build) against the
# working tree's, 2 emulated hosts x 1 rank pinned to 8 cores each: loom_bench lock (the new bench binary on
# either library), the lock users and others by ab_builds, SPLASH-3's lock users across the 2 hosts.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w13; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-420}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all13.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log13.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
mkdir -p /tmp/oldtree; [ -e /tmp/oldtree/build ] || ln -s "$R/.devold/build" /tmp/oldtree/build
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
C=$R/scripts/cluster.sh; B=build/bench/loom_bench
stamp "cluster up 2"; $C up 2; echo "up rc=$?"
for rep in 1 2; do for lib in /tmp/oldtree/build $R/build; do
  tag=lock_$(basename $(dirname $lib))_$rep
  stamp "$tag"
  LD_LIBRARY_PATH=$lib LOOM_CLUSTER_CPUS=8 timeout 60 $C run 2 1 -- $B lock --max-reps 11 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1
  grep -E "^lock_|^raw|lock_part" "$O/$tag.txt"
done; done
stamp "ab 2 hosts x 1, 7 reps"
LOOM_CLUSTER_CPUS=8 timeout 150 python3 apps/ab_builds.py --a /tmp/oldtree/build --b build --apps barnes,is,lu,cg,mg,sor --reps 7 \
  --launch "$C run 2 1 --" --json "$O/ab_h2r1.json" 2>&1 | tail -8
for rep in 1 2; do for lib in /tmp/oldtree/build $R/build; do
  tag=splash3_h2r1_$(basename $(dirname $lib))_$rep
  [ "$(left)" -gt 40 ] || break
  stamp "$tag"
  L=$(($(left) - 10)); [ $L -gt 60 ] && L=60
  LD_LIBRARY_PATH=$lib LOOM_CLUSTER_CPUS=8 timeout $L python3 scripts/splash3.py bench --out build/splash3 --ranks 2 --programs barnes,water,cholesky \
    --launch "$C run 2 1 --" --json "$O/$tag.json" 2>&1 | cut -c1-200
done; done
$C down
stamp done
