#!/bin/bash
# Before the cpu group (LOOM_CLUSTER_CGROUP=0 since): start a run at 2 hosts x 2 under Open MPI
# until one lasts past 12 s, then each thread's schedstat 2 s apart: running time,
# time waiting on the run queue, slices.  Root, with the cluster up:
#   LOOM_CLUSTER_CGROUP=0 bash schedstat.sh "LOOM_PROTOCOL=erc-update" S3/loom/apps/ocean/contiguous_partitions/OCEAN -p4 -n130 -o
root=$(cd "$(dirname "$0")/../../../.." && pwd); cd "$root"
export MPIEXEC=$root/.venv-ompi/bin/mpiexec OMPI_MCA_osc=^ucx
ENVS=$1; shift
for try in 1 2 3 4 5 6 7 8; do
  (env $ENVS LOOM_MEM_SIZE=1G timeout 300 bash scripts/cluster.sh run 2 2 -- "$@" > /tmp/s3_sample.out 2>&1 &)
  sleep 12
  pids=$(pgrep -x exe)
  [ -z "$pids" ] && { echo "try $try fast"; sleep 1; continue; }
  echo "try $try slow: $pids"
  snap() { for p in $pids; do for t in /proc/$p/task/*; do echo "$p $(basename $t) $(cat $t/comm) $(cat $t/schedstat)"; done; done; }
  snap > /tmp/ss1; sleep 2; snap > /tmp/ss2
  paste -d' ' /tmp/ss1 /tmp/ss2 | awk '{printf "%s %s %-10s run %.3f s  rqwait %.3f s  slices %d\n", $1, $2, $3, ($10-$4)/1e9, ($11-$5)/1e9, $12-$6}'
  break
done
