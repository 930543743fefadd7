/* loom_update's promise -- ranks that never touched the range read it
 * without a fault -- when the writer's release runs ahead of a reader's
 * acquire.  A block of 3 pages under each protocol (homes by first touch:
 * the writer's); a barrier between the allocation and the first writes;
 * rank 0 writes every word and calls loom_update; a barrier; every other
 * rank reads the block and must take no fault and see every word.
 *
 * Rank 0 leaves the first barrier ahead of the others, so its release of
 * the second one (the installs) can be read by a reader still in the first
 * one's acquire.  The eager protocols' copies fetched while their home
 * writes untrapped are dropped at the next acquire -- which, for such an
 * install, is the one it was meant for: the reader faulted on page 0 in
 * 4-6 runs of 10 at 3 and 4 ranks (erc-update and erc-invalidate, peers
 * mapped or through MPI) before the next acquire refreshed those copies
 * once instead (erc.cpp, refreshed()).  Several rounds a run, a new block
 * each. */
#include <stdlib.h>

#include "mr.h"

enum { kPages = 3, kRounds = 8 };

static uint64_t faults(void) {
  loom_stats_t s;
  loom_stats_get(&s);
  return s.read_faults + s.write_faults;
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank();
  static const loom_protocol_t protos[3] = {LOOM_PROTOCOL_ERC_UPDATE, LOOM_PROTOCOL_ERC_INVALIDATE, LOOM_PROTOCOL_HLRC};
  for (int pi = 0; pi < 3; pi++)
    for (int it = 0; it < kRounds; it++) {
      volatile uint64_t* b = NULL;
      CHECK_OK(loom_alloc_collective_protocol(kPages * 4096, protos[pi], (void**)&b));
      CHECK_OK(loom_barrier()); /* between the allocation and the first writes */
      for (int k = 0; k < 2; k++) {
        if (r == 0) {
          for (int i = 0; i < kPages * 512; i++) b[i] = (uint64_t)i * 7 + (uint64_t)k;
          CHECK_OK(loom_update((const void*)b, kPages * 4096));
        }
        CHECK_OK(loom_barrier());
        const uint64_t f0 = faults();
        int bad = 0;
        for (int i = 0; i < kPages * 512; i++) bad += b[i] != (uint64_t)i * 7 + (uint64_t)k;
        const uint64_t f = faults() - f0;
        CHECK(bad == 0);
        if (r != 0) {
          CHECK(f == 0);
          if (f) fprintf(stderr, "rank %d: %llu faults reading a block rank 0 updated (protocol %d, run %d, round %d)\n", r,
                         (unsigned long long)f, (int)protos[pi], it, k);
        }
        CHECK_OK(loom_barrier());
      }
      CHECK_OK(loom_free_collective((void*)b));
    }
  return mr_finish("mr_update_race");
}
