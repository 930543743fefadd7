#!/bin/sh
# checkpoint_app.sh LAUNCH...: an application (apps/sor, the loom build)
# checkpointed every 10 iterations and killed after iteration 25, then
# restarted with LOOM_RESTART.  The restarted run must resume after
# iteration 20, finish all 40, and pass sor's own validation: its grid
# equals, bit for bit, a sequential run of the 40 iterations (which is what
# an uninterrupted run computes; app.sor.* checks that).  With JACOBI=1 the
# program runs --jacobi --root-init, checkpointed every 5 iterations and
# killed after 17: it resumes after 15, an odd count, where the current
# grid is the second of the two.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args="--n 130 --iters 40 --tol 0 --check 1000 --ckpt 10" die=25 resume=20
[ "${JACOBI:-0}" = 1 ] && { args="--n 130 --iters 40 --tol 0 --check 1000 --ckpt 5 --jacobi --root-init"; die=17; resume=15; }
export LOOM_CHECKPOINT_DIR="$dir"
timeout 60 "$@" $args --die-at $die >"$dir/killed.out" 2>&1 && { cat "$dir/killed.out"; echo "FAIL: the killed run exited 0"; exit 1; }
LOOM_RESTART="$dir" timeout 60 "$@" $args >"$dir/restart.out" 2>&1
rc=$?
cat "$dir/restart.out"
[ "$rc" -eq 0 ] || { echo "FAIL: the restarted run exited $rc"; exit 1; }
grep -q "restarted after iteration $resume" "$dir/restart.out" || { echo "FAIL: did not resume after iteration $resume"; exit 1; }
grep -q '"valid": true' "$dir/restart.out" || { echo "FAIL: the restarted run's grid is not the sequential one"; exit 1; }
grep -q '"iterations": 40' "$dir/restart.out" || { echo "FAIL: not 40 iterations"; exit 1; }
echo "checkpoint_app.sh: ok"
