#!/bin/bash
# Issue #14's 16-core figures, one device call.  Not part of the repo.
set +e
T0=$SECONDS
R=$PWD
OUTD=${OUT:-/tmp/out}
O=/tmp/w
mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-560}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work 2>/dev/null; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
export LD_LIBRARY_PATH=$R/.venv/lib:$R/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
M=$R/.venv/bin/mpiexec
stamp machine
nproc; uname -a; grep -m1 "model name" /proc/cpuinfo; free -g; df -h /dev/shm /tmp
head -2 /etc/os-release; ldd --version | head -1; ulimit -n -u -l
cat /proc/sys/net/core/wmem_default /proc/sys/net/core/wmem_max 2>&1
ldd build/apps/sor_loom | grep -E "not found|libmpi|libloom"
$M --version | head -3

stamp smoke
timeout 40 $M -n 2 build/bench/loom_bench scale --min-reps 1 --max-reps 1 --warmup 0 --iters 5 >"$O/smoke.txt" 2>&1
rc=$?; tail -5 "$O/smoke.txt"; echo "smoke rc=$rc"
if [ $rc -ne 0 ]; then
  export LOOM_LOCAL_MAP=0
  timeout 40 $M -n 2 build/bench/loom_bench scale --min-reps 1 --max-reps 1 --warmup 0 --iters 5 >"$O/smoke.txt" 2>&1
  rc=$?; tail -5 "$O/smoke.txt"; echo "smoke with LOOM_LOCAL_MAP=0 rc=$rc"
fi
timeout 40 build/apps/sor_threads --workers 16 --n 130 --iters 30 | tail -1
timeout 40 $M -n 1 build/apps/sor_loom --threads 16 --n 130 --iters 30 | tail -1

stamp "suite, 1 rep"
timeout $(($(left) - 330)) python3 apps/run_suite.py --ranks ${RANKS:-16} --threads ${THREADS:-16,8} --apps ${APPS:-sor,lu,linpack,fft,fft3d,barnes,is,ep,cg,mg,nas_lu} --size ${SIZE:-paper} --reps 1 --timeout 90 \
  --json "$O/suite16_rep1.json" >"$O/suite16_rep1.txt" 2>&1
echo "rc=$?"; cat "$O/suite16_rep1.txt" | tail -16

stamp "scale 2..16 (not oversubscribed) and 32"
for n in ${SCALE_NS:-2 4 8 16 32}; do
  [ "$(left)" -gt 290 ] || break
  timeout 40 $M -n $n build/bench/loom_bench scale --min-reps 5 --max-reps 5 --warmup 1 --iters 20 \
    --json "$O/scale_np$n.json" 2>&1 | tail -4 | tee -a "$O/scale.txt"
done
python3 - "$O" <<'EOF' 2>&1 | tee -a "$O/scale.txt"
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/scale_np*.json"), key=lambda f: int(f.split("np")[-1][:-5])):
    d = json.load(open(f))
    print(f, json.dumps(d)[:600])
EOF

stamp "litmus at 1024 ranks"
echo 16777216 >/proc/sys/net/core/wmem_max; echo 16777216 >/proc/sys/net/core/wmem_default
cat /proc/sys/net/core/wmem_default
L=$(($(left) - 150)); [ $L -gt 200 ] && L=200
if [ $L -gt 60 ]; then
  (LOOM_LOG_ERRORS=0 LOOM_MANY_TIMEOUT=$L scripts/many_ranks.sh ${NBIG:-1024} build/tests/mr_litmus 2>&1 | tail -15) >"$O/litmus1024.txt"
  cat "$O/litmus1024.txt"; free -g
fi

stamp "suite, 2 more reps"
L=$(($(left) - 20))
if [ $L -gt 60 ]; then
  timeout $L python3 apps/run_suite.py --ranks ${RANKS:-16} --threads ${THREADS:-16,8} --apps ${APPS:-sor,lu,linpack,fft,fft3d,barnes,is,ep,cg,mg,nas_lu} --size ${SIZE:-paper} --reps 2 --timeout 90 \
    --json "$O/suite16_rep23.json" >"$O/suite16_rep23.txt" 2>&1
  echo "rc=$?"; tail -16 "$O/suite16_rep23.txt"
fi
stamp done
