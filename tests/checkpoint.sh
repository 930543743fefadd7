#!/bin/sh
# checkpoint.sh LAUNCH...: run "LAUNCH ckpt_jacobi-binary N SWEEPS EVERY DIE"
# three times: uninterrupted (checkpoints every 5 sweeps); killed after
# sweep 12 (so after the checkpoint of sweep 10); restarted from that
# checkpoint with LOOM_RESTART.  The killed run must fail, the restart must
# say it resumed at sweep 10, and its checksum must equal the uninterrupted
# run's: the final grid is bit-identical.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args="200 30 5"
export LOOM_CHECKPOINT_DIR="$dir/a"
timeout 60 "$@" $args -1 >"$dir/one.out" 2>&1 || { cat "$dir/one.out"; echo "FAIL: the uninterrupted run failed"; exit 1; }
cat "$dir/one.out"
export LOOM_CHECKPOINT_DIR="$dir/b"
timeout 60 "$@" $args 12 >"$dir/killed.out" 2>&1 && { cat "$dir/killed.out"; echo "FAIL: the killed run exited 0"; exit 1; }
grep "dies after sweep 12" "$dir/killed.out" || { cat "$dir/killed.out"; echo "FAIL: no rank died"; exit 1; }
LOOM_RESTART="$dir/b" timeout 60 "$@" $args -1 >"$dir/restart.out" 2>&1 || { cat "$dir/restart.out"; echo "FAIL: the restarted run failed"; exit 1; }
cat "$dir/restart.out"
grep -q "restarted at sweep 10" "$dir/restart.out" || { echo "FAIL: the restart did not resume at sweep 10"; exit 1; }
one=$(grep -o 'checksum [0-9a-f]*' "$dir/one.out")
two=$(grep -o 'checksum [0-9a-f]*' "$dir/restart.out")
[ -n "$one" ] && [ "$one" = "$two" ] || { echo "FAIL: $one (uninterrupted) != $two (restarted)"; exit 1; }
echo "checkpoint.sh: ok ($one both ways)"
