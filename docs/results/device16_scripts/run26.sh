#!/bin/bash
# One device call (16 cores), right after run25.sh: the programs again, this build against 94b8677's libloom
# (.devold/), alternated (ab_builds), on every shape: 2 hosts x 1 (8 pinned cores each; run25's CG moved 1.2x),
# one host x 2, 2 hosts x 2 (8 each) and 4 hosts x 1 (4 each).
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w26; mkdir -p "$O" "$OUTD"
stamp() { tar czf "$OUTD/all26.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log26.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
export MPIEXEC=$R/.venv/bin/mpiexec
C=scripts/cluster.sh; OLD="LD_LIBRARY_PATH=$R/.devold"
ab() {  # ab TAG CPUS TIMEOUT REPS [launch]
  local tag=$1 cpus=$2 t=$3 reps=$4; shift 4
  stamp "ab $tag"
  LOOM_CLUSTER_CPUS=$cpus timeout $t python3 apps/ab_builds.py --a build --b build --env-a "$OLD" --apps cg,mg,sor,is --reps $reps \
    ${1:+--launch "$*"} --json "$O/ab_$tag.json" 2>&1 | tail -6
}
$C up 4; echo "up rc=$?"
ab h2r1 8 110 4 "$C run 2 1 --"
ab h1r2 8 50 3
ab h2r2 8 80 3 "$C run 2 2 --"
ab h4r1 4 80 3 "$C run 4 1 --"
$C down
stamp done
