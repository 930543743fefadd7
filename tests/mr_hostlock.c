/* Loom locks where every rank of one host shares pages (LOOM_HOST_SHARE=1,
 * the default): a lock is then a futex word at its home, which every thread
 * of every rank takes alike (sync.cpp, host locks).  The same program runs
 * under every mode, where the locks are MCS queues with the protocol's
 * release and acquire, and must compute the same values.
 *
 * 1. mutual exclusion: a plain read, a pause and a plain write of one
 *    counter under a lock, by every rank: no increment lost;
 * 2. a long hold: rank 0 holds a lock 150 ms while the others wait for it
 *    (asleep, past their spins); they see what it wrote before its unlock,
 *    and the statistics count their wait as lock time;
 * 3. trylock: fails while another rank holds the lock and succeeds after;
 *    this thread's own hold is not taken again;
 * 4. a block freed and allocated again by rank 0, told to the others under
 *    the lock only (no barrier between): their next touch of it faults (the
 *    acquire read the forget notice, so no mapping or copy of the old block
 *    is used), and what they write there rank 0 reads;
 * 5. the lock operations of threads that have exited still count in the
 *    rank's statistics, and a reset forgets them. */
#include <string.h>
#include <time.h>

#include "mr.h"

static loom_stats_t stats(void) {
  loom_stats_t s;
  CHECK_OK(loom_stats_get(&s));
  return s;
}

static volatile uint64_t* g_shared;

static void* taker(void* arg) {
  (void)arg;
  for (int i = 0; i < 50; i++) {
    CHECK_OK(loom_lock(5));
    g_shared[4]++;
    CHECK_OK(loom_unlock(5));
  }
  return NULL;
}

static void pause_us(long us) {
  struct timespec t = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&t, NULL);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();
  volatile uint64_t* g = NULL;  /* [0] counter, [1] value, [2] block address, [3] block's round */
  CHECK_OK(loom_alloc_collective(4096, (void**)&g));

  /* 1. */
  enum { K = 200 };
  for (int i = 0; i < K; i++) {
    CHECK_OK(loom_lock(1));
    const uint64_t x = g[0];
    if (i % 16 == 0) sched_yield();
    g[0] = x + 1;
    CHECK_OK(loom_unlock(1));
  }
  CHECK_OK(loom_barrier());
  CHECK(g[0] == (uint64_t)n * K);

  /* 2. */
  loom_stats_t s0 = stats();
  if (r == 0) {
    CHECK_OK(loom_lock(2));
    CHECK_OK(loom_barrier());
    pause_us(150000);
    g[1] = 4242;
    CHECK_OK(loom_unlock(2));
  } else {
    CHECK_OK(loom_barrier());
    CHECK_OK(loom_lock(2));
    CHECK(g[1] == 4242);
    CHECK_OK(loom_unlock(2));
    loom_stats_t s1 = stats();
    CHECK(s1.locks == s0.locks + 1);
    CHECK(s1.t_lock - s0.t_lock > 0.05); /* it waited at least till rank 0's pause ended, less the barrier's exit */
  }
  CHECK_OK(loom_barrier());

  /* 3. */
  int got = -1;
  if (r == 0) {
    CHECK_OK(loom_lock(3));
    CHECK_OK(loom_trylock(3, &got));
    CHECK(got == 0); /* no recursion */
  }
  CHECK_OK(loom_barrier());
  if (r != 0) {
    CHECK_OK(loom_trylock(3, &got));
    CHECK(got == 0);
  }
  CHECK_OK(loom_barrier());
  if (r == 0) CHECK_OK(loom_unlock(3));
  CHECK_OK(loom_barrier());
  for (int k = 0; k < n; k++) {
    if (k == r) {
      CHECK_OK(loom_trylock(3, &got));
      CHECK(got == 1);
      if (got) CHECK_OK(loom_unlock(3));
    }
    CHECK_OK(loom_barrier());
  }

  /* 4. */
  enum { B = 4 * 4096 };
  uint64_t* b = NULL;
  if (r == 0) {
    CHECK_OK(loom_alloc(B, (void**)&b));
    memset(b, 7, B);
    CHECK_OK(loom_lock(4));
    g[2] = (uint64_t)(uintptr_t)b;
    g[3] = 1;
    CHECK_OK(loom_unlock(4));
  }
  CHECK_OK(loom_barrier());
  b = (uint64_t*)(uintptr_t)g[2];
  long bad = 0;
  for (int i = 0; i < B / 8; i++) bad += b[i] != 0x0707070707070707ull;
  CHECK(bad == 0); /* every rank maps or copies the block now */
  CHECK_OK(loom_barrier());
  uint64_t* c = NULL;
  if (r == 0) {
    CHECK_OK(loom_free(b));
    CHECK_OK(loom_alloc(B, (void**)&c));
    CHECK_OK(loom_lock(4));
    g[2] = (uint64_t)(uintptr_t)c;
    g[3] = 2;
    CHECK_OK(loom_unlock(4));
  } else {
    for (int seen = 0; !seen;) {
      CHECK_OK(loom_lock(4));
      seen = g[3] == 2;
      c = (uint64_t*)(uintptr_t)g[2];
      CHECK_OK(loom_unlock(4));
      if (!seen) sched_yield();
    }
    /* The rank's own page of the new block (first fit gives rank 0 the old
     * block's pages back: this rank has them mapped or cached). */
    uint64_t* mine = c + (size_t)(r % 4) * 512;
    loom_stats_t f0 = stats();
    mine[1] = 100 + (uint64_t)r;
    loom_stats_t f1 = stats();
    if (c == b) CHECK(f1.read_faults + f1.write_faults > f0.read_faults + f0.write_faults);
    CHECK_OK(loom_lock(4));
    CHECK_OK(loom_unlock(4));
  }
  CHECK_OK(loom_barrier());
  if (r == 0) {
    for (int k = 1; k < n && k < 4; k++) CHECK(c[(size_t)k * 512 + 1] == 100 + (uint64_t)k);
    CHECK_OK(loom_free(c));
  }
  CHECK_OK(loom_barrier());

  /* 5. */
  g_shared = g;
  loom_stats_t t0 = stats();
  pthread_t th[2];
  for (int t = 0; t < 2; t++) CHECK(pthread_create(&th[t], NULL, taker, NULL) == 0);
  for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
  loom_stats_t t1 = stats();
  CHECK(t1.locks - t0.locks == 100);
  CHECK(t1.unlocks - t0.unlocks == 100);
  CHECK_OK(loom_barrier());
  CHECK(g[4] == (uint64_t)n * 100);
  CHECK_OK(loom_stats_reset());
  loom_stats_t t2 = stats();
  CHECK(t2.locks == 0 && t2.unlocks == 0);
  CHECK_OK(loom_barrier());
  return mr_finish("mr_hostlock");
}
