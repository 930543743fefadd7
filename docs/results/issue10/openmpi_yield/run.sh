#!/bin/bash
# Open MPI's yield when idle inside the program's blocking MPI calls while
# a Loom thread that talks to other hosts runs (src/idle_yield.hpp), against
# no yielding (what Loom did before: OMPI_MCA_mpi_yield_when_idle=0, which
# leaves the switch alone) and against yielding for the whole run (Open
# MPI's own setting, =1).  Root; from the repository root, with build/
# (MPICH) and build-ompi/ (LOOM_MPI=openmpi) built; OLD_LIB a directory
# holding the libloom.so.0 of the commit before (258bf89), for the MPICH
# runs, where nothing should move.
#   bash docs/results/issue10/openmpi_yield/run.sh OLD_LIB
# Files: ab_h2r1_ompi.json (none against blocking calls only), and
# ab_h2r1_ompi_whole_run.json (whole run against blocking calls only), 2
# hosts x 1 rank under Open MPI; ab_np2_mpich.json (one host) and
# ab_h2r1_mpich.json (2 hosts x 1), the previous library against this one
# under MPICH.  5 rounds each, the builds alternated (bench/compare_builds.py).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
old=${1:?OLD_LIB}
tmp=$(mktemp -d)
trap 'scripts/cluster.sh down >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
cd "$root"
for v in 0 1; do
  printf '#!/bin/sh\nexport OMPI_MCA_mpi_yield_when_idle=%s\nexec %s/build-ompi/bench/loom_bench "$@"\n' $v "$root" >"$tmp/yield$v.sh"
done
printf '#!/bin/sh\nexport LD_LIBRARY_PATH=%s\nexec %s/build/bench/loom_bench "$@"\n' "$old" "$root" >"$tmp/old.sh"
chmod +x "$tmp"/*.sh
cl="$root/scripts/cluster.sh run 2 1 --"
scripts/cluster.sh down >/dev/null 2>&1 || true
scripts/cluster.sh up 2 >/dev/null
MPIEXEC=$root/.venv-ompi/bin/mpiexec python3 bench/compare_builds.py --a "$tmp/yield0.sh" \
  --b build-ompi/bench/loom_bench --rounds 5 --launch "$cl" --json "$here/ab_h2r1_ompi.json" \
  barrier lock pagefetch barrier_dirty jacobi
MPIEXEC=$root/.venv-ompi/bin/mpiexec python3 bench/compare_builds.py --a "$tmp/yield1.sh" \
  --b build-ompi/bench/loom_bench --rounds 5 --launch "$cl" --json "$here/ab_h2r1_ompi_whole_run.json" \
  lock pagefetch
python3 bench/compare_builds.py --a "$tmp/old.sh" --b build/bench/loom_bench --rounds 5 --np 2 \
  --mpiexec .venv/bin/mpiexec --json "$here/ab_np2_mpich.json" barrier lock jacobi
MPIEXEC=$root/.venv/bin/mpiexec python3 bench/compare_builds.py --a "$tmp/old.sh" --b build/bench/loom_bench \
  --rounds 5 --launch "$cl" --json "$here/ab_h2r1_mpich.json" barrier lock jacobi
