/* loom_trylock: counters guarded by trylock-or-lock stay exact under
 * contention (a successful trylock is an acquire like loom_lock); a trylock
 * on a lock another worker holds fails at once and leaves no queue entry
 * (the holder's unlock finds no successor, and another worker's loom_lock
 * after that works); trylock then unlock then another worker's lock works;
 * errors name their cause.
 *
 * mr_trylock T runs T threads per rank: the workers are ranks x threads
 * (worker rank*T + t).  A lock one thread holds is held for its rank's
 * other threads too: their trylocks fail, and they cannot unlock it. */
#include <sched.h>
#include <stdint.h>

#include "mr.h"

enum { K = 300 };

static void trylock(int w, int W) {
  const int n = loom_nranks();
  uint64_t* c = (uint64_t*)mr_walloc(2 * 4096, n - 1);
  uint64_t* tried = (uint64_t*)mr_walloc((size_t)W * 8, -1);

  /* 1. Trylock, falling back to lock: exact counter, and some attempts
   * succeeded (on any worker: the first at least). */
  uint64_t tried_ok = 0;
  for (int k = 0; k < K; k++) {
    int got = 0;
    CHECK_OK(loom_trylock(5, &got));
    if (got) tried_ok++;
    else CHECK_OK(loom_lock(5));
    c[0] = c[0] + 1;
    CHECK_OK(loom_unlock(5));
  }
  tried[w] = tried_ok;
  mr_wbar();
  uint64_t tried_all = 0;
  for (int v = 0; v < W; v++) tried_all += tried[v];
  CHECK(tried_all > 0);
  CHECK(c[0] == (uint64_t)W * K);

  /* 2. Trylock only, spinning: every worker adds K under the lock. */
  for (int k = 0; k < K; k++) {
    int got = 0;
    for (long i = 0; !got; i++) {
      loom_status_t s = loom_trylock(6, &got);
      if (s != LOOM_OK) {
        CHECK_OK(s);
        break;
      }
      if (!got && i > 16) sched_yield(); /* spin briefly, then give the core away */
    }
    c[1] = c[1] + 1;
    CHECK_OK(loom_unlock(6));
  }
  mr_wbar();
  CHECK(c[1] == (uint64_t)W * K);

  /* 3. Worker 0 holds lock 8: every other worker's trylock fails, several
   * times (its own rank's threads too), and they cannot unlock it; worker
   * 0's own trylock of a lock it holds does not take it again.  After
   * worker 0 unlocks, the others take it with loom_lock in turn (a queue
   * entry left by a failed trylock would hang or break this).  Worker 0
   * holds the lock across the barriers. */
  if (w == 0) {
    CHECK_OK(loom_lock(8));
    c[2] = 41;
    int got = 1;
    CHECK_OK(loom_trylock(8, &got));
    CHECK(got == 0);
  }
  mr_wbar();
  if (w != 0) {
    for (int i = 0; i < 5; i++) {
      int got = 1;
      CHECK_OK(loom_trylock(8, &got));
      CHECK(got == 0);
    }
    CHECK_ERR(loom_unlock(8), LOOM_ERR_BUSY);
  }
  mr_wbar();
  if (w == 0) {
    c[2] += 1;
    CHECK_OK(loom_unlock(8));
  }
  mr_wbar();
  if (w != 0) {
    CHECK_OK(loom_lock(8));
    CHECK(c[2] >= 42); /* worker 0's write, seen through the lock */
    c[2] += 1;
    CHECK_OK(loom_unlock(8));
  }
  mr_wbar();
  CHECK(c[2] == (uint64_t)(41 + W));

  /* 4. Trylock then unlock on one worker, then another worker's lock, in
   * turn round the workers; each sees the previous holder's write. */
  for (int turn = 0; turn < W; turn++) {
    if (w == turn) {
      int got = 0;
      CHECK_OK(loom_trylock(9, &got));
      CHECK(got == 1); /* nobody else holds or waits for it now */
      if (got) {
        CHECK(c[3] == (uint64_t)turn);
        c[3] = (uint64_t)turn + 1;
        CHECK_OK(loom_unlock(9));
      }
    }
    mr_wbar();
    if (w == (turn + 1) % W) {
      CHECK_OK(loom_lock(9));
      CHECK(c[3] == (uint64_t)turn + 1);
      CHECK_OK(loom_unlock(9));
    }
    mr_wbar();
  }

  /* 5. Errors. */
  int got = 0;
  CHECK_ERR(loom_trylock(1u << 30, &got), LOOM_ERR_INVALID);
  CHECK_ERR(loom_trylock(5, NULL), LOOM_ERR_INVALID);
  CHECK_ERR(loom_unlock(5), LOOM_ERR_BUSY); /* not held: the failed tries took nothing */

  mr_wfree(tried);
  mr_wfree(c);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), trylock);
  return mr_finish("mr_trylock");
}
