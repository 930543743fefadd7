// How a fault learns the homes of its window (src/protocol/core.cpp,
// make_readable): the directory entries it does not know are read in one
// batch (home_lookups counts one), and a page nobody has claimed ends the
// window without its entry being read a second time.
//
// Rank 0 writes the first pages of two aligned windows (LOOM_UNIT_PAGES=8)
// of a first-touch block and leaves the rest unclaimed; rank 1 then reads:
//   window A, page 0, no home known: one lookup, pages 0-4 fetched;
//   window B, page 3, its home known (loom_home_of) and its neighbours'
//     not: one lookup for them all, pages 0-5 fetched.
// Page by page the second would take a lookup for each neighbour, and the
// first one more for the unclaimed page 5.  Other ranks only take part in
// the barriers (their directory entries are in the batch).
#include "mr.h"
#include "runtime.hpp"

using namespace loom;

static uint64_t pg(const void* p) { return (uint64_t)((const uint8_t*)p - rt.base) / kPage; }
static uint64_t value(uint64_t page) { return 0x4000 + page; }

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank();
  const uint64_t unit = rt.cfg.unit_pages;
  CHECK(unit == 8);
  uint8_t* block = nullptr;
  CHECK_OK(loom_alloc_collective_policy(4 * unit * kPage, LOOM_HOME_FIRST_TOUCH, (void**)&block));
  // The first aligned window inside the block, then the next.
  const uint64_t b0 = pg(block), a0 = (b0 + unit - 1) / unit * unit;
  uint64_t* win_a = (uint64_t*)(rt.base + a0 * kPage);
  uint64_t* win_b = (uint64_t*)(rt.base + (a0 + unit) * kPage);
  const size_t w = kPage / 8;  // words a page
  if (r == 0) {
    // In descending order: touched in address order where a rank is not
    // mapped, the rest of the window would be claimed with the second page
    // (directory.cpp, claim_unit).
    for (uint64_t i = 5; i-- > 0;) win_a[i * w] = value(a0 + i);
    for (uint64_t i = 6; i-- > 0;) win_b[i * w] = value(a0 + unit + i);
    int h = 0;
    CHECK_OK(loom_home_of(&win_a[5 * w], &h));
    CHECK(h == -1);  // (claimed page by page: the test's premise)
  }
  CHECK_OK(loom_barrier());
  if (r == 1) {
    loom_stats_t s0, s1;
    CHECK_OK(loom_stats_get(&s0));
    CHECK(win_a[0] == value(a0));
    CHECK_OK(loom_stats_get(&s1));
    CHECK(s1.read_faults - s0.read_faults == 1);
    CHECK(s1.home_lookups - s0.home_lookups == 1);
    CHECK(s1.pages_fetched - s0.pages_fetched == 5);
    for (uint64_t i = 1; i < 5; i++) CHECK(win_a[i * w] == value(a0 + i));
    CHECK_OK(loom_stats_get(&s0));
    CHECK(s0.read_faults == s1.read_faults);  // the window came with page 0

    int h = -1;
    CHECK_OK(loom_home_of(&win_b[3 * w], &h));
    CHECK(h == 0);
    CHECK_OK(loom_stats_get(&s0));
    CHECK(win_b[3 * w] == value(a0 + unit + 3));
    CHECK_OK(loom_stats_get(&s1));
    CHECK(s1.read_faults - s0.read_faults == 1);
    CHECK(s1.home_lookups - s0.home_lookups == 1);
    CHECK(s1.pages_fetched - s0.pages_fetched == 6);
    for (uint64_t i = 0; i < 6; i++) CHECK(win_b[i * w] == value(a0 + unit + i));
    CHECK_OK(loom_stats_get(&s0));
    CHECK(s0.read_faults == s1.read_faults);
    // The unclaimed pages read as zero, and the reader becomes their home.
    CHECK(win_b[6 * w] == 0);
    CHECK_OK(loom_home_of(&win_b[6 * w], &h));
    CHECK(h == 1);
  }
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_free_collective(block));
  return mr_finish("mr_homes");
}
