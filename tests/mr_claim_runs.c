/* First touch in address order where some rank is not mapped
 * (src/protocol/directory.cpp, claim_unit): a rank that first-touches page p
 * right after its own claim of p - 1 claims the unclaimed pages of p's unit
 * from p on in one batch: their compare-and-swaps, at a write their
 * writer-set ORs (HLRC), and the load of the next unit's entries.
 *
 * Every rank first claims the first page of its part of a first-touch block
 * (PART pages a rank), and rank 0 one page X in the middle of rank 1's part;
 * after a barrier every rank writes its whole part in address order.
 *   1. Every value is right on every rank, and loom_home_of names the part's
 *      writer for every page but X, which stays rank 0's: a run stops at a
 *      page another rank claimed, and never crosses into the next part.
 *   2. Where some rank is not mapped, a rank's PART first touches take at
 *      most one directory round trip (home_lookups) a unit and a few more
 *      (page by page: one each).
 *   3. The claimed pages are in the writer sets: every rank caches the next
 *      rank's part, the owners write their parts again, and after a barrier
 *      every rank reads the new values (a run marked registered without its
 *      bits in the directory leaves those copies stale under HLRC).
 *   4. A claim stops where another block starts: rank 0 writes a whole block
 *      in order, then the last rank first-touches the block allocated right
 *      after it, and becomes the home of all its pages. */
#include <stdint.h>
#include <stdlib.h>

#include "mr.h"

enum { PART = 512 };

static uint64_t value(size_t page, int round) { return 0xc1a10000ull + page * 4 + (uint64_t)round; }

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();
  const size_t W = 512; /* words a page */
  const char* unit_env = getenv("LOOM_UNIT_PAGES");
  const size_t U = unit_env ? (size_t)atoi(unit_env) : 8, MAX_LOOKUPS = PART / U + 8;
  const size_t x = n > 1 ? PART + PART / 2 : (size_t)-1;
  uint64_t* m = NULL;
  CHECK_OK(loom_alloc_collective_policy((size_t)n * PART * 4096, LOOM_HOME_FIRST_TOUCH, (void**)&m));
  uint64_t* mine = m + (size_t)r * PART * W;

  mine[0] = value((size_t)r * PART, 0);
  if (r == 0 && n > 1) m[x * W] = value(x, 0);
  CHECK_OK(loom_barrier());

  loom_stats_t a, z;
  CHECK_OK(loom_stats_get(&a));
  for (size_t p = 0; p < PART; p++) mine[p * W] = value((size_t)r * PART + p, 1);
  CHECK_OK(loom_stats_get(&z));
  const uint64_t lookups = z.home_lookups - a.home_lookups;
  if (loom_direct_peers() < n - 1) {
    CHECK(lookups <= MAX_LOOKUPS);
    if (lookups > MAX_LOOKUPS)
      fprintf(stderr, "rank %d: %llu home lookups for %d pages first touched in order (at most %zu)\n", r,
              (unsigned long long)lookups, PART, MAX_LOOKUPS);
  }
  CHECK_OK(loom_barrier());

  size_t bad = 0, wrong = 0;
  for (size_t p = 0; p < (size_t)n * PART; p++) {
    bad += m[p * W] != value(p, 1);
    int h = -2;
    CHECK_OK(loom_home_of(&m[p * W], &h));
    wrong += h != (p == x ? 0 : (int)(p / PART));
  }
  CHECK(bad == 0 && wrong == 0);
  if (bad || wrong) fprintf(stderr, "rank %d: %zu pages read wrong, %zu with the wrong home\n", r, bad, wrong);
  CHECK_OK(loom_barrier());

  /* 3: cached copies of the next part, then the owners write again. */
  const int next = (r + 1) % n;
  const uint64_t* theirs = m + (size_t)next * PART * W;
  uint64_t sum = 0;
  for (size_t p = 0; p < PART; p++) sum += theirs[p * W];
  CHECK_OK(loom_barrier());
  for (size_t p = 0; p < PART; p++) mine[p * W] = value((size_t)r * PART + p, 2);
  CHECK_OK(loom_barrier());
  bad = 0;
  for (size_t p = 0; p < PART; p++) bad += theirs[p * W] != value((size_t)next * PART + p, 2);
  CHECK(bad == 0);
  if (bad) fprintf(stderr, "rank %d: %zu pages of rank %d's part stale (sum %llu)\n", r, bad, next,
                   (unsigned long long)sum);
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_free_collective(m));

  /* 4, twice: block a of B and of B + 1 pages, so that one of the two ends
   * inside a unit (a claim of that unit would run into block b). */
  enum { B = 64 };
  for (size_t extra = 0; extra < 2; extra++) {
    uint64_t *ba = NULL, *bb = NULL;
    CHECK_OK(loom_alloc_collective_policy((B + extra) * 4096, LOOM_HOME_FIRST_TOUCH, (void**)&ba));
    CHECK_OK(loom_alloc_collective_policy(B * 4096, LOOM_HOME_FIRST_TOUCH, (void**)&bb));
    CHECK((char*)bb == (char*)ba + (B + extra) * 4096); /* first fit: the premise */
    if (r == 0)
      for (size_t p = 0; p < B + extra; p++) ba[p * W] = value(p, 3);
    CHECK_OK(loom_barrier());
    if (r == n - 1)
      for (size_t p = 0; p < B; p++) bb[p * W] = value(p, 4);
    CHECK_OK(loom_barrier());
    bad = wrong = 0;
    for (size_t p = 0; p < B; p++) {
      bad += ba[p * W] != value(p, 3) || bb[p * W] != value(p, 4);
      int h = -2;
      CHECK_OK(loom_home_of(&bb[p * W], &h));
      wrong += h != n - 1;
    }
    CHECK(bad == 0 && wrong == 0);
    if (bad || wrong)
      fprintf(stderr, "rank %d: the next block: %zu pages read wrong, %zu not homed at rank %d\n", r, bad, wrong,
              n - 1);
    CHECK_OK(loom_barrier());
    CHECK_OK(loom_free_collective(bb));
    CHECK_OK(loom_free_collective(ba));
  }
  return mr_finish("mr_claim_runs");
}
