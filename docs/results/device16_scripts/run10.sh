#!/bin/bash
# Where 2 x 8 spends its time: LOOM_STATS with t_rank_wait (b2223fd) for IS, Barnes-Hut and 3-D FFT
# as 2 x 8, 4 x 4 and 16 x 1 on 16 cores, two runs each.
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w10; mkdir -p "$O" "$OUTD"
stamp() { tar czf "$OUTD/all10.tgz" -C "$O" . 2>/dev/null; cp "$O/log.txt" "$OUTD/log10.txt" 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
M=$R/.venv/bin/mpiexec
for rep in 1 2; do for app in is barnes fft3d; do for shape in 2x8 4x4 16x1; do
  np=${shape%x*}; nt=${shape#*x}; f="$O/${app}_${shape}_$rep.txt"
  stamp "$app $shape rep $rep"
  LOOM_STATS=1 timeout 40 $M -n $np build/apps/${app}_loom --threads $nt >"$f" 2>&1
  grep -o '"time": [0-9.]*\|"breakdown": {[^}]*}' "$f" | tr '\n' ' '; echo
  grep -E "^ +all|waited" "$f"
done; done; done
stamp done
