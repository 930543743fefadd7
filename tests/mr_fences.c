/* Fences and ordered atomics (loom_release, loom_acquire, their _range
 * forms, the _explicit atomics) and loom_lock_alloc.
 *
 * The shape checked is message passing through a flag: a writer fills data
 * pages, releases, sets a flag with an atomic; every other rank waits for
 * the flag with relaxed atomic loads, acquires, and must read the new data,
 * never a copy it cached in an earlier round.  Without the release or the
 * acquire, HLRC and the eager protocols all keep stale copies here (a
 * reader caches the data every round), so each check fails when the fence
 * does nothing.  The writer changes every round, so pages have many
 * writers; the flag sits apart from the data in one variant and on the
 * data's own page in another (SPLASH keeps flags inside the data).
 *
 * mr_fences T runs T threads per rank: the workers are ranks x threads
 * (worker rank*T + t); readers that share the writer's rank, and several
 * threads of one rank acquiring at once, must see the data too. */
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "mr.h"

enum { kRounds = 30, kWords = 3 * 4096 / 8 };

static __thread int me; /* this worker */
static __thread int n; /* the number of workers (each worker sets its own copy) */

/* Relaxed loads until *flag >= want (spins briefly, then yields). */
static void wait_for(uint64_t *flag, uint64_t want) {
  uint64_t v = 0;
  for (long i = 0;; i++) {
    CHECK_OK(loom_atomic_load(flag, &v));
    if (v >= want) return;
    if (i > 64) sched_yield();
  }
}

static uint64_t value(int round, int i) { return (uint64_t)round * 1000003u + (uint64_t)i * 7u + 1; }

/* mode 0: loom_release + relaxed store / relaxed loads + loom_acquire;
 * mode 1: store_explicit(RELEASE) / load_explicit(ACQUIRE);
 * mode 2: the _range fences over the data only;
 * mode 3: fetch_add_explicit(ACQ_REL) on a flag inside the data's page. */
static void message_passing(int mode) {
  uint64_t *data = mr_walloc(kWords * 8 + 4096, -1), *flags = mr_walloc(4096, -1);
  uint64_t *flag = mode == 3 ? &data[kWords + 1] : &flags[0];
  uint64_t *ack = &flags[8];
  mr_wbar();
  long stale = 0;
  for (int r = 1; r <= kRounds; r++) {
    int writer = r % n;
    if (me == writer) {
      /* Every reader is done with round r-1 before the data changes. */
      wait_for(ack, (uint64_t)(n - 1) * (uint64_t)(r - 1));
      if (mode == 2) CHECK_OK(loom_acquire_range(ack, 8));
      else CHECK_OK(loom_acquire());
      for (int i = 0; i < kWords; i++) data[i] = value(r, i);
      switch (mode) {
        case 0:
          CHECK_OK(loom_release());
          CHECK_OK(loom_atomic_store(flag, (uint64_t)r));
          break;
        case 1: CHECK_OK(loom_atomic_store_explicit(flag, (uint64_t)r, LOOM_RELEASE)); break;
        case 2:
          CHECK_OK(loom_release_range(data, kWords * 8));
          CHECK_OK(loom_atomic_store(flag, (uint64_t)r));
          break;
        case 3: CHECK_OK(loom_atomic_fetch_add_explicit(flag, 1, NULL, LOOM_ACQ_REL)); break;
      }
    } else {
      if (mode == 1) {
        uint64_t v = 0;
        for (long i = 0;; i++) {
          CHECK_OK(loom_atomic_load_explicit(flag, &v, LOOM_ACQUIRE));
          if (v >= (uint64_t)r) break;
          if (i > 64) sched_yield();
        }
      } else {
        wait_for(flag, (uint64_t)r);
        if (mode == 2) CHECK_OK(loom_acquire_range(data, kWords * 8));
        else CHECK_OK(loom_acquire());
      }
      for (int i = 0; i < kWords; i++) stale += data[i] != value(r, i);
      CHECK_OK(loom_atomic_fetch_add_explicit(ack, 1, NULL, LOOM_RELEASE));
    }
  }
  if (stale) fprintf(stderr, "worker %d: mode %d: %ld stale words\n", me, mode, stale);
  CHECK(stale == 0);
  mr_wfree(flags);
  mr_wfree(data);
}

/* A range acquire keeps the copies outside the range: a page cached before
 * it is read again without a fetch (the statistics count fetches; one
 * thread per rank checks, so that the rank's count is its own). */
static void range_keeps_others(void) {
  uint64_t *a = mr_walloc(4096, 0), *b = mr_walloc(4096, 0);
  if (me == 0) a[0] = b[0] = 5;
  mr_wbar();
  if (loom_rank() != 0 && mr_t == 0) {
    CHECK(a[0] == 5 && b[0] == 5);  /* both cached now */
    loom_stats_t before, after;
    CHECK_OK(loom_stats_get(&before));
    CHECK_OK(loom_acquire_range(a, 8));
    CHECK(b[0] == 5);
    CHECK_OK(loom_stats_get(&after));
    CHECK(after.pages_fetched == before.pages_fetched);
  }
  mr_wfree(b);
  mr_wfree(a);
}

static void lock_ids(void) {
  uint64_t *all = mr_walloc((size_t)n * 8, -1);
  uint32_t first = 0;
  CHECK_OK(loom_lock_alloc(3, &first));
  /* Every worker got its own three ids: gather and compare. */
  all[me] = first;
  mr_wbar();
  int distinct = 1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (i != j && all[i] < all[j] + 3 && all[j] < all[i] + 3) distinct = 0;
  CHECK(distinct);
  for (int i = 0; i < n; i++) CHECK(all[i] % 3 == 0 && all[i] < 3u * (uint32_t)n);
  CHECK_OK(loom_lock(first + 2));
  CHECK_OK(loom_unlock(first + 2));
  CHECK_ERR(loom_lock_alloc(0, &first), LOOM_ERR_INVALID);
  CHECK_ERR(loom_lock_alloc(1, NULL), LOOM_ERR_INVALID);
  mr_wbar();
  if (me == 0) CHECK_ERR(loom_lock_alloc(1u << 30, &first), LOOM_ERR_NO_MEMORY);
  mr_wfree(all);
}

static void bad_input(void) {
  uint64_t *w = mr_walloc(4096, -1), v = 0, local = 0;
  CHECK_ERR(loom_atomic_load_explicit(w, &v, (loom_order_t)9), LOOM_ERR_INVALID);
  CHECK_ERR(loom_atomic_store_explicit(&local, 1, LOOM_RELEASE), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_acquire_range(&local, 8), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_release_range(&local, 8), LOOM_ERR_BAD_POINTER);
  CHECK_OK(loom_release_range(w, 0));
  mr_wfree(w);
}

static void fences(int w, int W) {
  me = w;
  n = W;
  for (int mode = 0; mode < 4; mode++) message_passing(mode);
  range_keeps_others();
  lock_ids();
  bad_input();
}

int main(int argc, char **argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), fences);
  return mr_finish("mr_fences");
}
