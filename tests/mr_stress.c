/* A randomized data-race-free stress: every rank draws the same pseudo-random
 * schedule from one seed, so each rank knows what every other rank writes
 * and can check every value it reads.  Each round:
 *  - phase A: every word of a shared array gets an owner (or none) at random;
 *    owners write a value that names the round and the word; after a
 *    barrier every rank checks the whole array (words without an owner keep
 *    their old value);
 *  - phase B: bytes of a small region get owners at random (false sharing
 *    inside words and pages); checked after a barrier;
 *  - phase C: every rank adds random amounts to random counters, each under
 *    the counter's lock (counters spread over pages and locks); after a
 *    barrier the totals equal the sums of every rank's schedule;
 *  - some rounds free and re-allocate the array with a random home policy
 *    and protocol, so blocks change homes and protocols between lives.
 * LOOM_STRESS_SEED and LOOM_STRESS_ROUNDS change the schedule.
 * LOOM_STRESS_THREADS=T (or mr_stress T) runs T threads per rank: the owners are then the
 * N*T workers (worker rank*T + t), barriers are loom_thread_barrier, and
 * thread 0 of each rank frees and allocates between the threads' barriers. */
#include <stdint.h>
#include <string.h>

#include "mr.h"

static uint64_t rng_next(uint64_t* s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

enum { kWords = 24 * 512, kBytes = 3 * 4096, kCounters = 96, kLocks = 8, kIncs = 40 };

static int T = 1, rounds = 16;
static uint64_t seed = 0x10c0ffee;
static uint64_t* words;
static uint8_t* bytes;
static uint64_t* counters;

/* One worker: thread t of this rank. */
static void stress(int r, int n) { /* this worker, the workers */
  uint64_t* expect_w = (uint64_t*)calloc(kWords, sizeof *expect_w);
  uint8_t* expect_b = (uint8_t*)calloc(kBytes, 1);
  uint64_t* expect_c = (uint64_t*)calloc(kCounters, sizeof *expect_c);
  /* Counter i lives at word i * 128 (4 counters per page) and is guarded by lock i % kLocks. */

  for (int round = 0; round < rounds; round++) {
    uint64_t s = seed ^ ((uint64_t)round * 0x51ed2701);
    /* Some rounds give the array a new life. */
    if (round > 0 && rng_next(&s) % 4 == 0) {
      const loom_home_policy_t pol = (loom_home_policy_t)(rng_next(&s) % 3);
      const loom_protocol_t proto = (loom_protocol_t)(rng_next(&s) % 3);
      const int by_policy = rng_next(&s) % 2;
      if (T > 1) mr_wbar();
      if (mr_t == 0) {
        CHECK_OK(loom_free_collective(words));
        words = NULL;
        if (by_policy) CHECK_OK(loom_alloc_collective_policy(kWords * 8, pol, (void**)&words));
        else CHECK_OK(loom_alloc_collective_protocol(kWords * 8, proto, (void**)&words));
      }
      if (T > 1) mr_wbar();
      memset(expect_w, 0, kWords * sizeof *expect_w);
      if (!words) break;
    }
    /* Phase A: word owners, in runs of random length. */
    for (int i = 0; i < kWords;) {
      int len = 1 + (int)(rng_next(&s) % 700);
      int owner = (int)(rng_next(&s) % (uint64_t)(n + 1)) - 1; /* -1: nobody writes */
      for (int k = i; k < kWords && k < i + len; k++) {
        if (owner < 0) continue;
        uint64_t v = ((uint64_t)round << 32) ^ ((uint64_t)k * 0x9e37) ^ (uint64_t)owner;
        expect_w[k] = v;
        if (owner == r) words[k] = v;
      }
      i += len;
    }
    mr_wbar();
    {
      int bad = 0;
      for (int k = 0; k < kWords; k++) bad += words[k] != expect_w[k];
      if (bad) fprintf(stderr, "rank %d round %d: %d words wrong\n", r, round, bad);
      CHECK(bad == 0);
    }
    /* Phase B: byte owners. */
    for (int i = 0; i < kBytes; i++) {
      int owner = (int)(rng_next(&s) % (uint64_t)(n + 1)) - 1;
      if (owner < 0) continue;
      uint8_t v = (uint8_t)(rng_next(&s) | 1);
      expect_b[i] = v;
      if (owner == r) bytes[i] = v;
    }
    mr_wbar();
    {
      int bad = 0, first = -1, last = -1;
      for (int i = 0; i < kBytes; i++)
        if (bytes[i] != expect_b[i]) {
          bad++;
          if (first < 0) first = i;
          last = i;
        }
      if (bad)
        fprintf(stderr, "worker %d round %d: %d bytes wrong in [%d, %d] (first: %u, expected %u)\n", r, round, bad,
                first, last, bytes[first], expect_b[first]);
      CHECK(bad == 0);
    }
    /* Phase C: increments under locks, each rank its own random schedule. */
    for (int q = 0; q < n; q++) {
      uint64_t t = s ^ ((uint64_t)q << 48);
      for (int k = 0; k < kIncs; k++) {
        int c = (int)(rng_next(&t) % kCounters);
        uint64_t add = 1 + rng_next(&t) % 1000;
        expect_c[c] += add;
        if (q == r) {
          CHECK_OK(loom_lock((uint32_t)(c % kLocks)));
          counters[c * 128] += add;
          CHECK_OK(loom_unlock((uint32_t)(c % kLocks)));
        }
      }
    }
    mr_wbar();
    {
      int bad = 0;
      for (int c = 0; c < kCounters; c++)
        if (counters[c * 128] != expect_c[c]) {
          if (!bad++)
            fprintf(stderr, "worker %d round %d: counter %d is %llu, expected %llu\n", r, round, c,
                    (unsigned long long)counters[c * 128], (unsigned long long)expect_c[c]);
        }
      CHECK(bad == 0);
    }
    mr_wbar();
  }
  free(expect_w);
  free(expect_b);
  free(expect_c);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const char* es = getenv("LOOM_STRESS_SEED");
  const char* er = getenv("LOOM_STRESS_ROUNDS");
  const char* et = getenv("LOOM_STRESS_THREADS");
  if (es) seed = strtoull(es, NULL, 0);
  if (er) rounds = atoi(er);
  if (et) T = atoi(et);
  if (argc > 1) T = atoi(argv[1]); /* mr_stress T: the same */
  CHECK(T >= 1 && T <= 64);
  if (T < 1 || T > 64) T = 1;
  CHECK_OK(loom_alloc_collective(kWords * 8, (void**)&words));
  CHECK_OK(loom_alloc_collective(kBytes, (void**)&bytes));
  CHECK_OK(loom_alloc_collective_policy(kCounters * 512 * 8 / 4, LOOM_HOME_CYCLIC, (void**)&counters));
  mr_workers(T, stress);
  /* One thread never waits for another of its rank: no wait is counted. */
  loom_stats_t st;
  CHECK_OK(loom_stats_get(&st));
  if (T == 1) CHECK(st.t_rank_wait == 0);
  return mr_finish("mr_stress");
}
