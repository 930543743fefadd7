/* Adaptive protocol per page (LOOM_ADAPT, on by default): pages written once
 * by their home and then only read under a lock turn eager (erc-invalidate)
 * at the next barrier, since every lock acquire dropped them for nothing;
 * a page every lock holder changes (migratory) stays lazy; after the switch
 * the pages stay coherent: writes under the lock by their home (untracked,
 * then trapped once a rank joins) and by other ranks (diffs and notices) are
 * seen by every later holder of the lock.
 *
 * mr_adapt T runs T threads per rank: the turns and the rounds go round the
 * workers (rank * T + thread), so the lock also passes between sibling
 * threads; thread 0 makes the MPI calls. */
#include <sched.h>
#include <stdint.h>

#include "mr.h"

enum { P = 12, kReads = 12, kRounds = 30 };

/* Every rank's eager pages, summed (thread 0 calls MPI; every thread gets it). */
static uint64_t g_eager;
static uint64_t eager_pages(void) {
  mr_rbar();
  if (mr_t == 0) {
    loom_stats_t st;
    loom_stats_get(&st);
    uint64_t mine = st.pages_eager;
    MPI_Allreduce(&mine, &g_eager, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  }
  mr_rbar();
  const uint64_t all = g_eager;
  mr_rbar(); /* every thread read it before the next call writes it */
  return all;
}

static void body(int w, int W) {
  const int r = loom_rank(), n = loom_nranks();
  uint64_t* a = (uint64_t*)mr_walloc((size_t)P * 4096, 0);
  uint64_t* counter = (uint64_t*)mr_walloc(4096, 0);
  uint64_t* turn = (uint64_t*)mr_walloc(4096, 0);
  const uint32_t lock = 3;
  if (r == 0 && mr_t == 0)
    for (int p = 0; p < P; p++) a[p * 512] = a[p * 512 + 1] = (uint64_t)p; /* the home writes them once */
  mr_wbar();
  CHECK(eager_pages() == 0);

  /* Read under the lock, the ranks taking turns (an atomic word says
   * whose), so that the counter page has changed at every acquire. */
  int bad = 0;
  for (int i = 0; i < kReads; i++) {
    uint64_t t = 0;
    for (;;) {
      CHECK_OK(loom_atomic_load(turn, &t));
      if ((int)(t % (uint64_t)W) == w) break;
      sched_yield();
    }
    CHECK_OK(loom_lock(lock));
    counter[0]++;
    for (int p = 0; p < P; p++) bad += a[p * 512] != (uint64_t)p || a[p * 512 + 1] != (uint64_t)p;
    CHECK_OK(loom_unlock(lock));
    CHECK_OK(loom_atomic_fetch_add(turn, 1, NULL));
  }
  CHECK(bad == 0);
  mr_wbar(); /* the switch */
  const uint64_t eager0 = eager_pages();
  if (n > 1) CHECK(eager0 == P); /* the read pages, not the counter */
  if (n > 1 && eager0 != P) fprintf(stderr, "rank %d: %llu eager pages after the switch, want %d\n", r, (unsigned long long)eager0, P);
  CHECK(counter[0] == (uint64_t)W * kReads);

  /* After the switch: in round k the lock holder with k % n == its rank
   * writes page k % P and says so in the counter page; every holder checks
   * that the page the counter names holds what the counter says. */
  bad = 0;
  int done = 0;
  while (done < kRounds) {
    CHECK_OK(loom_lock(lock));
    const uint64_t k = counter[1];
    if (k > 0) {
      const uint64_t p = counter[2];
      bad += a[p * 512] != 1000 + k || a[p * 512 + 1] != 1000 + k;
    }
    if (k < (uint64_t)kRounds * W && (int)(k % (uint64_t)W) == w) {
      const uint64_t next = k + 1, p = next % P;
      a[p * 512] = a[p * 512 + 1] = 1000 + next;
      counter[1] = next;
      counter[2] = p;
      done++;
    } else if (k >= (uint64_t)kRounds * W) {
      done = kRounds;
    }
    CHECK_OK(loom_unlock(lock));
  }
  CHECK(bad == 0);
  mr_wbar();
  CHECK(counter[1] == (uint64_t)kRounds * W);
  /* Every page holds its last write (the highest round k with k % P == p). */
  bad = 0;
  for (int p = 0; p < P; p++) {
    uint64_t last = 0;
    for (uint64_t k = 1; k <= (uint64_t)kRounds * W; k++)
      if (k % P == (uint64_t)p) last = k;
    bad += last ? a[p * 512] != 1000 + last : a[p * 512] != (uint64_t)p;
  }
  CHECK(bad == 0);
  /* A page switches once and stays; the counter page may have turned too:
   * ranks waiting for their turn took the lock without changing it. */
  const uint64_t eager = eager_pages();
  if (n > 1) CHECK(eager >= P && eager <= P + 1);
  mr_wfree(turn);
  mr_wfree(counter);
  mr_wfree(a);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), body);
  return mr_finish("mr_adapt");
}
