#!/bin/bash
# Issue #10 on 16 cores: the barrier prefetch by period (bdd8056) against the build before it (12194cf, as
# /tmp/old/build, where its apps look for their library), 2 emulated hosts x 1 rank pinned to 8 cores each:
# the suite by ab_builds, then the suite 2 hosts x 1 against one host x 2 (the <= 1.3 target), then the page
# fetch and Jacobi benchmarks with either library.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w15; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-430}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all15.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log15.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
mkdir -p /tmp/old; [ -e /tmp/old/build ] || ln -s "$R/.devold/build" /tmp/old/build
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
C=scripts/cluster.sh; B=build/bench/loom_bench
nproc; ldd build/apps/cg_loom | grep -E "loom|not found"; ldd /tmp/old/build/apps/cg_loom | grep -E "loom|not found"
stamp "cluster up 2"; $C up 2; echo "up rc=$?"
stamp "ab 2 hosts x 1: old vs new"
L=$(($(left) - 230)); [ $L -gt 150 ] && L=150
[ $L -gt 40 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/ab_builds.py --a /tmp/old/build --b build --apps cg,mg,sor,is,lu,fft3d --reps 4 \
  --launch "$C run 2 1 --" --json "$O/ab_h2r1.json" 2>&1 | tail -9
stamp "suite, 2 hosts x 1 against one host x 2 (new build)"
L=$(($(left) - 100)); [ $L -gt 130 ] && L=130
[ $L -gt 40 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/run_suite.py --apps sor,lu,linpack,ep,cg,mg --ranks 2 --hosts 2 --reps 2 --timeout 60 \
  --json "$O/suite_h2r1.json" >"$O/suite_h2r1.txt" 2>&1; tail -10 "$O/suite_h2r1.txt"
for lib in /tmp/old/build $R/build; do
  tag=pagefetch_$(basename $(dirname $lib)); [ "$(left)" -gt 40 ] || break; stamp "$tag"
  LD_LIBRARY_PATH=$lib LOOM_CLUSTER_CPUS=8 timeout 40 $C run 2 1 -- $B pagefetch --max-reps 9 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1
  grep -E "^pagefetch.*unit_pages=8" "$O/$tag.txt"
done
for lib in /tmp/old/build $R/build; do
  tag=jacobi_$(basename $(dirname $lib)); [ "$(left)" -gt 30 ] || break; stamp "$tag"
  LD_LIBRARY_PATH=$lib LOOM_CLUSTER_CPUS=8 timeout 40 $C run 2 1 -- $B jacobi --max-reps 11 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1
  grep -E "^jacobi|speed" "$O/$tag.txt"
done
$C down
stamp done
