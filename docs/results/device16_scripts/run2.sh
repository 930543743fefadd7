#!/bin/bash
# Issue #14, second device call: the 1024-rank stress, memory at 1024, barrier/lock beyond 16, threads stress.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w2; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-420}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all2.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log2.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work 2>/dev/null; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
export LD_LIBRARY_PATH=$R/.venv/lib:$R/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
M=$R/.venv/bin/mpiexec
echo 16777216 >/proc/sys/net/core/wmem_max; echo 16777216 >/proc/sys/net/core/wmem_default
stamp "stress at 1024 ranks"
(LOOM_LOG_ERRORS=0 LOOM_STRESS_ROUNDS=2 LOOM_MANY_TIMEOUT=150 scripts/many_ranks.sh 1024 build/tests/mr_stress 2>&1 | tail -8) | tee "$O/stress1024.txt"
stamp "init_cost at 1024 ranks, 64M and 1G"
(LOOM_MANY_TIMEOUT=90 scripts/many_ranks.sh 1024 build/bench/init_cost 64M 1G 2>&1 | tail -8) | tee "$O/init_cost_np1024.txt"
stamp "threads stress: 1 x 16, 2 x 8, 4 x 4"
for s in "1 16" "2 8" "4 4"; do set -- $s
  [ "$(left)" -gt 100 ] || break
  timeout 60 $M -n $1 build/tests/mr_stress $2 2>&1 | tail -3 | tee -a "$O/stress_threads.txt"
  timeout 60 $M -n $1 build/tests/mr_litmus $2 2>&1 | tail -2 | tee -a "$O/stress_threads.txt"
done
stamp "scale at 64, 128 (oversubscribed 4x, 8x), 1024 (64x)"
for n in 64 128; do
  [ "$(left)" -gt 60 ] || break
  timeout 60 $M -n $n build/bench/loom_bench scale --min-reps 5 --max-reps 5 --warmup 1 --iters 5 --json "$O/scale_np$n.json" 2>&1 | tail -5 | tee -a "$O/scale.txt"
done
L=$(($(left) - 10)); [ $L -gt 120 ] && L=120
[ $L -gt 30 ] && (LOOM_MEM_SIZE=1G LOOM_MANY_TIMEOUT=$L scripts/many_ranks.sh 1024 build/bench/loom_bench scale --min-reps 3 --max-reps 3 --warmup 1 --iters 3 --json "$O/scale_np1024.json" 2>&1 | tail -6) | tee -a "$O/scale.txt"
free -g
stamp done
