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
 *      (Where every rank shares pages on one host, a first touch claims its
 *      whole unit, so the units of X and of each part's first page, claimed
 *      before the others write, are their claimers': at most a unit each.)
 *   2. Where some rank is not mapped, a rank's PART first touches take at
 *      most one directory round trip (home_lookups) a unit and a few more
 *      (page by page: one each).
 *   3. The claimed pages are in the writer sets: every rank caches the next
 *      rank's part, the owners write their parts again, and after a barrier
 *      every rank reads the new values (a run marked registered without its
 *      bits in the directory leaves those copies stale under HLRC).
 *   4. A claim stops where another block starts: rank 0 writes a whole block
 *      in order, then the last rank first-touches the block allocated right
 *      after it, and becomes the home of all its pages.
 *   5. First touch by reads, then by read-and-write (a[i] += x): a read
 *      fault's claim opens the run it won read-only, and a write to one of
 *      them registers the rest with it (HLRC), so where some rank is not
 *      mapped a part read in order faults about once a unit and needs no
 *      lookup but its claims', and a part incremented in order faults about
 *      twice a unit under HLRC.  And read whole, then written whole (the
 *      write reaches the first unit long after the last unit's claim): the
 *      same, about twice a unit (every read claim's run is remembered until
 *      the next acquire, not the last one only).  Every rank caches the next
 *      part, the owners add again without faulting, and every rank reads the
 *      values (a run opened writable without its writer bits in the
 *      directory leaves those copies stale).  Traced (LOOM_TRACE), every page faults,
 *      so that the trace has each first touch.
 *   6. A claim that is not a fault's opens nothing: page 0 of a part
 *      written, then an atomic on page 1 (its claim takes the rest of the
 *      unit), then plain writes to pages 1..2U-1; the next rank caches them,
 *      the owner writes them again, and the next rank reads the new values
 *      (a write that opened the atomic's pages unregistered leaves them
 *      stale). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
  // Where every rank shares pages on one host, the claims before the barrier
  // (each part's first page, and X) took their whole units (LOOM_UNIT_PAGES),
  // whichever part their other pages are in: at most a unit each.
  const char* share = getenv("LOOM_HOST_SHARE");
  const char* trace_dir = getenv("LOOM_TRACE");
  const int shared = !(share && !strcmp(share, "0")) && !(trace_dir && *trace_dir) && loom_direct_peers() == n - 1;
  const size_t allowed = shared ? (size_t)(n + 1) * U : 0;
  CHECK(bad == 0 && wrong <= allowed);
  if (bad || wrong > allowed)
    fprintf(stderr, "rank %d: %zu pages read wrong, %zu with the wrong home (at most %zu)\n", r, bad, wrong, allowed);
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

  /* 5. */
  const char* proto = getenv("LOOM_PROTOCOL");
  const int hlrc = !proto || !strcmp(proto, "hlrc"), far = loom_direct_peers() < n - 1;
  const char* trace = getenv("LOOM_TRACE");
  const int traced = trace && *trace;
  for (int how = 0; how < 3; how++) {
    CHECK_OK(loom_alloc_collective_policy((size_t)n * PART * 4096, LOOM_HOME_FIRST_TOUCH, (void**)&m));
    volatile uint64_t* vm = m + (size_t)r * PART * W;
    CHECK_OK(loom_barrier());
    CHECK_OK(loom_stats_get(&a));
    bad = 0;
    if (how != 1)
      for (size_t p = 0; p < PART; p++) bad += vm[p * W] != 0;
    if (how == 1)
      for (size_t p = 0; p < PART; p++) vm[p * W] += value((size_t)r * PART + p, 5);
    if (how == 2)
      for (size_t p = 0; p < PART; p++) vm[p * W] = value((size_t)r * PART + p, 5);
    CHECK_OK(loom_stats_get(&z));
    CHECK(bad == 0);
    const uint64_t faults = z.read_faults + z.write_faults - a.read_faults - a.write_faults;
    const uint64_t looked = z.home_lookups - a.home_lookups;
    const uint64_t most = how == 0 ? PART / U + 8 : 2 * (PART / U) + 8;
    if (far && !traced && (how == 0 || hlrc)) {
      CHECK(faults <= most);
      CHECK(looked <= MAX_LOOKUPS);
      if (faults > most || looked > MAX_LOOKUPS)
        fprintf(stderr, "rank %d: %s in order: %llu faults (at most %llu), %llu lookups (at most %zu)\n", r,
                how == 0 ? "read" : how == 1 ? "incremented" : "read whole, then written whole", (unsigned long long)faults, (unsigned long long)most,
                (unsigned long long)looked, MAX_LOOKUPS);
    }
    CHECK(faults >= PART / U); /* a unit's first touch faults */
    if (far && traced) CHECK(faults >= PART); /* traced: a fault a page, each an event of the trace */
    CHECK_OK(loom_barrier());
    if (how >= 1) {
      const uint64_t* theirs5 = m + (size_t)next * PART * W;
      sum = 0;
      for (size_t p = 0; p < PART; p++) sum += theirs5[p * W];
      CHECK_OK(loom_barrier());
      CHECK_OK(loom_stats_get(&a));
      for (size_t p = 0; p < PART; p++) vm[p * W] += 1;
      CHECK_OK(loom_stats_get(&z));
      if (far && !traced && hlrc) CHECK(z.write_faults == a.write_faults);
      CHECK_OK(loom_barrier());
      bad = wrong = 0;
      for (size_t p = 0; p < PART; p++) bad += theirs5[p * W] != value((size_t)next * PART + p, 5) + 1;
      for (size_t p = 0; p < (size_t)n * PART; p++) {
        int h = -2;
        CHECK_OK(loom_home_of(&m[p * W], &h));
        wrong += h != (int)(p / PART);
      }
      CHECK(bad == 0 && wrong == 0);
      if (bad || wrong)
        fprintf(stderr, "rank %d: %zu pages of rank %d's %s part stale (sum %llu), %zu with the wrong home\n", r,
                bad, next, how == 1 ? "incremented" : "written", (unsigned long long)sum, wrong);
    }
    CHECK_OK(loom_barrier());
    CHECK_OK(loom_free_collective(m));
  }

  /* 6. */
  CHECK_OK(loom_alloc_collective_policy((size_t)n * PART * 4096, LOOM_HOME_FIRST_TOUCH, (void**)&m));
  mine = m + (size_t)r * PART * W;
  mine[0] = value((size_t)r * PART, 6);
  CHECK_OK(loom_atomic_fetch_add(&mine[W + 1], 1, NULL));
  for (size_t p = 1; p < 2 * U; p++) mine[p * W] = value((size_t)r * PART + p, 6);
  CHECK_OK(loom_barrier());
  theirs = m + (size_t)next * PART * W;
  sum = 0;
  for (size_t p = 0; p < 2 * U; p++) sum += theirs[p * W];
  CHECK_OK(loom_barrier());
  for (size_t p = 0; p < 2 * U; p++) mine[p * W] = value((size_t)r * PART + p, 7);
  CHECK_OK(loom_barrier());
  bad = 0;
  for (size_t p = 0; p < 2 * U; p++) bad += theirs[p * W] != value((size_t)next * PART + p, 7);
  CHECK(bad == 0 && theirs[W + 1] == 1);
  if (bad) fprintf(stderr, "rank %d: after an atomic's claim, %zu pages of rank %d's part stale (sum %llu)\n", r, bad,
                   next, (unsigned long long)sum);
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_free_collective(m));
  return mr_finish("mr_claim_runs");
}
