// Home placement: cyclic, block, explicit and first-touch put every page's
// home where the policy says (checked with loom_home_of on every rank), and
// data written by non-home ranks reaches the homes under each policy.
#include <cstdint>

#include "mr.h"

static void fill_and_check(uint64_t* a, uint64_t words, int r, int n, int tag) {
  CHECK_OK(loom_barrier());  // the caller's reads of the old values are done
  // Each rank writes a strided share (so most writes are to pages homed elsewhere).
  for (uint64_t i = (uint64_t)r; i < words; i += (uint64_t)n) a[i] = i * 31 + (uint64_t)tag;
  CHECK_OK(loom_barrier());
  uint64_t bad = 0;
  for (uint64_t i = 0; i < words; i++) bad += a[i] != i * 31 + (uint64_t)tag;
  CHECK(bad == 0);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();
  const uint64_t pages = 5 * (uint64_t)n + 3;  // not a multiple of n
  const uint64_t words = pages * 512;

  uint64_t* cyc = nullptr;
  CHECK_OK(loom_alloc_collective_policy(pages * 4096, LOOM_HOME_CYCLIC, (void**)&cyc));
  int bad = 0;
  for (uint64_t p = 0; p < pages; p++) {
    int h = -2;
    CHECK_OK(loom_home_of(cyc + p * 512, &h));
    bad += h != (int)(p % n);
  }
  CHECK(bad == 0);
  fill_and_check(cyc, words, r, n, 1);

  uint64_t* blk = nullptr;
  CHECK_OK(loom_alloc_collective_policy(pages * 4096, LOOM_HOME_BLOCK, (void**)&blk));
  uint64_t chunk = (pages + n - 1) / n;
  bad = 0;
  int prev = 0;
  for (uint64_t p = 0; p < pages; p++) {
    int h = -2;
    CHECK_OK(loom_home_of(blk + p * 512, &h));
    bad += h != (int)(p / chunk);
    bad += h < prev;  // contiguous, ascending chunks
    prev = h;
  }
  CHECK(bad == 0);
  fill_and_check(blk, words, r, n, 2);

  uint64_t* ex = nullptr;
  CHECK_OK(loom_alloc_collective_at(pages * 4096, n - 1, (void**)&ex));
  bad = 0;
  for (uint64_t p = 0; p < pages; p++) {
    int h = -2;
    CHECK_OK(loom_home_of(ex + p * 512, &h));
    bad += h != n - 1;
  }
  CHECK(bad == 0);
  fill_and_check(ex, words, r, n, 3);

  // First touch: before any touch no page has a home; rank (p mod n) touches
  // page p first (the others wait at a barrier), and becomes its home.
  uint64_t* ft = nullptr;
  CHECK_OK(loom_alloc_collective_policy(pages * 4096, LOOM_HOME_FIRST_TOUCH, (void**)&ft));
  bad = 0;
  for (uint64_t p = 0; p < pages; p++) {
    int h = -2;
    CHECK_OK(loom_home_of(ft + p * 512, &h));
    bad += h != -1;
  }
  CHECK(bad == 0);
  CHECK_OK(loom_barrier());  // everyone has looked before anyone touches
  for (uint64_t p = (uint64_t)r; p < pages; p += (uint64_t)n) ft[p * 512 + 5] = p;
  CHECK_OK(loom_barrier());
  bad = 0;
  for (uint64_t p = 0; p < pages; p++) {
    int h = -2;
    CHECK_OK(loom_home_of(ft + p * 512, &h));
    bad += h != (int)(p % n);
    bad += ft[p * 512 + 5] != p;
  }
  CHECK(bad == 0);
  fill_and_check(ft, words, r, n, 4);

  // Freed and reallocated memory takes the new policy and reads as zero.
  CHECK_OK(loom_free_collective(cyc));
  uint64_t* again = nullptr;
  CHECK_OK(loom_alloc_collective_at(pages * 4096, 0, (void**)&again));
  CHECK(again == cyc);  // first fit gives the same range back
  bad = 0;
  for (uint64_t p = 0; p < pages; p++) {
    int h = -2;
    CHECK_OK(loom_home_of(again + p * 512, &h));
    bad += h != 0;
  }
  CHECK(bad == 0);
  uint64_t nz = 0;
  for (uint64_t i = 0; i < words; i++) nz += again[i] != 0;
  CHECK(nz == 0);
  CHECK_OK(loom_barrier());  // everyone has read the zeros before anyone writes
  fill_and_check(again, words, r, n, 5);
  return mr_finish("mr_policies");
}
