#!/bin/bash
# One device call (16 cores).  Issue #10 after the wait loops' spin by time (cfb7746) and the byte-mask diffs:
# this build against 94b8677's libloom (.devold/, the same programs), alternated, on emulated hosts with cores of
# their own (4 hosts x 1 pinned to 4 cores each, 2 hosts x 1 and 2 hosts x 2 pinned to 8): the programs and the
# empty barrier; then this build's figures at 2 hosts x 1 (page fetch, lock, dirty barrier, Jacobi) and the
# suite 2 hosts x 1 against one host x 2 (the <= 1.3 target).
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w25; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-420}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all25.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log25.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
export MPIEXEC=$R/.venv/bin/mpiexec
C=scripts/cluster.sh; B=build/bench/loom_bench; OLD="LD_LIBRARY_PATH=$R/.devold"
nproc; grep -m1 "model name" /proc/cpuinfo; git log -1 --format=%h 2>/dev/null; ls -la .devold; command -v ip tc nsenter python3
stamp "cluster up 4"; $C up 4; echo "up rc=$?"
stamp "ab 2 hosts x 1: old lib (A) against new (B)"
LOOM_CLUSTER_CPUS=8 timeout 100 python3 apps/ab_builds.py --a build --b build --env-a "$OLD" --apps mg,cg,sor,is --reps 3 \
  --launch "$C run 2 1 --" --json "$O/ab_h2r1.json" 2>&1 | tail -6
for rep in 1 2; do for shape in "4 1 4" "2 1 8" "2 2 8"; do for v in old new; do
  set -- $shape; tag=h$1r$2_barrier_${v}_$rep
  [ "$(left)" -gt 250 ] || break
  if [ $v = old ]; then e="$OLD"; else e="X=1"; fi
  env $e LOOM_CLUSTER_CPUS=$3 timeout 20 $C run $1 $2 -- $B barrier --max-reps 9 --json "$O/$tag.json" >"$O/$tag.txt" 2>&1
  echo "$tag: $(grep -E "^barrier_(mpi|loom|loom_group|loom_split)[a-z_]* +ranks=" "$O/$tag.txt" | sed -E 's/ +/ /g' | cut -d' ' -f1,2,5 | tr '\n' ' ')"
done; done; stamp "barrier rep $rep"; done
for cmd in pagefetch lock barrier_dirty jacobi; do
  [ "$(left)" -gt 150 ] || break; stamp "h2r1 $cmd (new)"
  LOOM_CLUSTER_CPUS=8 timeout 40 $C run 2 1 -- $B $cmd --max-reps 11 --json "$O/h2r1_$cmd.json" >"$O/h2r1_$cmd.txt" 2>&1
  grep -E "ratio|speedup|^(pagefetch|trap|raw|lock|cas|jacobi|barrier_dirty)" "$O/h2r1_$cmd.txt" | sed -E 's/ +/ /g' | cut -c1-110 | head -12
done
stamp "suite, 2 hosts x 1 against one host x 2 (new)"
L=$(($(left) - 8))
[ $L -gt 30 ] && LOOM_CLUSTER_CPUS=8 timeout $L python3 apps/run_suite.py --apps mg,sor,cg,lu,ep,linpack --ranks 2 --hosts 2 --reps 2 --timeout 40 \
  --json "$O/suite_h2r1.json" >"$O/suite_h2r1.txt" 2>&1; tail -9 "$O/suite_h2r1.txt" | cut -c1-150
$C down
stamp done
