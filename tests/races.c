/* races MODE: programs with (and without) data races, for the race report
 * (tools/loom trace races; run with LOOM_TRACE and LOOM_TRACE_RUNS=1, at
 * least 2 ranks; tests/races.sh checks what the report finds).  Racy modes:
 *   word        ranks 0 and 1 write the same word between the same barriers
 *   bytes       rank 0 writes bytes [0, 100) and rank 1 bytes [60, 160) of
 *               one page: a race on [60, 100)
 *   nolock      rank 0 adds to a counter under lock 1, rank 1 without it
 *   split       rank 0 writes a word between its loom_barrier_arrive and
 *               loom_barrier_wait (its fuzzy region), rank 1 writes the
 *               same word before its arrive
 *   subset      rank 1 writes a word, then the evens and the odds each pass
 *               a barrier of their own (loom_barrier_subset), then rank 0
 *               writes it: no barrier orders ranks 0 and 1
 * Race-free counterparts (the report must be empty):
 *   disjoint    rank 0 writes bytes [0, 60), rank 1 [60, 160) of one page
 *   locked      both ranks add to the counter under lock 1
 *   ordered     rank 0 writes the word, a barrier, rank 1 writes it
 *   pair        rank 1 writes the word, ranks 0 and 1 pass a barrier of
 *               the two (the others none), rank 0 writes it
 *   handoff     rank 0 writes under lock 2, rank 1 waits for its flag
 *               under lock 2 and then writes the same words without it */
#include <string.h>

#include "mr.h"

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const char* mode = argc > 1 ? argv[1] : "";
  const int r = loom_rank();
  uint8_t* page = NULL; /* homed on the last rank (run with 3: it writes nothing) */
  uint64_t* flag = NULL;
  CHECK_OK(loom_alloc_collective_at(4096, loom_nranks() - 1, (void**)&page));
  CHECK_OK(loom_alloc_collective_at(4096, loom_nranks() - 1, (void**)&flag));
  uint64_t* word = (uint64_t*)(void*)(page + 512);
  CHECK_OK(loom_barrier());
  if (!strcmp(mode, "word")) {
    if (r <= 1) *word = 100 + (uint64_t)r;
  } else if (!strcmp(mode, "bytes")) {
    if (r == 0) memset(page, 1, 100);
    if (r == 1) memset(page + 60, 2, 100);
  } else if (!strcmp(mode, "disjoint")) {
    if (r == 0) memset(page, 1, 60);
    if (r == 1) memset(page + 60, 2, 100);
  } else if (!strcmp(mode, "nolock") || !strcmp(mode, "locked")) {
    for (int i = 0; i < 3; i++) {
      const int take = r == 0 || !strcmp(mode, "locked");
      if (take) CHECK_OK(loom_lock(1));
      if (r <= 1) *word += 1;
      if (take) CHECK_OK(loom_unlock(1));
    }
  } else if (!strcmp(mode, "split")) {
    if (r == 1) *word = 7;
    CHECK_OK(loom_barrier_arrive(NULL, 0));
    if (r == 0) *word = 8;
    CHECK_OK(loom_barrier_wait());
  } else if (!strcmp(mode, "subset")) {
    int group[64], g = 0;
    for (int q = r % 2; q < loom_nranks() && g < 64; q += 2) group[g++] = q;
    if (r == 1) *word = 5;
    CHECK_OK(loom_barrier_subset(group, g));
    if (r == 0) *word = 6;
  } else if (!strcmp(mode, "pair")) {
    if (r == 1) *word = 5;
    if (r <= 1) CHECK_OK(loom_barrier_subset((int[]){1, 0}, 2)); /* (listed in any order) */
    if (r == 0) *word = 6;
  } else if (!strcmp(mode, "ordered")) {
    if (r == 0) *word = 1;
    CHECK_OK(loom_barrier());
    if (r == 1) *word = 2;
  } else if (!strcmp(mode, "handoff")) {
    if (r == 0) {
      CHECK_OK(loom_lock(2));
      memset(page, 3, 256);
      *flag = 1;
      CHECK_OK(loom_unlock(2));
    } else if (r == 1) {
      for (uint64_t seen = 0; !seen;) {
        CHECK_OK(loom_lock(2));
        seen = *flag;
        CHECK_OK(loom_unlock(2));
      }
      memset(page, 4, 256);
    }
  } else {
    fprintf(stderr, "usage: races word|bytes|nolock|split|subset|disjoint|locked|ordered|pair|handoff\n");
    CHECK(0);
  }
  CHECK_OK(loom_barrier());
  return mr_finish("races");
}
