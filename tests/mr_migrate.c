/* Home migration (on by default; ctest also sets LOOM_MIGRATE=1): at a
 * barrier, a page rank 0 homes moves to the one rank that writes it while
 * rank 0 does not (after two intervals of writes: one stray write moves
 * nothing); it stays where it is when its home writes it too, or when a
 * third rank writes it; every rank agrees on every home; the data stays
 * right; a page moves only once (later writers do not pull it back); when
 * ranks race to write (and so to claim) the same pages, nothing any of them
 * wrote is lost, over many rounds.
 *
 * mr_migrate T runs T threads per rank: a rank's writes are its threads'
 * (each page by thread page % T, and part 1's single-writer pages by every
 * thread of the writing rank at once, each at its own word: still one
 * writer rank, so they move); thread 0 makes the MPI calls, every thread
 * checks the data. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "mr.h"

enum { kMaxTestRanks = 496 }; /* part 3 writes word 16 + rank of a page */

/* Part 1's single-writer word of thread t (word 1 with one thread). */
static inline int w1(int t) { return 1 + 64 * t; }

/* thread 0's MPI results, handed to its siblings across a thread barrier */
static int g_homes[32], g_h0[32];
static long g_all;
static uint64_t g_last[kMaxTestRanks];

static void body(int w, int W) {
  (void)w;
  (void)W;
  const int r = loom_rank(), n = loom_nranks();
  const int t = mr_t, T = mr_T;
  CHECK(n <= kMaxTestRanks);
  CHECK(T == 1 || (n <= 56 && T <= 8)); /* w1(t) stays clear of words 8 + rank */
  const int P = 32;
  uint64_t* a = (uint64_t*)mr_walloc((size_t)P * 4096, 0);
#define MINE(p) ((p) % T == t) /* this thread writes page p for its rank */

  /* 1. Pages 0..7: rank n-1 alone writes them (they move to it).  8..15:
   * every rank writes them, the home too (they stay).  16..23: every rank
   * but the home writes them (they move when only one rank does, n == 2;
   * with a third writer they stay).  24..31: rank n-1 writes them, and the
   * home joins in the second interval (they stay). */
  int bad = 0, homes[32], want[32];
  int* h0 = g_h0;
  for (int p = 0; p < P; p++) want[p] = p < 8 ? n - 1 : p >= 16 && p < 24 && n == 2 ? 1 : 0;
  for (int interval = 1; interval <= 3; interval++) {
    if (r == n - 1)
      for (int p = 0; p < 8; p++) a[p * 512 + w1(t)] = 100 + (uint64_t)p;
    for (int p = 8; p < 16; p++)
      if (MINE(p)) a[p * 512 + 8 + r] = 1000 + (uint64_t)(p * 10 + r);
    if (r != 0)
      for (int p = 16; p < 24; p++)
        if (MINE(p)) a[p * 512 + 8 + r] = 2000 + (uint64_t)(p * 10 + r);
    if (r == n - 1 || (r == 0 && interval >= 2))
      for (int p = 24; p < 32; p++)
        if (MINE(p)) a[p * 512 + 8 + r] = 3000 + (uint64_t)(p * 10 + r);
    mr_wbar();
    if (interval == 1) { /* one interval of writes moves nothing */
      bad = 0;
      for (int p = 0; p < P; p++) {
        CHECK_OK(loom_home_of(a + p * 512, &homes[p]));
        bad += homes[p] != 0;
      }
      CHECK(bad == 0);
      mr_wbar();
      if (t == 0) MPI_Barrier(MPI_COMM_WORLD); /* all have looked; not a Loom interval */
      mr_wbar();
    }
  }
  bad = 0;
  for (int p = 0; p < P; p++) {
    CHECK_OK(loom_home_of(a + p * 512, &homes[p]));
    bad += homes[p] != want[p];
  }
  CHECK(bad == 0);
  if (t == 0) {
    for (int p = 0; p < P; p++) h0[p] = homes[p];
    MPI_Bcast(h0, P, MPI_INT, 0, MPI_COMM_WORLD);
  }
  mr_wbar();
  bad = 0;
  for (int p = 0; p < P; p++) bad += homes[p] != h0[p];
  CHECK(bad == 0); /* every rank agrees */
  bad = 0;
  for (int p = 0; p < 8; p++)
    for (int q = 0; q < T; q++) bad += a[p * 512 + w1(q)] != 100 + (uint64_t)p;
  for (int p = 8; p < 16; p++)
    for (int q = 0; q < n; q++) bad += a[p * 512 + 8 + q] != 1000 + (uint64_t)(p * 10 + q);
  for (int p = 16; p < 24; p++)
    for (int q = 1; q < n; q++) bad += a[p * 512 + 8 + q] != 2000 + (uint64_t)(p * 10 + q);
  for (int p = 24; p < 32; p++)
    for (int q = 0; q < n; q += n - 1) bad += a[p * 512 + 8 + q] != 3000 + (uint64_t)(p * 10 + q);
  CHECK(bad == 0);
  mr_wbar();
  if (t == 0) {
    loom_stats_t st;
    CHECK_OK(loom_stats_get(&st));
    long mine = (long)st.migrations;
    MPI_Allreduce(&mine, &g_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(g_all == (n == 2 ? 16 : 8)); /* each page that should move moved, once */
  }
  mr_wbar();

  /* 1b. The old home writes the moved pages, twice in a row: they do not
   * move back. */
  for (int interval = 0; interval < 2; interval++) {
    if (r == 0)
      for (int p = 0; p < P; p++)
        if (MINE(p)) a[p * 512 + 3] = 7 + (uint64_t)p;
    mr_wbar();
  }
  bad = 0;
  for (int p = 0; p < P; p++) {
    int h = -2;
    CHECK_OK(loom_home_of(a + p * 512, &h));
    bad += h != h0[p];
    bad += a[p * 512 + 3] != 7 + (uint64_t)p;
  }
  CHECK(bad == 0);
  mr_wbar();

  /* 2. The new home keeps writing, the old home and the others read. */
  for (int round = 0; round < 5; round++) {
    if (r == n - 1)
      for (int p = 0; p < 8; p++)
        if (MINE(p)) a[p * 512 + 2] = (uint64_t)(round * 100 + p);
    mr_wbar();
    bad = 0;
    for (int p = 0; p < 8; p++) bad += a[p * 512 + 2] != (uint64_t)(round * 100 + p);
    CHECK(bad == 0);
    mr_wbar();
  }

  /* 3. Races: fresh pages homed on rank 0; in every round a random subset of
   * the other ranks writes its own bytes of each page after a random delay,
   * so single-writer migrations and late registrations interleave. */
  uint64_t* b = (uint64_t*)mr_walloc((size_t)P * 4096, 0);
  static int g_writes, g_delay;
  if (t == 0) srand(1234 + (unsigned)r);
  uint64_t latest[kMaxTestRanks] = {0};
  for (int round = 1; round <= 20; round++) {
    if (t == 0) {
      int mask = rand();
      g_writes = r != 0 && ((mask >> (round % 8)) & 1);
      g_delay = rand() % 50;
    }
    mr_wbar();
    const int writes = g_writes;
    struct timespec d = {0, (long)g_delay * 1000 + 3000L * t};
    nanosleep(&d, NULL);
    if (writes)
      for (int p = 0; p < P; p++)
        if (MINE(p)) b[p * 512 + 16 + r] = (uint64_t)(round * 1000 + p);
    mr_wbar();
    /* Every rank learns which round each rank last wrote. */
    if (t == 0) {
      uint64_t mine = writes ? (uint64_t)round : 0;
      MPI_Allgather(&mine, 1, MPI_UINT64_T, g_last, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    }
    mr_wbar();
    for (int q = 0; q < n; q++)
      if (g_last[q]) latest[q] = g_last[q];
    bad = 0;
    for (int p = 0; p < P; p++)
      for (int q = 1; q < n; q++)
        if (latest[q]) bad += b[p * 512 + 16 + q] != latest[q] * 1000 + (uint64_t)p;
    CHECK(bad == 0);
    /* Every rank (and thread) sees the same home for every page. */
    for (int p = 0; p < P; p++) CHECK_OK(loom_home_of(b + p * 512, &homes[p]));
    mr_wbar();
    if (t == 0) {
      for (int p = 0; p < P; p++) g_homes[p] = homes[p];
      MPI_Bcast(g_homes, P, MPI_INT, 0, MPI_COMM_WORLD);
    }
    mr_wbar();
    bad = 0;
    for (int p = 0; p < P; p++) bad += homes[p] != g_homes[p];
    CHECK(bad == 0);
    mr_wbar();
  }
  mr_wfree(b);
  mr_wfree(a);
#undef MINE
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), body);
  return mr_finish("mr_migrate");
}
