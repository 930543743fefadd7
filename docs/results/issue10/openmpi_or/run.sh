#!/bin/bash
# The 64-bit one-sided OR of Open MPI 5.0.11 across 2 emulated hosts, and
# what Loom's check at init makes of it (docs/ARCHITECTURE.md, the emulated
# cluster).  Root; from the repository root, with build/ (MPICH) and
# build-ompi/ (LOOM_MPI=openmpi) built, and OLD_LIB a directory holding an
# earlier libloom.so.0 for the init timing (optional).
#   bash docs/results/issue10/openmpi_or/run.sh [OLD_LIB]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
old=${1:-}
tmp=$(mktemp -d)
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
cd "$root"
for mpi in mpich ompi; do
  venv=.venv; lib=build
  [ $mpi = ompi ] && venv=.venv-ompi && lib=build-ompi
  $venv/bin/mpicc -O2 "$here/ors.c" -o "$tmp/ors_$mpi"
  for p in stale inittime; do
    $venv/bin/mpicc -O2 -Iinclude "$here/$p.c" -o "$tmp/${p}_$mpi" -L$lib -lloom -Wl,-rpath,$root/$lib
  done
done
printf '#!/bin/sh\nexport LD_LIBRARY_PATH=%s\nexec "$@"\n' "$old" > "$tmp/old.sh"
chmod +x "$tmp/old.sh"
for mpi in mpich ompi; do
  export MPIEXEC=$root/.venv/bin/mpiexec
  [ $mpi = ompi ] && MPIEXEC=$root/.venv-ompi/bin/mpiexec
  scripts/cluster.sh down >/dev/null 2>&1 || true
  scripts/cluster.sh up 2 >/dev/null
  run() { timeout 120 scripts/cluster.sh run 2 1 -- "$@" 2>&1 | grep -v '^loom: warning'; }
  echo "== $mpi: 64-bit one-sided operations, 6 op 3"
  run "$tmp/ors_$mpi"
  for a in "16 0 0" "16 1 0" "64 0 1"; do
    echo "== $mpi: stale $a under rma, the check at init (default)"
    LOOM_TRANSPORT=rma LOOM_PRINT_CONFIG=1 run "$tmp/stale_$mpi" $a | grep -E 'ranks,|rank [01]: ' || true
    echo "== $mpi: stale $a under rma, LOOM_TEST_RMA_OR=mpi (MPI_BOR whatever the check says)"
    LOOM_TRANSPORT=rma LOOM_TEST_RMA_OR=mpi run "$tmp/stale_$mpi" $a | grep -E 'rank [01]: ' || true
  done
  if [ $mpi = mpich ] && [ -n "$old" ]; then
    for i in 1 2 3; do
      echo -n "== init time, rma, 2 hosts x 1, old library: "; LOOM_TRANSPORT=rma run "$tmp/old.sh" "$tmp/inittime_$mpi" | tail -1
      echo -n "== init time, rma, 2 hosts x 1, this build:  "; LOOM_TRANSPORT=rma run "$tmp/inittime_$mpi" | tail -1
    done
    for i in 1 2 3; do
      echo -n "== init time, rma, one host np2 LOOM_LOCAL_MAP=0, old library: "
      LD_LIBRARY_PATH=$old LOOM_LOCAL_MAP=0 LOOM_TRANSPORT=rma timeout 60 .venv/bin/mpiexec -n 2 "$tmp/inittime_$mpi" | tail -1
      echo -n "== init time, rma, one host np2 LOOM_LOCAL_MAP=0, this build:  "
      LOOM_LOCAL_MAP=0 LOOM_TRANSPORT=rma timeout 60 .venv/bin/mpiexec -n 2 "$tmp/inittime_$mpi" | tail -1
    done
  fi
done
