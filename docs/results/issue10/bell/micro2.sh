#!/bin/bash
out=$(cd "$(dirname "$0")" && pwd)/micro2; mkdir -p $out
cd "$(dirname "$0")/../../../.."
for i in 1 2; do for v in "LOOM_BELL=0" "LOOM_BELL=50" "LOOM_BELL=100" "LOOM_BELL=50 LOOM_X_BELLGETS=1" "LOOM_BELL=50 LOOM_X_BELLWIN=1"; do
  tag=$(echo $v | tr ' =' '_-')
  for b in pagefetch lock; do
    env $v LOOM_CLUSTER_CPUS=1 timeout 300 scripts/cluster.sh run 2 1 -- $PWD/build/bench/loom_bench $b --json $out/${b}_${tag}_$i.json > $out/${b}_${tag}_$i.txt 2>&1
  done
  echo "$(date +%T) done $v $i"
done; done
