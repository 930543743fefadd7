/* Release-consistency litmus programs, each a data-race-free program whose
 * allowed outcomes are those of sequential consistency; every role rotates
 * over the ranks and every shape repeats, so homes, writers and readers
 * differ from round to round:
 *  - MP (message passing) through a lock: data written before a release is
 *    seen by a rank that acquires the same lock and sees the flag.
 *  - MP through a barrier, data and flag on different pages and homes.
 *  - SB (store buffering) under one lock: the two critical sections are
 *    ordered, so at least one rank reads the other's store.
 *  - WRC (causality through two locks): rank a writes data and a flag under
 *    lock 1; rank b sees it, then writes a second flag under lock 2; rank c
 *    seeing that flag must see a's data (release consistency is transitive).
 *  - A split barrier: writes before loom_barrier_arrive are seen after every
 *    member's loom_barrier_wait; writes between arrive and wait are this
 *    rank's own and survive the wait.
 * Waiting loops acquire and release the lock each time round (a plain spin
 * on shared memory is a data race, not allowed under release consistency).
 * With mr_litmus T (T threads per rank) the roles rotate over the N*T
 * workers (worker rank*T + t), barriers are loom_thread_barrier, and the
 * split barrier, a rank's construct, is left out. */
#include <stdint.h>
#include <string.h>

#include "mr.h"

enum { kWords = 512, kRounds = 12 };

/* Spin on *flag under lock `l` until it equals want. */
static void wait_flag(volatile uint64_t* flag, uint32_t l, uint64_t want) {
  for (;;) {
    loom_lock(l);
    uint64_t v = *flag;
    loom_unlock(l);
    if (v == want) return;
  }
}

static int T = 1;
static uint64_t* data;
static uint64_t* flags;
static uint64_t* obs; /* SB: the observations, added with Loom atomics */

static void litmus(int r, int n) { /* this worker, the workers */
  uint64_t* page_of_flag[4];
  for (int i = 0; i < 4; i++) page_of_flag[i] = flags + i * 512;

  for (int round = 1; round <= kRounds; round++) {
    const int w = round % n, rd = (round + 1) % n, third = (round + 2) % n;
    uint64_t* d = data + (round % 8) * 512;

    /* MP through lock 0. */
    if (r == w) {
      for (int i = 0; i < kWords; i++) d[i] = (uint64_t)round * 1000 + i;
      loom_lock(0);
      *page_of_flag[0] = (uint64_t)round;
      loom_unlock(0);
    } else if (r == rd) {
      wait_flag(page_of_flag[0], 0, (uint64_t)round);
      int bad = 0;
      for (int i = 0; i < kWords; i++) bad += d[i] != (uint64_t)round * 1000 + i;
      CHECK(bad == 0);
    }
    mr_wbar();

    /* MP through a barrier: everyone reads what w wrote. */
    if (r == w) {
      for (int i = 0; i < kWords; i++) d[i] = (uint64_t)round * 7777 + i;
      *page_of_flag[1] = (uint64_t)round;
    }
    mr_wbar();
    {
      int bad = *page_of_flag[1] != (uint64_t)round;
      for (int i = 0; i < kWords; i++) bad += d[i] != (uint64_t)round * 7777 + i;
      CHECK(bad == 0);
    }
    mr_wbar();

    /* SB under lock 1 between w and rd (the others idle). */
    uint64_t* x = page_of_flag[2];
    if (r == 0) x[0] = x[1] = 0;
    if (r == 0) CHECK_OK(loom_atomic_store(obs, 0));
    mr_wbar();
    int saw = -1;
    if (n >= 2 && (r == w || r == rd)) {
      const int me = r == w ? 0 : 1;
      loom_lock(1);
      x[me] = (uint64_t)round;
      saw = x[1 - me] == (uint64_t)round;
      loom_unlock(1);
    }
    if (saw > 0) CHECK_OK(loom_atomic_fetch_add(obs, 1, NULL));
    mr_wbar();
    {
      /* Both observations: at least one must be 1. */
      uint64_t sum = 0;
      CHECK_OK(loom_atomic_fetch_add(obs, 0, &sum));
      CHECK(sum >= 1);
    }
    mr_wbar();

    /* WRC through locks 2 and 3 (needs three ranks; with two, rd plays c). */
    const int c = n >= 3 ? third : rd;
    uint64_t* d2 = data + ((round + 3) % 8) * 512;
    if (r == w) {
      for (int i = 0; i < kWords; i++) d2[i] = (uint64_t)round * 31 + i;
      loom_lock(2);
      page_of_flag[3][0] = (uint64_t)round;
      loom_unlock(2);
    }
    if (r == rd) {
      wait_flag(&page_of_flag[3][0], 2, (uint64_t)round);
      loom_lock(3);
      page_of_flag[3][8] = (uint64_t)round;
      loom_unlock(3);
    }
    if (r == c) {
      wait_flag(&page_of_flag[3][8], 3, (uint64_t)round);
      int bad = 0;
      for (int i = 0; i < kWords; i++) bad += d2[i] != (uint64_t)round * 31 + i;
      CHECK(bad == 0);
    }
    mr_wbar();
    if (T > 1) continue;

    /* Split barrier: before arrive is shared; between arrive and wait, own. */
    uint64_t* s = data + ((round + 5) % 8) * 512;
    for (int i = r; i < kWords; i += n) s[i] = (uint64_t)round * 13 + i;
    CHECK_OK(loom_barrier_arrive(NULL, 0));
    uint64_t* own = data + ((round + 6) % 8) * 512;
    for (int i = r; i < kWords; i += n) own[i] = (uint64_t)round * 17 + i;
    CHECK_OK(loom_barrier_wait());
    {
      int bad = 0;
      for (int i = 0; i < kWords; i++) bad += s[i] != (uint64_t)round * 13 + i;
      for (int i = r; i < kWords; i += n) bad += own[i] != (uint64_t)round * 17 + i;
      CHECK(bad == 0);
    }
    CHECK_OK(loom_barrier());
    {
      int bad = 0;  /* after a full barrier every rank's part of `own` is shared */
      for (int i = 0; i < kWords; i++) bad += own[i] != (uint64_t)round * 17 + i;
      CHECK(bad == 0);
    }
    CHECK_OK(loom_barrier());
  }
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  if (argc > 1) T = atoi(argv[1]);
  CHECK(T >= 1 && T <= 64);
  if (T < 1 || T > 64) T = 1;
  /* Data and flags on separate pages, homes cyclic so they sit on different ranks. */
  CHECK_OK(loom_alloc_collective_policy(8 * 4096, LOOM_HOME_CYCLIC, (void**)&data));
  CHECK_OK(loom_alloc_collective_policy(4 * 4096, LOOM_HOME_CYCLIC, (void**)&flags));
  CHECK_OK(loom_alloc_collective(4096, (void**)&obs));
  mr_workers(T, litmus);
  return mr_finish("mr_litmus");
}
