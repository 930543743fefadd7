#!/bin/bash
# How many directory lookups a rank waits for across hosts, and how long,
# with homes learnt a window at a time (SPAN=1, as before) and a span of 64
# windows at a time (the default): a library built with timing.patch (a
# line per lookup on stderr; SPAN overrides the span), in a worktree of
# HEAD (or REV), under this checkout's apps.  2 emulated hosts x 1, a core each.
# Needs `scripts/cluster.sh up 2`.
#   sudo docs/results/issue10/learn_homes/run.sh > docs/results/issue10/learn_homes/lookups.txt
set -e
cd "$(dirname "$0")/../../../.."
repo=$PWD
export MPIEXEC=${MPIEXEC:-$repo/.venv/bin/mpiexec}
wt=/tmp/loom-learn-homes
rev=${REV:-$(git rev-parse HEAD)}
[ -d $wt ] || git worktree add -f $wt "$rev" > /dev/null
git -C $wt checkout -q -f --detach "$rev"
git -C $wt apply "$repo/docs/results/issue10/learn_homes/timing.patch"
cmake -G Ninja -S $wt -B $wt/build -DCMAKE_BUILD_TYPE=Release -DLOOM_BUILD_TESTS=OFF -DLOOM_BUILD_APPS=OFF \
  -DLOOM_BUILD_BENCH=OFF -DMPI_C_COMPILER=$repo/.venv/bin/mpicc -DMPI_CXX_COMPILER=$repo/.venv/bin/mpicxx > /dev/null
ninja -C $wt/build loom > /dev/null
for rep in 1 2 3; do
  for app in lu linpack fft mg; do
    for span in 1 64; do
      out=$(LD_LIBRARY_PATH=$wt/build LOOM_CLUSTER_CPUS=1 scripts/cluster.sh run 2 1 -- /usr/bin/env \
            LD_LIBRARY_PATH=$wt/build SPAN=$span "$repo/build/apps/${app}_loom" 2>&1)
      t=$(echo "$out" | grep -o '"time": [0-9.]*' | head -1 | cut -d' ' -f2)
      echo "$out" | awk -v app=$app -v span=$span -v t=$t -v rep=$rep '
        /^LOOKUP/ { n[$3]++; us[$3] += $9; if ($9 > 20) { far[$3]++; farus[$3] += $9 } }
        END { printf "rep %d %-8s span %2d time %s", rep, app, span, t
              for (r = 0; r < 2; r++) printf " | rank %d: %d lookups (%d over 20 us), %.2f ms", r, n[r], far[r], us[r] / 1000
              printf "\n" }'
    done
  done
done
