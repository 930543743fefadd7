#!/usr/bin/env bash
# Run an MPI program with hundreds or thousands of ranks on this one machine
# (issue #14: 1024 ranks must be a supported configuration).
#
#   scripts/many_ranks.sh N [--] prog [args...]
#
# What plain `mpiexec -n 1024` runs into here, and what this script does:
#
#  - MPICH's hydra hangs at 512 ranks and more: mpiexec and its pmi_proxy
#    both block writing to each other over a local socket whose send buffer
#    (net.core.wmem_default, 208 KiB) is smaller than one PMI exchange of
#    that many ranks; every rank then waits in its PMI read forever.  This
#    script raises net.core.wmem_default and wmem_max to 16 MiB for the run
#    (a global setting: it needs root, and it puts the old values back on
#    every exit path).  Without root it refuses above 256 ranks.
#  - Memory: each MPICH process over libfabric's tcp provider takes ~25 MB
#    of its own at init, which at 1024 ranks is more than this machine's
#    24 GiB (the OOM killer ended the run).  The sockets provider takes
#    ~8 MB, so FI_PROVIDER defaults to sockets here (ranks of one host
#    reach each other through mapped memory anyway; MPI carries only the
#    collectives).  MPIR_CVAR_CH4_ROOTS_ONLY_PMI=1 keeps the PMI exchange
#    to one address per host.  LOOM_MEM_SIZE defaults to 64M: the per-page
#    tables are per rank.
#  - The script refuses when MemAvailable is below N x 16 MB (measured:
#    13 GB in use at 1024 ranks with LOOM_MEM_SIZE=64M), rather than let
#    the OOM killer pick processes, and cuts the run at LOOM_MANY_TIMEOUT
#    seconds (default 1500).
#
# Exit status: the program's; 77 when the machine cannot run N ranks (not
# root above 256 ranks, too little memory), with one line saying why.
# Environment: MPIEXEC (default: the project's .venv mpiexec), LOOM_*,
# FI_PROVIDER, LOOM_MANY_TIMEOUT.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 N [--] prog [args...]" >&2; exit 2; }
n=$1
shift
[ "${1:-}" = -- ] && shift
case "$n" in '' | *[!0-9]*) echo "many_ranks: N must be a number of ranks, got '$n'" >&2; exit 2 ;; esac
mpiexec=${MPIEXEC:-$here/.venv/bin/mpiexec}
[ -x "$mpiexec" ] || mpiexec=$(command -v mpiexec) || { echo "many_ranks: no mpiexec (run scripts/setup.sh)" >&2; exit 77; }

avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
need_kb=$((n * 16 * 1024))
if [ "$avail_kb" -lt "$need_kb" ]; then
  echo "many_ranks: $n ranks need about $((need_kb / 1024)) MB (16 MB a rank), $((avail_kb / 1024)) MB available" >&2
  exit 77
fi

want=16777216
restore=()
if [ "$n" -gt 256 ]; then
  old_def=$(cat /proc/sys/net/core/wmem_default)
  old_max=$(cat /proc/sys/net/core/wmem_max)
  if [ "$old_def" -lt "$want" ]; then
    if [ "$(id -u)" != 0 ]; then
      echo "many_ranks: $n ranks need net.core.wmem_default >= $want (hydra's mpiexec and proxy deadlock on smaller socket buffers); run as root or set it" >&2
      exit 77
    fi
    restore=(net.core.wmem_default="$old_def" net.core.wmem_max="$old_max")
    trap 'sysctl -qw "${restore[@]}"' EXIT
    trap 'exit 130' INT TERM
    sysctl -qw net.core.wmem_max=$((old_max > want ? old_max : want)) net.core.wmem_default=$want
  fi
fi

export MPIR_CVAR_CH4_NETMOD=${MPIR_CVAR_CH4_NETMOD:-ofi}
export FI_PROVIDER=${FI_PROVIDER:-sockets}
export MPIR_CVAR_CH4_ROOTS_ONLY_PMI=${MPIR_CVAR_CH4_ROOTS_ONLY_PMI:-1}
export LOOM_MEM_SIZE=${LOOM_MEM_SIZE:-64M}
# This script's own setting, not Loom's: the ranks would warn of an unknown LOOM_ variable.
limit=${LOOM_MANY_TIMEOUT:-1500}
unset LOOM_MANY_TIMEOUT
start=$SECONDS
rc=0
timeout -s KILL "$limit" "$mpiexec" -n "$n" "$@" || rc=$?
[ $rc -eq 137 ] && echo "many_ranks: cut at $limit s" >&2
echo "many_ranks: $n ranks, $((SECONDS - start)) s, exit $rc" >&2
exit $rc
