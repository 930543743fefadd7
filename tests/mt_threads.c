/* mt_threads: several application threads per rank (mt_threads [T [rounds]],
 * T threads per rank, default 2).  Every thread of every rank:
 *
 *   faults    in each round one rank's threads write every word of a
 *             cyclic-homed array (each thread its share of the pages), then
 *             every thread of every rank reads all of it in its own random
 *             page order: threads of one rank fault on the same pages at
 *             once, each page is fetched once, and every word is the
 *             round's value;
 *   bytes     every thread of every rank writes its own bytes of the same
 *             pages (byte i belongs to global thread i mod N*T), all at
 *             once; after the barrier every byte is its writer's value
 *             (several threads share one twin and one diff);
 *   locks     every thread increments counters under Loom locks, and keeps
 *             an invariant across two pages with different homes (y == 3x)
 *             under one lock: Loom locks order the threads of one rank as
 *             well as ranks;
 *   racing    one thread of each rank releases in a loop (lock, unlock)
 *             while another writes a word at a time into its own pages: a
 *             write made during a release is never lost (it reaches the
 *             home by the next release, here the barrier);
 *   merging   (2+ ranks) rank 1 writes the upper half of a page under a
 *             lock, over and over, while rank 0's thread 0 takes and
 *             releases that lock (an acquire that finds the page dirty
 *             merges rank 1's bytes into rank 0's copy) and its thread 1
 *             writes the lower half in whole passes until thread 0 is done:
 *             after the barrier the page is thread 1's last pass and rank
 *             1's last write.  (A byte thread 1 writes between a merge's
 *             read and write of it was lost before merges made the page
 *             read-only; that window is nanoseconds, and this phase does
 *             not catch it reliably.)
 *   stats     the threads' loom_thread_stats_get add up to the rank's
 *             faults, locks and waits for one another (t_rank_wait).
 *
 * Barriers are loom_thread_barrier(T).  Run with 1-4 ranks. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "mr.h"

#define PAGE 4096
#define WORDS (PAGE / 8)

static int T = 2, ROUNDS = 6, N, R;
static uint64_t* g_arr;  /* faults: PAGES pages */
static uint8_t* g_bytes; /* bytes: BPAGES pages */
static uint64_t* g_count; /* locks: counters on one page */
static uint64_t *g_x, *g_y; /* locks: the invariant, on pages homed on different ranks */
static uint64_t* g_race;  /* racing: RPAGES pages per rank */
static uint8_t* g_merge;  /* merging: one page homed on the last rank */
enum { PAGES = 48, BPAGES = 6, COUNTERS = 8, ITERS = 150, RPAGES = 3 };

#define TCHECK(c)                                                                                          \
  do {                                                                                                     \
    if (c) __atomic_fetch_add(&mr_passed, 1, __ATOMIC_RELAXED);                                            \
    else {                                                                                                 \
      __atomic_fetch_add(&mr_failed, 1, __ATOMIC_RELAXED);                                                 \
      fprintf(stderr, "rank %d thread %d: FAIL %s:%d: %s\n", R, tid, __FILE__, __LINE__, #c);             \
    }                                                                                                      \
  } while (0)
#define TOK(e) TCHECK((e) == LOOM_OK)

static uint64_t value(int round, int page, int word) {
  return (uint64_t)round << 40 | (uint64_t)page << 20 | (uint64_t)word | 1ull << 60;
}

static uint64_t rnd(uint64_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void tbar(int tid) {
  loom_status_t s = loom_thread_barrier(T);
  TCHECK(s == LOOM_OK);
}

static uint64_t g_faults_sum, g_locks_sum, g_wait_ns_sum;

static void* body(void* arg) {
  const int tid = (int)(intptr_t)arg, g = R * T + tid, G = N * T;
  uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(g + 1);
  /* faults */
  for (int round = 0; round < ROUNDS; round++) {
    if (round % N == R)
      for (int p = tid; p < PAGES; p += T)
        for (int w = 0; w < WORDS; w++) g_arr[p * WORDS + w] = value(round, p, w);
    tbar(tid);
    int order[PAGES];
    for (int i = 0; i < PAGES; i++) order[i] = i;
    for (int i = PAGES - 1; i > 0; i--) {
      int j = (int)(rnd(&seed) % (uint64_t)(i + 1)), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    int bad = 0;
    for (int i = 0; i < PAGES; i++) {
      const int p = order[i];
      for (int w = 0; w < WORDS; w++) bad += g_arr[p * WORDS + w] != value(round, p, w);
    }
    TCHECK(bad == 0);
    tbar(tid);
  }
  /* bytes */
  for (int round = 0; round < 3; round++) {
    for (int i = g; i < BPAGES * PAGE; i += G) g_bytes[i] = (uint8_t)(round * 31 + i % G + 1);
    tbar(tid);
    int bad = 0;
    for (int i = 0; i < BPAGES * PAGE; i++) bad += g_bytes[i] != (uint8_t)(round * 31 + i % G + 1);
    TCHECK(bad == 0);
    tbar(tid);
  }
  /* locks */
  int broken = 0;
  for (int i = 0; i < ITERS; i++) {
    const int c = (i + g) % COUNTERS;
    TOK(loom_lock((uint32_t)c));
    g_count[c]++;
    TOK(loom_unlock((uint32_t)c));
    TOK(loom_lock(COUNTERS));
    broken += *g_y != 3 * *g_x;
    (*g_x)++;
    *g_y = 3 * *g_x;
    TOK(loom_unlock(COUNTERS));
  }
  TCHECK(broken == 0);
  tbar(tid);
  uint64_t sum = 0;
  for (int c = 0; c < COUNTERS; c++) sum += g_count[c];
  TCHECK(sum == (uint64_t)G * ITERS);
  TCHECK(*g_x == (uint64_t)G * ITERS && *g_y == 3 * *g_x);
  tbar(tid);
  /* racing: thread 0 releases, thread 1 writes its rank's pages a word at a time */
  uint64_t* mine = g_race + (size_t)R * RPAGES * WORDS;
  if (tid == 0) {
    while (!__atomic_load_n(&mine[RPAGES * WORDS - 1], __ATOMIC_RELAXED)) {
      TOK(loom_lock(COUNTERS + 1 + (uint32_t)R));
      TOK(loom_unlock(COUNTERS + 1 + (uint32_t)R));
    }
  } else if (tid == 1) {
    for (int w = 0; w < RPAGES * WORDS; w++) {
      __atomic_store_n(&mine[w], (uint64_t)w + 1 + (uint64_t)R * 1000000, __ATOMIC_RELAXED);
      if (w % 64 == 0) sched_yield();
    }
  }
  tbar(tid);
  int lost = 0;
  for (int r = 0; r < N; r++)
    for (int w = 0; w < RPAGES * WORDS; w++)
      lost += g_race[(size_t)r * RPAGES * WORDS + w] != (uint64_t)w + 1 + (uint64_t)r * 1000000;
  TCHECK(lost == 0);
  if (lost) fprintf(stderr, "rank %d thread %d: %d words written during releases were lost\n", R, tid, lost);
  /* merging */
  enum { MERGES = 200, HALF = PAGE / 2 };
  const uint32_t mlock = COUNTERS + 1 + (uint32_t)N;
  static int merging_done;
  if (N >= 2 && R == 1 && tid == 0) {
    for (int k = 1; k <= MERGES; k++) {
      TOK(loom_lock(mlock));
      memset(g_merge + HALF, k, HALF);
      TOK(loom_unlock(mlock));
    }
  } else if (N >= 2 && R == 0 && tid == 0) {
    for (int k = 0; k < MERGES; k++) {
      TOK(loom_lock(mlock));
      TOK(loom_unlock(mlock));
    }
    __atomic_store_n(&merging_done, 1, __ATOMIC_RELEASE);
  } else if (N >= 2 && R == 0 && tid == 1) {
    int pass = 0;
    do {  /* whole passes, for as long as thread 0 merges */
      pass++;
      for (int i = 0; i < HALF; i++) __atomic_store_n(&g_merge[i], (uint8_t)(pass * 7 + i % 5), __ATOMIC_RELAXED);
    } while (!__atomic_load_n(&merging_done, __ATOMIC_ACQUIRE));
    *(uint32_t*)(void*)(g_x + 1) = (uint32_t)pass;  /* the pass count, for the other ranks */
  }
  tbar(tid);
  if (N >= 2) {
    const int passes = (int)*(uint32_t*)(void*)(g_x + 1);
    int bad = 0;
    for (int i = 0; i < HALF; i++) bad += g_merge[i] != (uint8_t)(passes * 7 + i % 5);
    for (int i = HALF; i < PAGE; i++) bad += g_merge[i] != (uint8_t)MERGES;
    TCHECK(bad == 0);
    if (bad) fprintf(stderr, "rank %d thread %d: %d bytes of the merged page are wrong\n", R, tid, bad);
  }
  /* stats: every fault and lock of the rank is one thread's */
  tbar(tid);
  if (tid == 0) TOK(loom_stats_reset());
  tbar(tid);
  for (int p = tid; p < PAGES; p += T) g_arr[p * WORDS + 1 + R] = 1;  /* write faults (each rank its own word) */
  TOK(loom_lock(COUNTERS));
  TOK(loom_unlock(COUNTERS));
  loom_stats_t ts;
  TOK(loom_thread_stats_get(&ts));
  TCHECK(ts.locks == 1);
  __atomic_fetch_add(&g_faults_sum, ts.read_faults + ts.write_faults, __ATOMIC_RELAXED);
  __atomic_fetch_add(&g_locks_sum, ts.locks, __ATOMIC_RELAXED);
  __atomic_fetch_add(&g_wait_ns_sum, (uint64_t)(ts.t_rank_wait * 1e9 + 0.5), __ATOMIC_RELAXED);
  tbar(tid);
  if (tid == 0) {
    loom_stats_t rs;
    TOK(loom_stats_get(&rs));
    TCHECK(g_locks_sum == rs.locks && g_locks_sum == (uint64_t)T);
    TCHECK(g_faults_sum == rs.read_faults + rs.write_faults);
    /* The threads' waits for one another add up to the rank's (to the ns each was rounded to). */
    const double wait_sum = (double)g_wait_ns_sum * 1e-9;
    TCHECK(wait_sum - rs.t_rank_wait < 1e-9 * T + 1e-12 && rs.t_rank_wait - wait_sum < 1e-9 * T + 1e-12);
    if (!(wait_sum - rs.t_rank_wait < 1e-9 * T + 1e-12 && rs.t_rank_wait - wait_sum < 1e-9 * T + 1e-12))
      fprintf(stderr, "rank %d: threads' rank waits %.9f s, rank's %.9f s\n", R, wait_sum, rs.t_rank_wait);
    if (g_faults_sum != rs.read_faults + rs.write_faults)
      fprintf(stderr, "rank %d: threads' faults %llu, rank's %llu\n", R, (unsigned long long)g_faults_sum,
              (unsigned long long)(rs.read_faults + rs.write_faults));
  }
  tbar(tid);
  return NULL;
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  if (argc > 1) T = atoi(argv[1]);
  if (argc > 2) ROUNDS = atoi(argv[2]);
  N = loom_nranks();
  R = loom_rank();
  const int tid = 0;
  TCHECK(T >= 2 && T <= 64);
  if (T < 2) T = 2;
  TOK(loom_alloc_collective_policy((size_t)PAGES * PAGE, LOOM_HOME_CYCLIC, (void**)&g_arr));
  TOK(loom_alloc_collective_policy((size_t)BPAGES * PAGE, LOOM_HOME_CYCLIC, (void**)&g_bytes));
  TOK(loom_alloc_collective_at(PAGE, N - 1, (void**)&g_count));
  TOK(loom_alloc_collective_at(PAGE, 0, (void**)&g_x));
  TOK(loom_alloc_collective_at(PAGE, N - 1, (void**)&g_y));
  TOK(loom_alloc_collective_policy((size_t)N * RPAGES * PAGE, LOOM_HOME_CYCLIC, (void**)&g_race));
  TOK(loom_alloc_collective_at(PAGE, N - 1, (void**)&g_merge));
  TOK(loom_barrier());
  pthread_t th[64];
  for (int t = 1; t < T; t++) pthread_create(&th[t], NULL, body, (void*)(intptr_t)t);
  body((void*)(intptr_t)0);
  for (int t = 1; t < T; t++) pthread_join(th[t], NULL);
  return mr_finish("mt_threads");
}
