/* Adaptive protocol per page (LOOM_ADAPT, on by default): pages written once
 * by their home and then only read under a lock turn eager (erc-invalidate)
 * at the next barrier, since every lock acquire dropped them for nothing;
 * a page every lock holder changes (migratory) stays lazy; after the switch
 * the pages stay coherent: writes under the lock by their home (untracked,
 * then trapped once a rank joins) and by other ranks (diffs and notices) are
 * seen by every later holder of the lock. */
#include <sched.h>
#include <stdint.h>

#include "mr.h"

enum { P = 12, kReads = 12, kRounds = 30 };

static uint64_t eager_pages(void) {
  loom_stats_t st;
  loom_stats_get(&st);
  uint64_t mine = st.pages_eager, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();
  uint64_t *a = NULL, *counter = NULL, *turn = NULL;
  CHECK_OK(loom_alloc_collective_at((size_t)P * 4096, 0, (void**)&a));
  CHECK_OK(loom_alloc_collective_at(4096, 0, (void**)&counter));
  CHECK_OK(loom_alloc_collective_at(4096, 0, (void**)&turn));
  const uint32_t lock = 3;
  if (r == 0)
    for (int p = 0; p < P; p++) a[p * 512] = a[p * 512 + 1] = (uint64_t)p; /* the home writes them once */
  CHECK_OK(loom_barrier());
  CHECK(eager_pages() == 0);

  /* Read under the lock, the ranks taking turns (an atomic word says
   * whose), so that the counter page has changed at every acquire. */
  int bad = 0;
  for (int i = 0; i < kReads; i++) {
    uint64_t t = 0;
    for (;;) {
      CHECK_OK(loom_atomic_load(turn, &t));
      if ((int)(t % (uint64_t)n) == r) break;
      sched_yield();
    }
    CHECK_OK(loom_lock(lock));
    counter[0]++;
    for (int p = 0; p < P; p++) bad += a[p * 512] != (uint64_t)p || a[p * 512 + 1] != (uint64_t)p;
    CHECK_OK(loom_unlock(lock));
    CHECK_OK(loom_atomic_fetch_add(turn, 1, NULL));
  }
  CHECK(bad == 0);
  CHECK_OK(loom_barrier()); /* the switch */
  if (n > 1) CHECK(eager_pages() == P); /* the read pages, not the counter */
  CHECK(counter[0] == (uint64_t)n * kReads);

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
    if (k < (uint64_t)kRounds * n && (int)(k % (uint64_t)n) == r) {
      const uint64_t next = k + 1, p = next % P;
      a[p * 512] = a[p * 512 + 1] = 1000 + next;
      counter[1] = next;
      counter[2] = p;
      done++;
    } else if (k >= (uint64_t)kRounds * n) {
      done = kRounds;
    }
    CHECK_OK(loom_unlock(lock));
  }
  CHECK(bad == 0);
  CHECK_OK(loom_barrier());
  CHECK(counter[1] == (uint64_t)kRounds * n);
  /* Every page holds its last write (the highest round k with k % P == p). */
  bad = 0;
  for (int p = 0; p < P; p++) {
    uint64_t last = 0;
    for (uint64_t k = 1; k <= (uint64_t)kRounds * n; k++)
      if (k % P == (uint64_t)p) last = k;
    bad += last ? a[p * 512] != 1000 + last : a[p * 512] != (uint64_t)p;
  }
  CHECK(bad == 0);
  /* A page switches once and stays; the counter page may have turned too:
   * ranks waiting for their turn took the lock without changing it. */
  const uint64_t eager = eager_pages();
  if (n > 1) CHECK(eager >= P && eager <= P + 1);
  return mr_finish("mr_adapt");
}
