/* Home migration (on by default; ctest also sets LOOM_MIGRATE=1): at a
 * barrier, a page rank 0 homes moves to the one rank that writes it while
 * rank 0 does not (after two intervals of writes: one stray write moves
 * nothing); it stays where it is when its home writes it too, or when a
 * third rank writes it; every rank agrees on every home; the data stays
 * right; a page moves only once (later writers do not pull it back); when
 * ranks race to write (and so to claim) the same pages, nothing any of them
 * wrote is lost, over many rounds. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "mr.h"

enum { kMaxTestRanks = 496 }; /* part 3 writes word 16 + rank of a page */

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  CHECK(loom_nranks() <= kMaxTestRanks);
  const int r = loom_rank(), n = loom_nranks();
  const int P = 32;
  uint64_t* a = NULL;
  CHECK_OK(loom_alloc_collective_at((size_t)P * 4096, 0, (void**)&a));

  /* 1. Pages 0..7: rank n-1 alone writes them (they move to it).  8..15:
   * every rank writes them, the home too (they stay).  16..23: every rank
   * but the home writes them (they move when only one rank does, n == 2;
   * with a third writer they stay).  24..31: rank n-1 writes them, and the
   * home joins in the second interval (they stay). */
  int bad = 0, homes[32], h0[32], want[32];
  for (int p = 0; p < P; p++) want[p] = p < 8 ? n - 1 : p >= 16 && p < 24 && n == 2 ? 1 : 0;
  for (int interval = 1; interval <= 3; interval++) {
    if (r == n - 1)
      for (int p = 0; p < 8; p++) a[p * 512 + 1] = 100 + (uint64_t)p;
    for (int p = 8; p < 16; p++) a[p * 512 + 8 + r] = 1000 + (uint64_t)(p * 10 + r);
    if (r != 0)
      for (int p = 16; p < 24; p++) a[p * 512 + 8 + r] = 2000 + (uint64_t)(p * 10 + r);
    if (r == n - 1 || (r == 0 && interval >= 2))
      for (int p = 24; p < 32; p++) a[p * 512 + 8 + r] = 3000 + (uint64_t)(p * 10 + r);
    CHECK_OK(loom_barrier());
    if (interval == 1) { /* one interval of writes moves nothing */
      bad = 0;
      for (int p = 0; p < P; p++) {
        CHECK_OK(loom_home_of(a + p * 512, &homes[p]));
        bad += homes[p] != 0;
      }
      CHECK(bad == 0);
      MPI_Barrier(MPI_COMM_WORLD); /* all have looked; not a Loom interval */
    }
  }
  bad = 0;
  for (int p = 0; p < P; p++) {
    CHECK_OK(loom_home_of(a + p * 512, &homes[p]));
    bad += homes[p] != want[p];
    h0[p] = homes[p];
  }
  CHECK(bad == 0);
  MPI_Bcast(h0, P, MPI_INT, 0, MPI_COMM_WORLD);
  bad = 0;
  for (int p = 0; p < P; p++) bad += homes[p] != h0[p];
  CHECK(bad == 0); /* every rank agrees */
  bad = 0;
  for (int p = 0; p < 8; p++) bad += a[p * 512 + 1] != 100 + (uint64_t)p;
  for (int p = 8; p < 16; p++)
    for (int q = 0; q < n; q++) bad += a[p * 512 + 8 + q] != 1000 + (uint64_t)(p * 10 + q);
  for (int p = 16; p < 24; p++)
    for (int q = 1; q < n; q++) bad += a[p * 512 + 8 + q] != 2000 + (uint64_t)(p * 10 + q);
  for (int p = 24; p < 32; p++)
    for (int q = 0; q < n; q += n - 1) bad += a[p * 512 + 8 + q] != 3000 + (uint64_t)(p * 10 + q);
  CHECK(bad == 0);
  loom_stats_t st;
  CHECK_OK(loom_stats_get(&st));
  long mine = (long)st.migrations, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(all == (n == 2 ? 16 : 8)); /* each page that should move moved, once */
  CHECK_OK(loom_barrier());

  /* 1b. The old home writes the moved pages, twice in a row: they do not
   * move back. */
  for (int interval = 0; interval < 2; interval++) {
    if (r == 0)
      for (int p = 0; p < P; p++) a[p * 512 + 3] = 7 + (uint64_t)p;
    CHECK_OK(loom_barrier());
  }
  bad = 0;
  for (int p = 0; p < P; p++) {
    int h = -2;
    CHECK_OK(loom_home_of(a + p * 512, &h));
    bad += h != h0[p];
    bad += a[p * 512 + 3] != 7 + (uint64_t)p;
  }
  CHECK(bad == 0);
  CHECK_OK(loom_barrier());

  /* 2. The new home keeps writing, the old home and the others read. */
  for (int round = 0; round < 5; round++) {
    if (r == n - 1)
      for (int p = 0; p < 8; p++) a[p * 512 + 2] = (uint64_t)(round * 100 + p);
    CHECK_OK(loom_barrier());
    bad = 0;
    for (int p = 0; p < 8; p++) bad += a[p * 512 + 2] != (uint64_t)(round * 100 + p);
    CHECK(bad == 0);
    CHECK_OK(loom_barrier());
  }

  /* 3. Races: fresh pages homed on rank 0; in every round a random subset of
   * the other ranks writes its own bytes of each page after a random delay,
   * so single-writer migrations and late registrations interleave. */
  uint64_t* b = NULL;
  CHECK_OK(loom_alloc_collective_at((size_t)P * 4096, 0, (void**)&b));
  srand(1234 + (unsigned)r);
  for (int round = 1; round <= 20; round++) {
    int mask = rand();
    int writes = r != 0 && ((mask >> (round % 8)) & 1);
    struct timespec d = {0, (long)(rand() % 50) * 1000};
    nanosleep(&d, NULL);
    if (writes)
      for (int p = 0; p < P; p++) b[p * 512 + 16 + r] = (uint64_t)(round * 1000 + p);
    uint64_t mine = writes ? (uint64_t)round : 0, last[kMaxTestRanks];
    /* Every rank learns which round each rank last wrote. */
    MPI_Allgather(&mine, 1, MPI_UINT64_T, last, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    CHECK_OK(loom_barrier());
    static uint64_t latest[kMaxTestRanks];
    for (int q = 0; q < n; q++)
      if (last[q]) latest[q] = last[q];
    bad = 0;
    for (int p = 0; p < P; p++)
      for (int q = 1; q < n; q++)
        if (latest[q]) bad += b[p * 512 + 16 + q] != latest[q] * 1000 + (uint64_t)p;
    CHECK(bad == 0);
    /* Every rank sees the same home for every page. */
    for (int p = 0; p < P; p++) CHECK_OK(loom_home_of(b + p * 512, &homes[p]));
    for (int p = 0; p < P; p++) h0[p] = homes[p];
    MPI_Bcast(h0, P, MPI_INT, 0, MPI_COMM_WORLD);
    bad = 0;
    for (int p = 0; p < P; p++) bad += homes[p] != h0[p];
    CHECK(bad == 0);
    CHECK_OK(loom_barrier());
  }
  return mr_finish("mr_migrate");
}
