#!/bin/bash
# Under LOOM_TRANSPORT=rma: the application thread's pokes of MPI
# (MpiRmaPath::poke) and Open MPI's yield when idle inside the rma path's
# blocking one-sided calls (src/idle_yield.hpp), against the library before
# them (5457db5).  Root; from the repository root, with build/ (MPICH) and
# build-ompi/ (LOOM_MPI=openmpi) built; OLD_MPICH and OLD_OMPI directories
# holding 5457db5's libloom.so.0 built against each.
#   bash docs/results/issue10/openmpi_poke/run.sh OLD_MPICH OLD_OMPI > docs/results/issue10/openmpi_poke/run.out 2>&1
# First the test programs that hung or crawled under Open MPI (wall time,
# each cut at 60 s), then 5 rounds of loom_bench, the builds alternated
# (bench/compare_builds.py): ab_np2_{mpich,ompi}.json on one host with
# LOOM_LOCAL_MAP=0 (the rma path between the two ranks), ab_h2r1_{mpich,ompi}.json
# across 2 emulated hosts x 1 rank.  PARTS (default: all of them) picks
# some: tests np2_mpich np2_ompi h2r1_mpich h2r1_ompi.
set -u
PARTS=${PARTS:-tests np2_mpich np2_ompi h2r1_mpich h2r1_ompi}
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
old_mpich=${1:?OLD_MPICH}
old_ompi=${2:?OLD_OMPI}
tmp=$(mktemp -d)
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
cd "$root"
printf '#!/bin/sh\nexport LD_LIBRARY_PATH=%s\nexec %s/build/bench/loom_bench "$@"\n' "$old_mpich" "$root" >"$tmp/old.sh"
printf '#!/bin/sh\nexport LD_LIBRARY_PATH=%s\nexec %s/build-ompi/bench/loom_bench "$@"\n' "$old_ompi" "$root" >"$tmp/old_ompi.sh"
chmod +x "$tmp"/*.sh
export OMPI_MCA_osc=^ucx LOOM_TRANSPORT=rma LOOM_MEM_SIZE=256M
ompi="$root/.venv-ompi/bin/mpiexec --allow-run-as-root --oversubscribe -n 2"
cl="$root/scripts/cluster.sh run 2 1 --"
scripts/cluster.sh down >/dev/null 2>&1 || true

timed() {  # label, library dir (empty: this build's), command...
  local label=$1 lib=$2
  shift 2
  local t0 t1 rc
  t0=$(date +%s.%N)
  if [ -n "$lib" ]; then LD_LIBRARY_PATH=$lib timeout 60 "$@" >"$tmp/out" 2>&1; else timeout 60 "$@" >"$tmp/out" 2>&1; fi
  rc=$?
  t1=$(date +%s.%N)
  printf '%-58s %7.2f s  exit %s  %s\n' "$label" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$rc" \
    "$(grep -E 'passed|FAIL' "$tmp/out" | head -1)"
  pkill -9 -f prterun >/dev/null 2>&1 || true
  pkill -9 -f prted >/dev/null 2>&1 || true
}
scripts/cluster.sh up 2 >/dev/null
if part tests; then
echo "# Open MPI, test programs, one host, LOOM_LOCAL_MAP=0 (wall time; 60 s is the cut)"
for p in mr_serve mr_locks; do
  for which in before after; do
    lib=$old_ompi
    [ $which = after ] && lib=
    LOOM_LOCAL_MAP=0 LOOM_PROTOCOL=hlrc timed "$p np2, $which" "$lib" $ompi build-ompi/tests/$p
  done
done
echo "# Open MPI, test programs, 2 hosts x 2 ranks"
for which in before after; do
  lib=$old_ompi
  [ $which = after ] && lib=
  LOOM_PROTOCOL=hlrc MPIEXEC=$root/.venv-ompi/bin/mpiexec \
    timed "mr_locks h2r2, $which" "$lib" scripts/cluster.sh run 2 2 -- "$root/build-ompi/tests/mr_locks"
done
fi

part np2_mpich && echo "# MPICH, one host, LOOM_LOCAL_MAP=0" &&
LOOM_LOCAL_MAP=0 python3 bench/compare_builds.py --a "$tmp/old.sh" --b build/bench/loom_bench --rounds 5 --np 2 \
  --mpiexec .venv/bin/mpiexec --json "$here/ab_np2_mpich.json" lock barrier barrier_dirty pagefetch
part np2_ompi && echo "# Open MPI, one host, LOOM_LOCAL_MAP=0" &&
LOOM_LOCAL_MAP=0 python3 bench/compare_builds.py --a "$tmp/old_ompi.sh" --b build-ompi/bench/loom_bench --rounds 5 \
  --launch "$ompi" --json "$here/ab_np2_ompi.json" lock barrier barrier_dirty pagefetch
part h2r1_mpich && echo "# MPICH, 2 hosts x 1" &&
MPIEXEC=$root/.venv/bin/mpiexec python3 bench/compare_builds.py --a "$tmp/old.sh" --b build/bench/loom_bench \
  --rounds 5 --launch "$cl" --json "$here/ab_h2r1_mpich.json" lock barrier_dirty pagefetch jacobi
part h2r1_ompi && echo "# Open MPI, 2 hosts x 1" &&
MPIEXEC=$root/.venv-ompi/bin/mpiexec python3 bench/compare_builds.py --a "$tmp/old_ompi.sh" \
  --b build-ompi/bench/loom_bench --rounds 5 --launch "$cl" --json "$here/ab_h2r1_ompi.json" lock barrier_dirty pagefetch
