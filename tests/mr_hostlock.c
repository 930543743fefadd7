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
 *    rank's statistics, and a reset forgets them.
 *
 * mr_hostlock T runs T threads per rank: parts 1-3 are played by every
 * worker (rank * T + thread), siblings of one rank included; part 4's
 * learner is a rank's last thread (so what one thread acquired its
 * siblings read after the thread barrier), part 5 runs on thread 0 while
 * the siblings wait. */
#include <string.h>
#include <time.h>

#include "mr.h"

static loom_stats_t stats(void) {
  loom_stats_t s;
  CHECK_OK(loom_stats_get(&s));
  return s;
}

static loom_stats_t thread_stats(void) {
  loom_stats_t s;
  CHECK_OK(loom_thread_stats_get(&s));
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

static void body(int w, int W) {
  const int r = loom_rank(), n = loom_nranks();
  const int t = mr_t, T = mr_T;
  /* [0] counter, [1] value, [2] block address, [3] block's round, [4] part 5's counter */
  volatile uint64_t* g = (volatile uint64_t*)mr_walloc(4096, -1);

  /* 1. */
  enum { K = 200 };
  for (int i = 0; i < K; i++) {
    CHECK_OK(loom_lock(1));
    const uint64_t x = g[0];
    if (i % 16 == 0) sched_yield();
    g[0] = x + 1;
    CHECK_OK(loom_unlock(1));
  }
  mr_wbar();
  CHECK(g[0] == (uint64_t)W * K);

  /* 2. */
  loom_stats_t s0 = thread_stats();
  if (w == 0) {
    CHECK_OK(loom_lock(2));
    mr_wbar();
    pause_us(150000);
    g[1] = 4242;
    CHECK_OK(loom_unlock(2));
  } else {
    mr_wbar();
    CHECK_OK(loom_lock(2));
    CHECK(g[1] == 4242);
    CHECK_OK(loom_unlock(2));
    loom_stats_t s1 = thread_stats();
    CHECK(s1.locks == s0.locks + 1);
    CHECK(s1.t_lock - s0.t_lock > 0.05); /* it waited at least till worker 0's pause ended, less the barrier's exit */
  }
  mr_wbar();

  /* 3. */
  int got = -1;
  if (w == 0) {
    CHECK_OK(loom_lock(3));
    CHECK_OK(loom_trylock(3, &got));
    CHECK(got == 0); /* no recursion */
  }
  mr_wbar();
  if (w != 0) {
    CHECK_OK(loom_trylock(3, &got));
    CHECK(got == 0); /* held, by a sibling thread too */
  }
  mr_wbar();
  if (w == 0) CHECK_OK(loom_unlock(3));
  mr_wbar();
  for (int k = 0; k < W; k++) {
    if (k == w) {
      CHECK_OK(loom_trylock(3, &got));
      CHECK(got == 1);
      if (got) CHECK_OK(loom_unlock(3));
    }
    mr_wbar();
  }

  /* 4. */
  enum { B = 4 * 4096 };
  static uint64_t* b; /* rank 0's thread 0 */
  static uint64_t* c; /* per rank: its learner's view, read by its siblings after a thread barrier */
  const int learner = t == T - 1;
  if (r == 0 && t == 0) {
    CHECK_OK(loom_alloc(B, (void**)&b));
    memset(b, 7, B);
    CHECK_OK(loom_lock(4));
    g[2] = (uint64_t)(uintptr_t)b;
    g[3] = 1;
    CHECK_OK(loom_unlock(4));
  }
  mr_wbar();
  uint64_t* bb = (uint64_t*)(uintptr_t)g[2];
  long bad = 0;
  for (int i = 0; i < B / 8; i++) bad += bb[i] != 0x0707070707070707ull;
  CHECK(bad == 0); /* every thread of every rank maps or copies the block now */
  mr_wbar();
  if (r == 0) {
    if (t == 0) {
      CHECK_OK(loom_free(b));
      CHECK_OK(loom_alloc(B, (void**)&c));
      CHECK_OK(loom_lock(4));
      g[2] = (uint64_t)(uintptr_t)c;
      g[3] = 2;
      CHECK_OK(loom_unlock(4));
    }
  } else if (learner) {
    uint64_t* seen_c = NULL;
    for (int seen = 0; !seen;) {
      CHECK_OK(loom_lock(4));
      seen = g[3] == 2;
      seen_c = (uint64_t*)(uintptr_t)g[2];
      CHECK_OK(loom_unlock(4));
      if (!seen) sched_yield();
    }
    c = seen_c;
  }
  mr_wbar(); /* rank 0's c is set for its siblings too */
  if (r != 0) {
    if (learner) {
      /* The rank's own page of the new block (first fit gives rank 0 the
       * old block's pages back: this rank has them mapped or cached). */
      uint64_t* mine = c + (size_t)(r % 4) * 512;
      loom_stats_t f0 = thread_stats();
      mine[1] = 100 + (uint64_t)r;
      loom_stats_t f1 = thread_stats();
      if (c == bb) CHECK(f1.read_faults + f1.write_faults > f0.read_faults + f0.write_faults);
      CHECK_OK(loom_lock(4));
      CHECK_OK(loom_unlock(4));
    }
  }
  mr_wbar();
  if (r == 0) {
    for (int k = 1; k < n && k < 4; k++) CHECK(c[(size_t)k * 512 + 1] == 100 + (uint64_t)k);
    mr_wbar();
    if (t == 0) CHECK_OK(loom_free(c));
  } else {
    mr_wbar();
  }
  mr_wbar();

  /* 5. */
  if (t == 0) {
    g_shared = g;
    loom_stats_t t0 = stats();
    pthread_t th[2];
    for (int k = 0; k < 2; k++) CHECK(pthread_create(&th[k], NULL, taker, NULL) == 0);
    for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
    loom_stats_t t1 = stats();
    CHECK(t1.locks - t0.locks == 100);
    CHECK(t1.unlocks - t0.unlocks == 100);
  }
  mr_wbar();
  CHECK(g[4] == (uint64_t)n * 100);
  mr_wbar();
  if (t == 0) {
    CHECK_OK(loom_stats_reset());
    loom_stats_t t2 = stats();
    CHECK(t2.locks == 0 && t2.unlocks == 0);
  }
  mr_wbar();
  mr_wfree((void*)g);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), body);
  return mr_finish("mr_hostlock");
}
