#!/bin/bash
# One device call (16 cores).  Issue #17: the model's paired validation (docs/MODEL.md) where each emulated
# host has cores of its own (LOOM_CLUSTER_CPUS=8), as on a real cluster: calibrate one host and 2 hosts,
# then each program 3 times, a traced one-host run then a measured run.  No SimGrid there: the runs come
# back with their traces and are predicted here (model_validate.py --repredict).
set +e
T0=$SECONDS; R=$PWD; OUTD=${OUT:-/tmp/out}; O=/tmp/w24; mkdir -p "$O" "$OUTD"
stamp() { cp "$O"/*.json "$O"/*.txt "$OUTD"/ 2>/dev/null; echo "== [$((SECONDS - T0)) s] $*"; }
exec >"$O/log.txt" 2>&1
rm -rf .venv && cp -a .devvenv .venv
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null || export PATH=$PATH:$R/.venv/net/bin
export MPIEXEC=$R/.venv/bin/mpiexec LOOM_CLUSTER_CPUS=8
nproc; git log -1 --format=%h 2>/dev/null
C=scripts/cluster.sh; B=build/bench/loom_bench; T=/tmp/dv/traces; mkdir -p $T
V="python3 bench/model_validate.py --paired --measure-only --reps 3 --traces $T --json $O/validation.json"
$MPIEXEC -n 2 $B calibrate --max-reps 15 --platform $O/platform_one_host.json --json $O/calibrate_one_host.json \
  > $O/calibrate_one_host.txt 2>&1
stamp "calibrated one host"
$V --config h1r2 --platform $O/platform_one_host.json
tar czf "$OUTD/traces_h1r2.tgz" -C $T $(cd $T && ls -d *.h1r2.*)
stamp "h1r2"
for rate in unlimited 1gbit; do
  [ $((SECONDS - T0)) -lt 330 ] || break
  $C down >/dev/null 2>&1
  if [ $rate = unlimited ]; then $C up 2; else $C up 2 $rate; $C links $rate > $O/links_$rate.json; fi
  $C run 2 1 -- $R/$B calibrate --max-reps 15 --platform $O/platform_h2_$rate.json --json $O/calibrate_h2_$rate.json \
    > $O/calibrate_h2_$rate.txt 2>&1
  stamp "calibrated h2 $rate"
  $V --config h2r1_$rate --hosts 2 --platform $O/platform_one_host.json --platform $O/platform_h2_$rate.json
  tar czf "$OUTD/traces_h2r1_$rate.tgz" -C $T $(cd $T && ls -d *.h2r1_$rate.*)
  stamp "h2r1 $rate"
done
$C down
stamp done
