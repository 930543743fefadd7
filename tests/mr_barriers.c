/* Split-phase (fuzzy) barriers and barriers over subsets of ranks: writes
 * before an arrive are seen by every member after its wait; a member's wait
 * does not return before the last member arrived; disjoint subsets
 * synchronize independently; misuse gets the right error. */
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mr.h"

/* Case 3b's hand-offs: a store under a lock, and a wait (lock, load,
 * unlock, again) until the word holds a value. */
static void store_locked(int lock, volatile uint64_t* w, uint64_t v) {
  CHECK_OK(loom_lock(lock));
  *w = v;
  CHECK_OK(loom_unlock(lock));
}

static void await_locked(int lock, volatile uint64_t* w, uint64_t want) {
  for (uint64_t v = want + 1; v != want;) {
    CHECK_OK(loom_lock(lock));
    v = *w;
    CHECK_OK(loom_unlock(lock));
  }
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();
  uint64_t* slot = NULL;
  CHECK_OK(loom_alloc_collective((size_t)n * 4096, (void**)&slot)); /* one page per rank */

  /* 1. Fuzzy barrier over everyone: write, arrive, private work, wait, read. */
  for (int round = 1; round <= 5; round++) {
    slot[r * 512] = (uint64_t)(round * 100 + r);
    CHECK_OK(loom_barrier_arrive(NULL, 0));
    volatile uint64_t work = 0;
    for (int i = 0; i < 10000; i++) work += (uint64_t)i; /* independent work */
    CHECK_OK(loom_barrier_wait());
    int bad = 0;
    for (int q = 0; q < n; q++) bad += slot[q * 512] != (uint64_t)(round * 100 + q);
    CHECK(bad == 0);
    CHECK_OK(loom_barrier_arrive(NULL, 0)); /* nobody writes the next round before all have read */
    CHECK_OK(loom_barrier_wait());
  }

  /* 2. The wait really waits: rank 0 arrives late; everyone's wait returns
   * after rank 0's arrival (one host: one clock). */
  double* t = NULL;
  CHECK_OK(loom_alloc_collective(4096, (void**)&t));
  if (r == 0) {
    struct timespec d = {0, 200 * 1000 * 1000};
    nanosleep(&d, NULL);
    t[0] = loom_wtime();
  }
  CHECK_OK(loom_barrier_arrive(NULL, 0));
  CHECK_OK(loom_barrier_wait());
  double back = loom_wtime();
  CHECK(back >= t[0]);
  CHECK_OK(loom_barrier());

  /* 3. Subsets: evens and odds synchronize separately, several rounds. */
  int* group = malloc(sizeof(int) * (size_t)n), g = 0;
  for (int q = r % 2; q < n; q += 2) group[g++] = q;
  for (int round = 1; round <= 4; round++) {
    slot[r * 512 + 1] = (uint64_t)(round * 1000 + r);
    CHECK_OK(loom_barrier_subset(group, g));
    int bad = 0;
    for (int i = 0; i < g; i++) bad += slot[group[i] * 512 + 1] != (uint64_t)(round * 1000 + group[i]);
    CHECK(bad == 0);
    CHECK_OK(loom_barrier_subset(group, g));
  }
  /* A subset of one is this rank alone. */
  CHECK_OK(loom_barrier_subset(&r, 1));
  CHECK_OK(loom_barrier());

  CHECK_OK(loom_poll());

  /* 3b. What a group barrier's members learned from a rank outside the
   * group reaches a rank that acquires from a member later (transitivity
   * through the group).  Ranks 0 (x), 1 (m), 2 (r), 3 (s): s caches page A
   * under lock 3 and tells x so; x writes A under lock 1; m acquires lock 1
   * after it; m and r pass a group barrier; r writes page B under lock 2; s
   * acquires lock 2 after r: s must see x's write to A, though it never
   * synchronized with x after caching A.  (The group barrier's acquire
   * must learn what m learned from x: intervals.cpp, acquire_all.) */
  if (n >= 4) {
    volatile uint64_t* d = NULL;
    CHECK_OK(loom_alloc_collective(3 * 4096, (void**)&d));
    volatile uint64_t *A = d, *B = d + 512, *C = d + 1024;
    if (r == 0) A[0] = 1; /* homes by first touch: A on rank 0, B on rank 2 */
    if (r == 2) B[0] = 1;
    CHECK_OK(loom_barrier());
    if (r == 3) {
      CHECK_OK(loom_lock(3));
      CHECK(A[0] == 1); /* a cached copy of A, fetched after a lock (so A's home tracks it) */
      C[0] = 1;
      CHECK_OK(loom_unlock(3));
    } else if (r == 0) {
      await_locked(3, C, 1);
      store_locked(1, A, 2);
    } else if (r == 1) {
      await_locked(1, A, 2);
    }
    if (r == 1 || r == 2) CHECK_OK(loom_barrier_subset((int[]){1, 2}, 2));
    if (r == 2) {
      store_locked(2, B, 7);
    } else if (r == 3) {
      await_locked(2, B, 7);
      CHECK(A[0] == 2);
    }
    CHECK_OK(loom_barrier());
    CHECK_OK(loom_free_collective((void*)d));
  }

  /* 4. Misuse. */
  CHECK_ERR(loom_barrier_wait(), LOOM_ERR_BUSY);
  CHECK_OK(loom_barrier_arrive(NULL, 0));
  CHECK_ERR(loom_barrier_arrive(NULL, 0), LOOM_ERR_BUSY);
  CHECK_ERR(loom_barrier(), LOOM_ERR_BUSY);
  CHECK_OK(loom_barrier_wait());
  int other = (r + 1) % n, dup[2] = {r, r}, out_of_range[2] = {r, n};
  CHECK_ERR(loom_barrier_subset(&other, 1), LOOM_ERR_INVALID); /* the caller is not a member */
  CHECK_ERR(loom_barrier_subset(dup, 2), LOOM_ERR_INVALID);
  CHECK_ERR(loom_barrier_subset(out_of_range, 2), LOOM_ERR_INVALID);
  CHECK_ERR(loom_barrier_subset(NULL, 3), LOOM_ERR_INVALID);
  CHECK_OK(loom_barrier());
  free(group);
  return mr_finish("mr_barriers");
}
