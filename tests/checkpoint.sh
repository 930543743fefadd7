#!/bin/sh
# checkpoint.sh LAUNCH...: run "LAUNCH ckpt_jacobi-binary N SWEEPS EVERY DIE"
# three times: uninterrupted (checkpoints every 5 sweeps); killed after
# sweep 12 (so after the checkpoint of sweep 10); restarted from that
# checkpoint with LOOM_RESTART.  The killed run must fail, the restart must
# say it resumed at sweep 10, and its checksum must equal the uninterrupted
# run's: the final grid is bit-identical.
#
# Then (not with "every") the restart again from a copy of the checkpoint,
# with the last rank mapping a page at the checkpoint's address before
# loom_init (CKPT_SQUAT, as a thread stack or an MPI segment might land
# there): Loom holds the address from the library's load, so the page is
# "already held" and the restart must still resume bit-identical.  And a
# LOOM_BASE the last rank has mapped must fail loom_init naming that rank.
#
# checkpoint.sh every LAUNCH...: the same with no loom_checkpoint call but
# LOOM_CHECKPOINT_EVERY=4 (a checkpoint inside every 4th loom_barrier: one
# at the start, then one per sweep, so the 12th is sweep 10's, taken before
# rank 0 records sweep 10 as done; the restart redoes sweep 10 from its
# unchanged source grid and must still end bit-identical).
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args="200 30 5"
resume="restarted at sweep 10"
if [ "$1" = every ]; then
  shift
  args="200 30 0"
  export LOOM_CHECKPOINT_EVERY=4
fi
export LOOM_CHECKPOINT_DIR="$dir/a"
timeout 60 "$@" $args -1 >"$dir/one.out" 2>&1
rc=$?
# (a launcher that cannot run here, the emulated cluster without MPICH's mpiexec: skipped)
[ "$rc" -eq 77 ] && grep -q "^cluster.sh: skipped:" "$dir/one.out" && { cat "$dir/one.out"; exit 77; }
[ "$rc" -eq 0 ] || { cat "$dir/one.out"; echo "FAIL: the uninterrupted run failed"; exit 1; }
cat "$dir/one.out"
export LOOM_CHECKPOINT_DIR="$dir/b"
timeout 60 "$@" $args 12 >"$dir/killed.out" 2>&1 && { cat "$dir/killed.out"; echo "FAIL: the killed run exited 0"; exit 1; }
grep "dies after sweep 12" "$dir/killed.out" || { cat "$dir/killed.out"; echo "FAIL: no rank died"; exit 1; }
squat=
[ -z "$LOOM_CHECKPOINT_EVERY" ] && squat=1 && cp -r "$dir/b" "$dir/b2"
LOOM_RESTART="$dir/b" timeout 60 "$@" $args -1 >"$dir/restart.out" 2>&1 || { cat "$dir/restart.out"; echo "FAIL: the restarted run failed"; exit 1; }
cat "$dir/restart.out"
grep -q "$resume" "$dir/restart.out" || { echo "FAIL: expected \"$resume\""; exit 1; }
one=$(grep -o 'checksum [0-9a-f]*' "$dir/one.out")
two=$(grep -o 'checksum [0-9a-f]*' "$dir/restart.out")
[ -n "$one" ] && [ "$one" = "$two" ] || { echo "FAIL: $one (uninterrupted) != $two (restarted)"; exit 1; }
if [ -n "$squat" ]; then
  LOOM_CHECKPOINT_DIR="$dir/c" LOOM_RESTART="$dir/b2" CKPT_SQUAT=restart timeout 60 "$@" $args -1 >"$dir/squat.out" 2>&1 ||
    { cat "$dir/squat.out"; echo "FAIL: the restart with the checkpoint's address taken after load failed"; exit 1; }
  cat "$dir/squat.out"
  grep -q "already held" "$dir/squat.out" || { echo "FAIL: the checkpoint's address was not held from the library's load"; exit 1; }
  grep -q "$resume" "$dir/squat.out" || { echo "FAIL: expected \"$resume\" after the squatted restart"; exit 1; }
  three=$(grep -o 'checksum [0-9a-f]*' "$dir/squat.out")
  [ "$one" = "$three" ] || { echo "FAIL: $one (uninterrupted) != $three (squatted restart)"; exit 1; }
  LOOM_CHECKPOINT_DIR="$dir/d" LOOM_BASE=0x300000000000 CKPT_SQUAT=0x300000000000 timeout 60 "$@" $args -1 \
    >"$dir/base.out" 2>&1 && { cat "$dir/base.out"; echo "FAIL: loom_init took a LOOM_BASE a rank had mapped"; exit 1; }
  grep -q "not free on rank [0-9]* (anonymous memory at 0x300000000000" "$dir/base.out" ||
    { cat "$dir/base.out"; echo "FAIL: no error naming the rank and what holds LOOM_BASE"; exit 1; }
  grep -m1 "not free on rank" "$dir/base.out"
fi
echo "checkpoint.sh: ok ($one both ways)"
