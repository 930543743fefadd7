/* Fetches along a stride (src/protocol/core.cpp, stride_note): a rank whose
 * faults on one home's pages land a constant number of windows apart gets
 * the next windows along that step with its fault.
 *
 * The last rank homes a matrix of ROWS x COLS blocks, each one fetch window
 * (LOOM_UNIT_PAGES pages), stored column by column, so that a row is a walk
 * of step ROWS windows (LU's perimeter row).  In each round the home
 * rewrites every page and the other ranks walk one row after the barrier,
 * a different row every round (no page is read twice, so the barrier's
 * prefetch of hot pages never starts): the whole row in even rounds, its
 * first 7 blocks in odd ones (the windows fetched ahead of the eighth are
 * never read).
 *   1. Every value read is the one the home wrote before the last barrier,
 *      and after the rounds every reader reads the whole matrix once more
 *      (a walk of step 1) after one more rewrite: a window fetched ahead and
 *      never read must have been dropped like any copy.
 *   2. Where the home is not mapped, the pages are HLRC's and the stride is
 *      on (LOOM_STRIDE, LOOM_ADAPT=0): a full row faults at most 8 times
 *      (3 faults learn the step, then 2, 4, 8 and 16 windows come ahead)
 *      and brings the rest of its windows ahead; with LOOM_STRIDE=0 it
 *      faults once a block, and nothing comes ahead.  Where the home is
 *      mapped, nothing comes ahead.  From the third round the step is one
 *      the stream took before, and a full row faults at most 5 times (its
 *      second fault already fetches ahead).
 *   3. Once a lock has been taken (a fetch then joins the copy-sets, a round
 *      trip a window), a row faults once a block again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mr.h"

enum { ROWS = 10, COLS = 32, ROUNDS = 8 };

static loom_stats_t stats_now(void) {
  loom_stats_t st;
  CHECK_OK(loom_stats_get(&st));
  return st;
}

static uint64_t value(int round, size_t page) { return (uint64_t)round << 32 | (uint64_t)page; }

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks(), home = n - 1;
  const char* unit_env = getenv("LOOM_UNIT_PAGES");
  const size_t U = unit_env ? (size_t)atoi(unit_env) : 8; /* pages a window */
  const char* proto = getenv("LOOM_PROTOCOL");
  const char* stride = getenv("LOOM_STRIDE");
  const char* adapt = getenv("LOOM_ADAPT");
  const int hlrc = !proto || !strcmp(proto, "hlrc");
  const int remote = loom_direct_peers() == 0;
  const int on = !(stride && !strcmp(stride, "0")) && !(adapt && !strcmp(adapt, "1"));
  const int expect = hlrc && remote && on; /* the walks get windows ahead */
  const int each = hlrc && remote && !on;  /* the walks fault once a block */

  /* One window more than the matrix, so that its first block starts on a
   * window boundary (the collective allocation is page-aligned). */
  char* raw = NULL;
  const size_t blocks = (size_t)ROWS * COLS;
  CHECK_OK(loom_alloc_collective_at((blocks + 1) * U * 4096, home, (void**)&raw));
  const uintptr_t align = U * 4096;
  uint64_t* m = (uint64_t*)(((uintptr_t)raw + align - 1) / align * align);
  const size_t pages = blocks * U;

  size_t bad = 0;
  for (int round = 0; round < ROUNDS; round++) {
    if (r == home)
      for (size_t p = 0; p < pages; p++) m[p * 512] = value(round, p), m[p * 512 + 511] = value(round, p);
    CHECK_OK(loom_barrier());
    if (r != home) {
      const int row = round, cols = round % 2 ? 7 : COLS;
      const loom_stats_t a = stats_now();
      for (int c = 0; c < cols; c++) {
        const size_t b = (size_t)c * ROWS + (size_t)row; /* block (row, c), column-major */
        for (size_t k = 0; k < U; k++) {
          const size_t p = b * U + k;
          bad += m[p * 512] != value(round, p) || m[p * 512 + 511] != value(round, p);
        }
      }
      const loom_stats_t z = stats_now();
      const uint64_t faults = z.read_faults - a.read_faults, ahead = z.pages_strided - a.pages_strided;
      if (cols == COLS && expect) {
        CHECK(faults <= 8);
        /* From round 2 the step is one the stream took before (round 0's):
         * the row's second fault fetches ahead (1, 1 + 2, 1 + 4, 1 + 8, 1 + 16). */
        if (round >= 2) CHECK(faults <= 5);
        if (round >= 2 && faults > 5)
          fprintf(stderr, "rank %d round %d: %llu faults for a row along a step seen before\n", r, round,
                  (unsigned long long)faults);
        CHECK(ahead >= (uint64_t)(COLS - 8) * U);
        if (faults > 8 || ahead < (uint64_t)(COLS - 8) * U)
          fprintf(stderr, "rank %d round %d: %llu faults, %llu pages ahead for a row of %d blocks\n", r, round,
                  (unsigned long long)faults, (unsigned long long)ahead, COLS);
      } else if (cols == COLS && each) {
        CHECK(faults == COLS);
        CHECK(ahead == 0);
      }
      if (!expect) CHECK(ahead == 0);
    }
    CHECK_OK(loom_barrier());
  }
  CHECK(bad == 0);

  /* 1: the whole matrix, rewritten once more, walked in address order. */
  if (r == home)
    for (size_t p = 0; p < pages; p++) m[p * 512] = value(ROUNDS, p), m[p * 512 + 511] = value(ROUNDS, p);
  CHECK_OK(loom_barrier());
  bad = 0;
  if (r != home)
    for (size_t p = 0; p < pages; p++) bad += m[p * 512] != value(ROUNDS, p) || m[p * 512 + 511] != value(ROUNDS, p);
  CHECK(bad == 0);
  if (bad) fprintf(stderr, "rank %d: %zu stale pages after the last rewrite\n", r, bad);
  CHECK_OK(loom_barrier());

  /* 3: after a lock, once a block. */
  CHECK_OK(loom_lock(0));
  CHECK_OK(loom_unlock(0));
  if (r == home)
    for (size_t p = 0; p < pages; p++) m[p * 512] = value(ROUNDS + 1, p), m[p * 512 + 511] = value(ROUNDS + 1, p);
  CHECK_OK(loom_barrier());
  if (r != home) {
    const loom_stats_t a = stats_now();
    bad = 0;
    for (int c = 0; c < COLS; c++) {
      const size_t b = (size_t)c * ROWS + 1;
      for (size_t k = 0; k < U; k++) {
        const size_t p = b * U + k;
        bad += m[p * 512] != value(ROUNDS + 1, p);
      }
    }
    const loom_stats_t z = stats_now();
    CHECK(bad == 0);
    CHECK(z.pages_strided == a.pages_strided);
    if (hlrc && remote) CHECK(z.read_faults - a.read_faults == COLS);
  }
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_free_collective(raw));
  return mr_finish("mr_stride");
}
