// Page-state transitions of the HLRC protocol, read from the runtime's own
// page table (this test links the internal library, built with the
// debug-full invariant checks):
//   remote page: NONE -read-> RO (fetched, cached) -write-> RW (twin, dirty)
//                -release-> RO (diff made, twin dropped)
//                -acquire, another rank wrote it-> NONE (invalidated)
//                -acquire, only this rank writes it-> stays RO
//   home page:   NONE -read-> RO -write-> RW, no twin; stays RW across
//                barriers (written in place, no fault in steady state)
#include <cstring>

#include "mr.h"
#include "runtime.hpp"

using namespace loom;

static uint64_t pg(const void* p) { return (uint64_t)((const uint8_t*)p - rt.base) / kPage; }

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();
  const int other = (r + 1) % n;  // pages homed at the next rank
  // One block homed at each rank (collective); every rank works on the block
  // homed at its successor.
  uint64_t* blocks[64] = {};
  for (int h = 0; h < n; h++) CHECK_OK(loom_alloc_collective_at(4 * 4096, h, (void**)&blocks[h]));
  uint64_t* remote = blocks[other];
  uint64_t* home = blocks[r];
  uint64_t p = pg(remote);
  CHECK(rt.pages.state[p] == kNone);
  CHECK(rt.pages.home[p] == other);

  // Read: fetched and cached read-only (with its neighbours in the unit).
  loom_stats_t s0, s1;
  CHECK_OK(loom_stats_get(&s0));
  volatile uint64_t v = remote[3];
  (void)v;
  CHECK_OK(loom_stats_get(&s1));
  CHECK(rt.pages.state[p] == kRO);
  CHECK(s1.read_faults == s0.read_faults + 1);
  CHECK(s1.pages_fetched >= s0.pages_fetched + 1);
  CHECK(rt.pages.flags[p] & kListed);

  // Write: twin of the pre-write contents, on the dirty list, writable.
  remote[r + 8] = 0x1234 + (uint64_t)r;
  CHECK(rt.pages.state[p] == kRW);
  CHECK(rt.pages.dirty.size() == 1 && rt.pages.dirty[0] == p);
  CHECK(((uint64_t*)(rt.pages.twins + p * kPage))[r + 8] == 0);
  CHECK(rt.pages.flags[p] & kIWriter);

  // Home page: in place, no twin.
  uint64_t hp = pg(home + 2 * 512);
  CHECK_OK(loom_stats_get(&s0));
  home[2 * 512 + 100] = 5;
  CHECK_OK(loom_stats_get(&s1));
  CHECK(rt.pages.state[hp] == kRW);
  CHECK(s1.twins == s0.twins);
  CHECK(rt.pages.dirty.size() == 1);

  // Release at the barrier: diff made, page read-only again.  Every rank
  // wrote its successor's page, so with n >= 2 the writers of `remote` are
  // this rank (and, for n == 2, the home also wrote its own block) ...
  CHECK_OK(loom_stats_get(&s0));
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_stats_get(&s1));
  CHECK(s1.diffs == s0.diffs + 1);
  CHECK(rt.pages.dirty.empty());
  // ... and the home of `remote` did not write that page, so only this rank
  // is its writer: the copy survives the acquire.
  CHECK(rt.pages.state[p] == kRO);
  CHECK(rt.pages.state[hp] == kRW);  // home page stays writable across barriers

  // Home writes the page in place: the cached copy elsewhere is dropped at
  // the next acquire, and a re-read fetches the new value.
  CHECK_OK(loom_barrier());  // every rank's check above is done before the next writes
  blocks[r][1] = 0xbeef + (uint64_t)r;  // this rank is home of blocks[r]
  CHECK_OK(loom_barrier());
  CHECK(rt.pages.state[p] == kNone);
  CHECK(rt.pages.flags[p] & kOtherWritten);
  CHECK(remote[1] == 0xbeef + (uint64_t)other);
  CHECK(remote[8 + r] == 0x1234 + (uint64_t)r);  // own earlier write is at the home
  CHECK(rt.pages.state[p] == kRO);

  // After its first write, a home page never needs a twin or a fault again.
  home[3 * 512] = 0;
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_stats_get(&s0));
  for (int k = 0; k < 10; k++) {
    home[3 * 512] += 1;
    CHECK_OK(loom_barrier());
  }
  CHECK_OK(loom_stats_get(&s1));
  CHECK(s1.write_faults == s0.write_faults);
  CHECK(s1.twins == s0.twins);
  CHECK(home[3 * 512] == 10);
  return mr_finish("mr_pagestate");
}
