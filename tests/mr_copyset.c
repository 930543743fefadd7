/* Copy-sets forget a reader that stopped reading (erc-invalidate; erc.cpp,
 * erc_leave).  Rank 0 reads a block homed on rank 1 once; rank 1 then
 * rewrites it before every barrier.  Rank 0's copies are invalidated at the
 * first barrier and it never reads again, so after 64 acquires it leaves
 * the copy-sets and rank 1's writes stop trapping: over the last 20
 * barriers of 100 rank 1 must take fewer write faults than the block has
 * pages (when bits were never cleared it took one a page a barrier, 320).
 * Then rank 0 reads again (it joins again) and must see the last values,
 * and once more after one more round of writes (the home traps and
 * notifies it again).
 *
 * mr_copyset T runs T threads per rank: a rank's reads and writes of the
 * block are split among its threads (page p by thread p % T), so the
 * rank's copies and faults are what one thread made; thread 0 reads the
 * statistics. */
#include <string.h>

#include "mr.h"

enum { kPages = 16, kWords = 512, kRounds = 100, kTail = 20 };

static void body(int w, int W) {
  (void)w;
  (void)W;
  const int r = loom_rank(), t = mr_t, T = mr_T;
#define MINE(p) ((p) % T == t)
  uint64_t* b = (uint64_t*)mr_walloc(kPages * 4096, 1);
  if (r == 1)
    for (int p = 0; p < kPages; p++)
      if (MINE(p)) b[p * kWords] = 1;
  mr_wbar();
  if (r == 0) {
    uint64_t sum = 0, want = 0;
    for (int p = 0; p < kPages; p++)
      if (MINE(p)) sum += b[p * kWords], want++;
    CHECK(sum == want);
  }
  mr_wbar();
  loom_stats_t s0, s1;
  memset(&s0, 0, sizeof s0);
  for (int i = 0; i < kRounds; i++) {
    if (i == kRounds - kTail) {
      if (t == 0) CHECK_OK(loom_stats_get(&s0));
      mr_wbar(); /* before any thread's writes of the tail (one more barrier in every rank) */
    }
    if (r == 1)
      for (int p = 0; p < kPages; p++)
        if (MINE(p)) b[p * kWords] = (uint64_t)i + 2;
    mr_wbar();
  }
  if (t == 0) CHECK_OK(loom_stats_get(&s1));
  if (r == 1 && t == 0) {
    const uint64_t faults = s1.write_faults - s0.write_faults;
    CHECK(faults < kPages);
    if (faults >= kPages)
      fprintf(stderr, "rank 1: %llu write faults over the last %d barriers (a stale reader keeps the pages trapped)\n",
              (unsigned long long)faults, kTail);
  }
  for (int round = 0; round < 2; round++) {
    const uint64_t want = (uint64_t)kRounds + 1 + (uint64_t)round;
    if (r == 0) {
      int bad = 0;
      for (int p = 0; p < kPages; p++) bad += b[p * kWords] != want; /* every thread reads every page */
      CHECK(bad == 0);
      if (bad) fprintf(stderr, "rank 0 thread %d: %d pages stale in round %d\n", t, bad, round);
    }
    mr_wbar();
    if (r == 1)
      for (int p = 0; p < kPages; p++)
        if (MINE(p)) b[p * kWords] = want + 1;
    mr_wbar();
  }
  mr_wfree(b);
#undef MINE
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), body);
  return mr_finish("mr_copyset");
}
