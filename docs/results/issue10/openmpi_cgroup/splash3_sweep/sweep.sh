#!/bin/bash
# SPLASH-3's answers across emulated hosts: H hosts x R ranks, each program
# under each setting, checked against the pthreads build
# (scripts/splash3.py check).  Root; from the repository root, with the
# suite built under S3 (scripts/splash3.py build --out S3 --loomcc
# build/bin/loomcc, or build-ompi/bin/loomcc with MPIEXEC set to Open MPI's):
#   bash docs/results/issue10/openmpi_cgroup/splash3_sweep/sweep.sh H R S3 "SETTINGS" "PROGRAMS"
# SETTINGS: default erc-invalidate erc-update rma async; MEM: LOOM_MEM_SIZE (1G; OCEAN's
# non-contiguous layout needs 64G, ARCHITECTURE.md "SPLASH-3")
H=$1; R=$2; S3=$3; SETS=$4; PROGS=$5
root=$(cd "$(dirname "$0")/../../../../.." && pwd)
cd "$root"
scripts/cluster.sh up "$H" >/dev/null 2>&1 || exit 1
for set in $SETS; do
  for prog in $PROGS; do
    env=""
    case $set in
      erc-*) env="LOOM_PROTOCOL=$set" ;;
      rma | async) env="LOOM_TRANSPORT=$set" ;;
    esac
    t0=$(date +%s%N)
    out=$(env $env LOOM_MEM_SIZE=${MEM:-1G} timeout 300 python3 scripts/splash3.py check "$prog" --out "$S3" --ranks $((H * R)) \
      --launch "$root/scripts/cluster.sh run $H $R --" 2>&1)
    rc=$?
    echo "h${H}r${R} $set $prog rc=$rc $(( ($(date +%s%N) - t0) / 1000000 ))ms $(echo "$out" | tail -1 | cut -c1-100)"
  done
done
scripts/cluster.sh down >/dev/null 2>&1
