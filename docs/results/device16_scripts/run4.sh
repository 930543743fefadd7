#!/bin/bash
# A/B on 16 cores: threads of a rank taking Loom locks (old = c918557, new = the working tree's build).
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w4; mkdir -p "$O" "$OUTD"
DEADLINE=${DEADLINE:-420}
left() { echo $((DEADLINE - (SECONDS - T0))); }
stamp() { tar czf "$OUTD/all4.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log4.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
mkdir -p /tmp/oldtree; [ -e /tmp/oldtree/build ] || ln -s "$R/.devold/build" /tmp/oldtree/build
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
M=$R/.venv/bin/mpiexec
ldd build/apps/is_loom | grep loom; ldd /tmp/oldtree/build/apps/is_loom | grep loom
stamp "lk: 1 rank, T threads, distinct / one lock"
for T in 1 2 4 8 16; do for sh in 0 1; do
  echo -n "old "; LD_LIBRARY_PATH=/tmp/oldtree/build timeout 60 $M -n 1 .venv/lk $T 100000 $sh
  echo -n "new "; timeout 60 $M -n 1 .venv/lk $T 100000 $sh
done; done 2>&1 | tee "$O/lk.txt"
stamp "ab 1x16"
timeout 150 python3 apps/ab_builds.py --a /tmp/oldtree/build --b build --apps barnes,is,fft3d,cg --np 1 --threads 16 --reps 5 --json "$O/ab_1x16.json" 2>&1 | tail -6
stamp "ab 2x8"
timeout 150 python3 apps/ab_builds.py --a /tmp/oldtree/build --b build --apps barnes,is,fft3d,cg --np 2 --threads 8 --reps 5 --json "$O/ab_2x8.json" 2>&1 | tail -6
stamp "ab 16x1"
L=$(($(left) - 130)); [ $L -gt 90 ] && L=90
[ $L -gt 20 ] && timeout $L python3 apps/ab_builds.py --a /tmp/oldtree/build --b build --apps barnes,is,fft3d,cg --np 16 --reps 3 --json "$O/ab_16x1.json" 2>&1 | tail -6
stamp "suite, new build"
L=$(($(left) - 10))
[ $L -gt 30 ] && timeout $L python3 apps/run_suite.py --ranks 16 --threads 16,8 --reps 1 --timeout 60 --json "$O/suite16_new.json" >"$O/suite16_new.txt" 2>&1; tail -14 "$O/suite16_new.txt"
stamp done
