/* Homes learnt around a fault's window (src/protocol/directory.cpp,
 * learn_homes): a lookup that goes to another host also brings the homes of
 * the pages around the window, so that a rank reading another host's pages
 * in no particular order asks the directory once a span (64 windows), not
 * once a window.
 *
 * The last rank first-touches the first SPANS spans of a block (the rest
 * stays unclaimed); the other ranks read one page of every claimed window
 * in a shuffled order (no constant step: no fetch along a stride).
 *   1. Every value read is the home's, and loom_home_of names the home for
 *      every claimed page.
 *   2. Where some rank is not mapped (mpi and async modes, across hosts,
 *      at 2 hosts x 2 on either host), the reads take at most one lookup
 *      per span they touch (SPANS + 1 with the block's misalignment),
 *      against one per window before.
 *   3. A page left unclaimed (the block's last, a span past the claimed
 *      part) is not taken for anyone's: after a barrier, rank 0 writes it
 *      first and becomes its home, and every rank reads its value and
 *      home.
 *   4. Where some rank is not mapped, under HLRC, those lookups read the
 *      pages' writer sets too (each names the home), so the next barrier's
 *      acquire drops the readers' copies without reading a set
 *      (writer_loads), where it read one a cached page before. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mr.h"

enum { SPANS = 2, SPAN_WINDOWS = 64 };

static uint64_t value(size_t page) { return 0x5eed0000ull + page; }

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks(), home = n - 1;
  const char* unit_env = getenv("LOOM_UNIT_PAGES");
  const size_t U = unit_env ? (size_t)atoi(unit_env) : 8; /* pages a window */
  const size_t claimed = SPANS * SPAN_WINDOWS * U, pages = claimed + SPAN_WINDOWS * U;
  uint64_t* m = NULL;
  CHECK_OK(loom_alloc_collective(pages * 4096, (void**)&m));

  if (r == home)
    for (size_t p = 0; p < claimed; p++) m[p * 512] = value(p);
  CHECK_OK(loom_barrier());

  size_t bad = 0;
  if (r != home) {
    /* One page of every window the block's claimed part meets, shuffled. */
    const size_t windows = claimed / U;
    size_t* order = malloc(windows * sizeof *order);
    CHECK(order != NULL);
    for (size_t w = 0; w < windows; w++) order[w] = w;
    uint64_t x = 88172645463325252ull + (uint64_t)r;
    for (size_t w = windows - 1; w > 0; w--) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      const size_t k = (size_t)(x % (w + 1)), t = order[w];
      order[w] = order[k], order[k] = t;
    }
    loom_stats_t a, z;
    CHECK_OK(loom_stats_get(&a));
    for (size_t i = 0; i < windows; i++) {
      const size_t p = order[i] * U + (order[i] * 3) % U;
      bad += m[p * 512] != value(p);
    }
    CHECK_OK(loom_stats_get(&z));
    free(order);
    const uint64_t lookups = z.home_lookups - a.home_lookups;
    if (loom_direct_peers() < n - 1) {
      CHECK(lookups <= SPANS + 1);
      if (lookups > SPANS + 1)
        fprintf(stderr, "rank %d: %llu home lookups for %zu windows in %d spans\n", r, (unsigned long long)lookups,
                windows, SPANS);
    }
    size_t wrong = 0;
    for (size_t p = 0; p < claimed; p++) {
      int h = -2;
      CHECK_OK(loom_home_of(&m[p * 512], &h));
      wrong += h != home;
    }
    CHECK(wrong == 0);
    if (wrong) fprintf(stderr, "rank %d: %zu pages with another home than %d\n", r, wrong, home);
  }
  CHECK(bad == 0);
  if (bad) fprintf(stderr, "rank %d: %zu pages read wrong\n", r, bad);
  /* 4: the entries those lookups read came whole, writer sets with the
   * homes, and every set named the home, which wrote the pages first: the
   * barrier's acquire drops the copies without reading a set again. */
  const char* proto = getenv("LOOM_PROTOCOL");
  const int hlrc = !proto || !*proto || strcmp(proto, "hlrc") == 0;
  loom_stats_t b0, b1;
  CHECK_OK(loom_stats_get(&b0));
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_stats_get(&b1));
  const uint64_t sets = b1.writer_loads - b0.writer_loads, dropped = b1.invalidations - b0.invalidations;
  if (r != home && loom_direct_peers() < n - 1 && hlrc) {
    CHECK(sets == 0 && dropped >= claimed / U);
    if (sets != 0 || dropped < claimed / U)
      fprintf(stderr, "rank %d: the acquire read %llu writer sets and dropped %llu copies (%zu windows read)\n", r,
              (unsigned long long)sets, (unsigned long long)dropped, claimed / U);
  }

  /* 3: the block's last page, unclaimed until rank 0 writes it (the
   * home's first touches in address order claim the rest of a window at
   * once where some rank is not mapped: directory.cpp, claim_unit). */
  const size_t q = pages - 1;
  if (r == 0) m[q * 512] = value(q);
  CHECK_OK(loom_barrier());
  int h = -2;
  CHECK(m[q * 512] == value(q));
  CHECK_OK(loom_home_of(&m[q * 512], &h));
  CHECK(h == 0);
  if (h != 0) fprintf(stderr, "rank %d: page %zu's home is %d, not 0 (who first wrote it)\n", r, q, h);
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_free_collective(m));
  return mr_finish("mr_homes_learnt");
}
