/* Copy-sets forget a reader that stopped reading (erc-invalidate; erc.cpp,
 * erc_leave).  Rank 0 reads a block homed on rank 1 once; rank 1 then
 * rewrites it before every barrier.  Rank 0's copies are invalidated at the
 * first barrier and it never reads again, so after 64 acquires it leaves
 * the copy-sets and rank 1's writes stop trapping: over the last 20
 * barriers of 100 rank 1 must take fewer write faults than the block has
 * pages (when bits were never cleared it took one a page a barrier, 320).
 * Then rank 0 reads again (it joins again) and must see the last values,
 * and once more after one more round of writes (the home traps and
 * notifies it again). */
#include <string.h>

#include "mr.h"

enum { kPages = 16, kWords = 512, kRounds = 100, kTail = 20 };

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank();
  uint64_t* b = NULL;
  CHECK_OK(loom_alloc_collective_at(kPages * 4096, 1, (void**)&b));
  if (r == 1)
    for (int p = 0; p < kPages; p++) b[p * kWords] = 1;
  CHECK_OK(loom_barrier());
  if (r == 0) {
    uint64_t sum = 0;
    for (int p = 0; p < kPages; p++) sum += b[p * kWords];
    CHECK(sum == kPages);
  }
  CHECK_OK(loom_barrier());
  loom_stats_t s0, s1;
  memset(&s0, 0, sizeof s0);
  for (int i = 0; i < kRounds; i++) {
    if (i == kRounds - kTail) CHECK_OK(loom_stats_get(&s0));
    if (r == 1)
      for (int p = 0; p < kPages; p++) b[p * kWords] = (uint64_t)i + 2;
    CHECK_OK(loom_barrier());
  }
  CHECK_OK(loom_stats_get(&s1));
  if (r == 1) {
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
      for (int p = 0; p < kPages; p++) bad += b[p * kWords] != want;
      CHECK(bad == 0);
      if (bad) fprintf(stderr, "rank 0: %d pages stale in round %d\n", bad, round);
    }
    CHECK_OK(loom_barrier());
    if (r == 1)
      for (int p = 0; p < kPages; p++) b[p * kWords] = want + 1;
    CHECK_OK(loom_barrier());
  }
  return mr_finish("mr_copyset");
}
