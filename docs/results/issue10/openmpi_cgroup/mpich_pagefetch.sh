#!/bin/bash
# MPICH at 2 x 2: loom_bench pagefetch with each rank in its own session (hydra's; autogroups)
# against every rank in one cpu cgroup; alternated, 4 rounds
# Root, from anywhere:  bash docs/results/issue10/openmpi_cgroup/mpich_pagefetch.sh > mpich_pagefetch.out
# (each line: the fetch per fault, us/page; the busy-home and crossed fetches, median and min, us)
root=$(cd "$(dirname "$0")/../../../.." && pwd); cd "$root"
export MPIEXEC=$root/.venv/bin/mpiexec
tmp=$(mktemp -d)
C=$root/scripts/cluster.sh
bash $C down > /dev/null 2>&1; bash $C up 2 > /dev/null 2>&1
mkdir -p /sys/fs/cgroup/cpu/loomtest2
for i in 1 2 3 4; do
  for mode in sessions group; do
    if [ $mode = group ]; then
      bash -c 'echo $BASHPID > /sys/fs/cgroup/cpu/loomtest2/cgroup.procs; exec timeout 150 bash '$C' run 2 2 -- build/bench/loom_bench pagefetch --max-reps 11' > $tmp/pf_$mode$i.txt 2>&1
    else
      timeout 150 bash $C run 2 2 -- build/bench/loom_bench pagefetch --max-reps 11 > $tmp/pf_$mode$i.txt 2>&1
    fi
    echo "$mode $i: $(grep -E '^(pagefetch +pages=1024 unit_pages=1 |pagefetch_busy_home |pagefetch_crossed )' $tmp/pf_$mode$i.txt | sed -E 's/ +/ /g' | cut -d' ' -f1,2,3,4,5 | tr '\n' ';')"
  done
done
bash $C down > /dev/null 2>&1
rmdir /sys/fs/cgroup/cpu/loomtest2
