/* Split-phase (fuzzy) barriers and barriers over subsets of ranks: writes
 * before an arrive are seen by every member after its wait; a member's wait
 * does not return before the last member arrived; disjoint subsets
 * synchronize independently; misuse gets the right error.
 *
 * mr_barriers T runs T threads per rank.  The barriers (arrive, wait,
 * subset) are the rank's and stay on thread 0; every thread writes its own
 * words before them (ordered before thread 0's arrive by a barrier of the
 * rank's threads, so the arrive publishes its siblings' writes) and every
 * thread reads every worker's words after the wait (so a rank's threads
 * fault on the same pages at once).  In part 2 the late write is made by
 * rank 0's last thread.  In part 3b each step of the lock hand-offs is
 * made by a thread other than the one that learned it was its turn, and
 * every thread of the last rank checks what it acquired.  In part 4 every
 * thread makes the failing calls, siblings at once, and each must find
 * its own call's message in loom_last_error. */
#include <stdint.h>
#include <stdio.h>
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

/* The words of worker (rank q, thread u) on rank q's page: part 1's and
 * part 3's (words 0 and 1 with one thread). */
static inline size_t w_fuzzy(int q, int u) { return (size_t)q * 512 + 2 * (size_t)u; }
static inline size_t w_group(int q, int u) { return (size_t)q * 512 + 2 * (size_t)u + 1; }

static void body(int w, int W) {
  (void)W;
  const int r = loom_rank(), n = loom_nranks();
  const int t = mr_t, T = mr_T;
  uint64_t* slot = (uint64_t*)mr_walloc((size_t)n * 4096, -1); /* one page per rank */

  /* 1. Fuzzy barrier over everyone: write, arrive, private work, wait, read. */
  for (int round = 1; round <= 5; round++) {
    slot[w_fuzzy(r, t)] = (uint64_t)(round * 100 + w);
    mr_rbar(); /* the siblings' writes before thread 0's arrive */
    if (t == 0) CHECK_OK(loom_barrier_arrive(NULL, 0));
    volatile uint64_t work = 0;
    for (int i = 0; i < 10000; i++) work += (uint64_t)i; /* independent work */
    if (t == 0) CHECK_OK(loom_barrier_wait());
    mr_rbar(); /* no thread reads before the wait */
    int bad = 0;
    for (int q = 0; q < n; q++)
      for (int u = 0; u < T; u++) bad += slot[w_fuzzy(q, u)] != (uint64_t)(round * 100 + q * T + u);
    CHECK(bad == 0);
    if (bad) fprintf(stderr, "rank %d thread %d: round %d: %d words stale after the wait\n", r, t, round, bad);
    mr_rbar(); /* nobody writes the next round before all have read */
    if (t == 0) {
      CHECK_OK(loom_barrier_arrive(NULL, 0));
      CHECK_OK(loom_barrier_wait());
    }
    mr_rbar();
  }

  /* 2. The wait really waits: rank 0 arrives late; everyone's wait returns
   * after rank 0's arrival (one host: one clock), with its write. */
  double* tm = (double*)mr_walloc(4096, -1);
  if (r == 0 && t == T - 1) {
    struct timespec d = {0, 200 * 1000 * 1000};
    nanosleep(&d, NULL);
    tm[0] = loom_wtime();
  }
  mr_rbar(); /* rank 0's last thread wrote before thread 0 arrives */
  if (t == 0) {
    CHECK_OK(loom_barrier_arrive(NULL, 0));
    CHECK_OK(loom_barrier_wait());
  }
  mr_rbar();
  double back = loom_wtime();
  const double late = tm[0];
  CHECK(late > 0); /* the write made before the late arrive */
  CHECK(back >= late);
  mr_wbar();

  /* 3. Subsets: evens and odds synchronize separately, several rounds. */
  int* group = malloc(sizeof(int) * (size_t)n), g = 0;
  for (int q = r % 2; q < n; q += 2) group[g++] = q;
  for (int round = 1; round <= 4; round++) {
    slot[w_group(r, t)] = (uint64_t)(round * 1000 + w);
    mr_rbar();
    if (t == 0) CHECK_OK(loom_barrier_subset(group, g));
    mr_rbar();
    int bad = 0;
    for (int i = 0; i < g; i++)
      for (int u = 0; u < T; u++)
        bad += slot[w_group(group[i], u)] != (uint64_t)(round * 1000 + group[i] * T + u);
    CHECK(bad == 0);
    if (bad) fprintf(stderr, "rank %d thread %d: group round %d: %d words stale\n", r, t, round, bad);
    mr_rbar();
    if (t == 0) CHECK_OK(loom_barrier_subset(group, g));
    mr_rbar();
  }
  /* A subset of one is this rank alone. */
  if (t == 0) CHECK_OK(loom_barrier_subset(&r, 1));
  mr_wbar();

  CHECK_OK(loom_poll()); /* every thread */

  /* 3b. What a group barrier's members learned from a rank outside the
   * group reaches a rank that acquires from a member later (transitivity
   * through the group).  Ranks 0 (x), 1 (m), 2 (r), 3 (s): s caches page A
   * under lock 3 and tells x so; x writes A under lock 1; m acquires lock 1
   * after it; m and r pass a group barrier; r writes page B under lock 2; s
   * acquires lock 2 after r: s must see x's write to A, though it never
   * synchronized with x after caching A.  (The group barrier's acquire
   * must learn what m learned from x: intervals.cpp, acquire_all.)  With
   * threads: every thread of s caches A (C counts them); x's last thread
   * waits for C, its thread 0 writes A; m's last thread waits for A, its
   * thread 0 passes the group barrier; r's thread 0 passes it, its last
   * thread writes B; every thread of s waits for B and checks A. */
  if (n >= 4) {
    volatile uint64_t* d = (volatile uint64_t*)mr_walloc(3 * 4096, -1);
    volatile uint64_t *A = d, *B = d + 512, *C = d + 1024;
    if (t == 0 && r == 0) A[0] = 1; /* homes by first touch: A on rank 0, B on rank 2 */
    if (t == 0 && r == 2) B[0] = 1;
    mr_wbar();
    if (r == 3) {
      CHECK_OK(loom_lock(3));
      CHECK(A[0] == 1); /* a cached copy of A, fetched after a lock (so A's home tracks it) */
      C[0] = C[0] + 1;
      CHECK_OK(loom_unlock(3));
    } else if (r == 0) {
      if (t == T - 1) await_locked(3, C, (uint64_t)T);
      mr_rbar();
      if (t == 0) store_locked(1, A, 2);
    } else if (r == 1) {
      if (t == T - 1) await_locked(1, A, 2);
      mr_rbar();
    }
    if ((r == 1 || r == 2) && t == 0) CHECK_OK(loom_barrier_subset((int[]){1, 2}, 2));
    if (r == 2) {
      mr_rbar();
      if (t == T - 1) store_locked(2, B, 7);
    } else if (r == 3) {
      await_locked(2, B, 7);
      CHECK(A[0] == 2);
    }
    mr_wfree((void*)d);
  }

  /* 4. Misuse.  The barrier calls that succeed are thread 0's; the failing
   * ones are every thread's. */
  mr_wbar();
  CHECK_ERR(loom_barrier_wait(), LOOM_ERR_BUSY);
  mr_rbar();
  if (t == 0) CHECK_OK(loom_barrier_arrive(NULL, 0));
  mr_rbar(); /* the rank has arrived: for its other threads too */
  CHECK_ERR(loom_barrier_arrive(NULL, 0), LOOM_ERR_BUSY);
  CHECK(strstr(loom_last_error(), "loom_barrier_arrive: this rank has arrived") != NULL);
  CHECK_ERR(loom_barrier(), LOOM_ERR_BUSY);
  CHECK(strstr(loom_last_error(), "loom_barrier: a split barrier is pending") != NULL);
  mr_rbar();
  if (t == 0) CHECK_OK(loom_barrier_wait());
  mr_rbar();
  int other = (r + 1) % n, dup[2] = {r, r}, out_of_range[2] = {r, n};
  if (n > 1) CHECK_ERR(loom_barrier_subset(&other, 1), LOOM_ERR_INVALID); /* the caller is not a member */
  CHECK_ERR(loom_barrier_subset(dup, 2), LOOM_ERR_INVALID);
  CHECK_ERR(loom_barrier_subset(out_of_range, 2), LOOM_ERR_INVALID);
  CHECK_ERR(loom_barrier_subset(NULL, 3), LOOM_ERR_INVALID);
  /* Each thread's last failure names its own count; the message is read
   * after every sibling failed too. */
  CHECK_ERR(loom_barrier_subset(NULL, 1000 + t), LOOM_ERR_INVALID);
  mr_rbar();
  char want[64];
  snprintf(want, sizeof want, "loom_barrier_subset: %d ranks listed", 1000 + t);
  CHECK(strstr(loom_last_error(), want) != NULL);
  if (!strstr(loom_last_error(), want)) fprintf(stderr, "rank %d thread %d: last error '%s'\n", r, t, loom_last_error());
  mr_wbar();
  free(group);
  mr_wfree(slot);
  mr_wfree(tm);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), body);
  return mr_finish("mr_barriers");
}
