/* Setup once, read under locks (the coherence issue's litmus shape), in the
 * fork-style start: main (rank 0 alone) fills a table; the workers then
 * take a lock many times and read the whole table under it.  Checked:
 *  - every read sees main's setup;
 *  - a write rank 0's worker makes to one table page under the lock
 *    (rank 0 homes it and wrote it during the setup) is seen by every
 *    later holder of the lock: the lock's counter page records when it
 *    happened;
 *  - main's write in the serial part between two spawns is seen by the
 *    second spawn's workers;
 *  - the other ranks fetch each setup page about once, not once per lock
 *    acquire: the setup rank 0 did alone does not mark the pages as
 *    written by another rank for the rest of the run (loom_spawn forgets
 *    the serial part's writers).
 * Rank 0 prints "spawn_setup: N passed, F failed". */
#include <loom/loom.h>
#include <stdint.h>
#include <stdio.h>

#include "mr.h" /* CHECK and its counts; not mr_init: only rank 0 runs main here */

enum { kPages = 64, kRounds = 100, kChanged = 5, kBetween = 7 };

static uint64_t *g_table;  /* kPages pages, word j of page p = p * 1000 + j, set by main */
static uint64_t *g_count;  /* [0] lock-protected counter, [1] its value when page kChanged changed */
static uint64_t *g_report; /* per rank {bad reads, pages fetched in the loop, done} */
static uint32_t g_lock;
static int g_spawn;

static void worker(void *arg) {
  (void)arg;
  const int me = loom_rank();
  uint64_t bad = 0;
  loom_stats_t before, after;
  loom_stats_get(&before);
  for (int i = 0; i < kRounds; i++) {
    loom_lock(g_lock);
    const uint64_t c = ++g_count[0];
    for (int p = 0; p < kPages; p++) {
      const uint64_t *pg = g_table + (size_t)p * 512;
      uint64_t want0 = (uint64_t)p * 1000, want1 = want0 + 1;
      if (p == kChanged && g_count[1] != 0) want0 = want1 = 777;  /* the change is before this acquire */
      if (p == kBetween && g_spawn == 1) want0 = want1 = 888;     /* main changed it between the spawns */
      if (p == kChanged && g_count[1] == 0 && pg[0] == 777) bad++; /* seen before it happened */
      if (pg[0] != want0 || pg[1] != want1) bad++;
    }
    if (me == 0 && c >= kRounds / 2 && g_count[1] == 0) { /* rank 0 homes the page and wrote it in the setup */
      g_table[kChanged * 512] = g_table[kChanged * 512 + 1] = 777;
      g_count[1] = c;
    }
    loom_unlock(g_lock);
  }
  loom_stats_get(&after);
  g_report[me * 8] = bad;
  g_report[me * 8 + 1] = after.pages_fetched - before.pages_fetched;
  g_report[me * 8 + 2] = 1;
}

int main(int argc, char **argv) {
  loom_status_t s = loom_start_serial(&argc, &argv, NULL);
  if (s != LOOM_OK) {
    fprintf(stderr, "loom_start_serial: %s: %s\n", loom_strerror(s), loom_last_error());
    return 2;
  }
  const int n = loom_nranks();
  CHECK(loom_alloc((size_t)kPages * 4096, (void **)&g_table) == LOOM_OK);
  CHECK(loom_alloc(4096, (void **)&g_count) == LOOM_OK);
  CHECK(loom_alloc(4096, (void **)&g_report) == LOOM_OK);
  CHECK(loom_lock_alloc(1, &g_lock) == LOOM_OK);
  for (int p = 0; p < kPages; p++)
    for (int j = 0; j < 512; j++) g_table[(size_t)p * 512 + j] = (uint64_t)p * 1000 + (uint64_t)j;
  for (g_spawn = 0; g_spawn < 2; g_spawn++) {
    if (g_spawn == 1) { /* the serial part again: main changes a page every rank holds */
      g_table[kBetween * 512] = g_table[kBetween * 512 + 1] = 888;
      g_table[kChanged * 512] = (uint64_t)kChanged * 1000; /* and puts the changed one back */
      g_table[kChanged * 512 + 1] = (uint64_t)kChanged * 1000 + 1;
    }
    g_count[0] = g_count[1] = 0;
    for (int r = 0; r < n; r++) g_report[r * 8 + 2] = 0;
    CHECK(loom_spawn(worker, NULL, 0) == LOOM_OK);
    worker(NULL);
    CHECK(loom_join() == LOOM_OK);
    CHECK(g_count[0] == (uint64_t)n * kRounds);
    CHECK(g_count[1] >= kRounds / 2);
    CHECK(g_table[kChanged * 512] == 777);
    for (int r = 0; r < n; r++) {
      CHECK(g_report[r * 8 + 2] == 1);
      CHECK(g_report[r * 8] == 0);
      /* Each setup page about once, the counter page and the changed page
       * once per acquire at most: far below kPages per acquire. */
      if (r != 0) CHECK(g_report[r * 8 + 1] <= (uint64_t)(kPages + 3 * kRounds));
      if (r != 0 && g_spawn == 0) printf("spawn_setup: rank %d fetched %llu pages in %d lock acquires\n", r,
                                         (unsigned long long)g_report[r * 8 + 1], kRounds);
    }
  }
  printf("spawn_setup: %ld passed, %ld failed\n", mr_passed, mr_failed);
  fflush(stdout);
  return mr_failed ? 1 : 0; /* the exit finalizes every rank */
}
