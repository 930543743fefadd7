/* loom_trylock: counters guarded by trylock-or-lock stay exact under
 * contention (a successful trylock is an acquire like loom_lock); a trylock
 * on a lock another rank holds fails at once and leaves no queue entry (the
 * holder's unlock finds no successor, and another rank's loom_lock after
 * that works); trylock then unlock then another rank's lock works; errors
 * name their cause. */
#include <stdint.h>

#include "mr.h"

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();
  const int K = 300;
  uint64_t* c = NULL;
  CHECK_OK(loom_alloc_collective_at(2 * 4096, n - 1, (void**)&c));

  /* 1. Trylock, falling back to lock: exact counter, and some attempts
   * succeeded (on any rank: the first at least). */
  long tried_ok = 0;
  for (int k = 0; k < K; k++) {
    int got = 0;
    CHECK_OK(loom_trylock(5, &got));
    if (got) tried_ok++;
    else CHECK_OK(loom_lock(5));
    c[0] = c[0] + 1;
    CHECK_OK(loom_unlock(5));
  }
  long tried_all = 0;
  MPI_Allreduce(&tried_ok, &tried_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(tried_all > 0);
  CHECK_OK(loom_barrier());
  CHECK(c[0] == (uint64_t)n * K);

  /* 2. Trylock only, spinning: every rank adds K under the lock. */
  for (int k = 0; k < K; k++) {
    int got = 0;
    do CHECK_OK(loom_trylock(6, &got));
    while (!got);
    c[1] = c[1] + 1;
    CHECK_OK(loom_unlock(6));
  }
  CHECK_OK(loom_barrier());
  CHECK(c[1] == (uint64_t)n * K);

  /* 3. Rank 0 holds lock 8: every other rank's trylock fails, several
   * times; rank 0's own trylock of a lock it holds does not take it again.
   * After rank 0 unlocks, the others take it with loom_lock in turn (a
   * queue entry left by a failed trylock would hang or break this). */
  if (r == 0) {
    CHECK_OK(loom_lock(8));
    c[2] = 41;
    int got = 1;
    CHECK_OK(loom_trylock(8, &got));
    CHECK(got == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) {
    for (int i = 0; i < 5; i++) {
      int got = 1;
      CHECK_OK(loom_trylock(8, &got));
      CHECK(got == 0);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (r == 0) {
    c[2] += 1;
    CHECK_OK(loom_unlock(8));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) {
    CHECK_OK(loom_lock(8));
    CHECK(c[2] >= 42); /* rank 0's write, seen through the lock */
    c[2] += 1;
    CHECK_OK(loom_unlock(8));
  }
  CHECK_OK(loom_barrier());
  CHECK(c[2] == (uint64_t)(41 + n));

  /* 4. Trylock then unlock on one rank, then another rank's lock, in turn
   * round the ranks; each sees the previous holder's write. */
  for (int turn = 0; turn < n; turn++) {
    if (r == turn) {
      int got = 0;
      CHECK_OK(loom_trylock(9, &got));
      CHECK(got == 1); /* nobody else holds or waits for it now */
      if (got) {
        CHECK(c[3] == (uint64_t)turn);
        c[3] = (uint64_t)turn + 1;
        CHECK_OK(loom_unlock(9));
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == (turn + 1) % n) {
      CHECK_OK(loom_lock(9));
      CHECK(c[3] == (uint64_t)turn + 1);
      CHECK_OK(loom_unlock(9));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }

  /* 5. Errors. */
  int got = 0;
  CHECK_ERR(loom_trylock(1u << 30, &got), LOOM_ERR_INVALID);
  CHECK_ERR(loom_trylock(5, NULL), LOOM_ERR_INVALID);
  CHECK_ERR(loom_unlock(5), LOOM_ERR_BUSY); /* not held: the failed tries took nothing */

  CHECK_OK(loom_barrier());
  CHECK_OK(loom_free_collective(c));
  return mr_finish("mr_trylock");
}
