/* The barrier prefetch of hot pages (src/protocol/core.cpp): a page a rank
 * fetches again after each drop with the same period is fetched by the
 * barrier that starts the interval its period predicts.
 *   1. Every value read is the one written before the last barrier, whether
 *      the page came by a fault, by a prefetch, or by a prefetch made for a
 *      read that did not come (the readers change their period and phase).
 *   2. Where the homes are not mapped and the pages are HLRC's, a reader of
 *      a block every third interval (CG's pattern) gets its pages from the
 *      barrier once it has seen the period twice: from the fourth read on,
 *      every page of every read (the window's pages too, not only the one
 *      that faulted).  Where every peer is mapped nothing is prefetched.
 * Rank 0 writes the block in every round; every other rank reads it in
 * some rounds, after a barrier (two barriers a round: a period of 6
 * acquires). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mr.h"

enum { P = 40, ROUNDS = 34, PHASE1 = 19 };

static loom_stats_t stats_now(void) {
  loom_stats_t st;
  CHECK_OK(loom_stats_get(&st));
  return st;
}

/* Do the readers read the block in round t? */
static int reads_in(int t) {
  if (t < PHASE1) return t % 3 == 0;       /* period 3: t = 0, 3, ..., 18 */
  static const int later[] = {19, 20, 22, 25, 26, 29, 33};
  for (size_t i = 0; i < sizeof later / sizeof later[0]; i++)
    if (later[i] == t) return 1;
  return 0;
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();
  const char* proto = getenv("LOOM_PROTOCOL");
  const char* pf = getenv("LOOM_PREFETCH");
  const int hlrc = !proto || !strcmp(proto, "hlrc");
  const int expect = hlrc && loom_direct_peers() == 0 && !(pf && !strcmp(pf, "0"));
  uint64_t* a = (uint64_t*)mr_walloc((size_t)P * 4096, 0);
  const size_t W = 4096 / sizeof(uint64_t);
  mr_wbar();

  loom_stats_t s0 = stats_now(), s1 = s0;
  long bad = 0;
  for (int t = 0; t < ROUNDS; t++) {
    /* Round t: rank 0 writes, a barrier, the readers read what it wrote
     * (or not), a barrier. */
    if (r == 0)
      for (size_t p = 0; p < P; p++) {
        a[p * W] = (uint64_t)t * 1000 + p;
        a[p * W + W - 1] = (uint64_t)t * 1000 + p + 7;
      }
    mr_wbar();
    if (r > 0 && t > 0 && reads_in(t))
      for (size_t p = 0; p < P; p++) {
        const uint64_t want = (uint64_t)t * 1000 + p;
        if (a[p * W] != want || a[p * W + W - 1] != want + 7) {
          if (bad < 3)
            fprintf(stderr, "rank %d round %d page %zu: %llu %llu, want %llu\n", r, t, p, (unsigned long long)a[p * W],
                    (unsigned long long)a[p * W + W - 1], (unsigned long long)want);
          bad++;
        }
      }
    if (t == PHASE1 - 1) s1 = stats_now();
    mr_wbar();
  }
  CHECK(bad == 0);
  if (r > 0) {
    const loom_stats_t s2 = stats_now();
    const uint64_t used1 = s1.prefetch_used - s0.prefetch_used;
    const uint64_t got = s2.prefetched - s0.prefetched;
    if (expect) {
      /* Reads at 3, 6 and 9 learn the period; 12, 15 and 18 come from the
       * barrier, every page of them. */
      CHECK(used1 >= 3 * (uint64_t)P);
      CHECK(s2.prefetch_used <= s2.prefetched);
    } else if (loom_direct_peers() == n - 1) {
      CHECK(got == 0);
    }
  }
  mr_wbar();
  mr_wfree(a);
  return mr_finish("mr_prefetch");
}
