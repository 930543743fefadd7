// Home placement: cyclic, block, explicit and first-touch put every page's
// home where the policy says (checked with loom_home_of on every rank), and
// data written by non-home ranks reaches the homes under each policy.
//
// mr_policies T runs T threads per rank: thread 0 makes the collective
// allocations and the free; every thread checks every page's home; the
// strided writes are split among all workers (word i by worker i mod W, so
// the threads of a rank write the same pages at once and the homes must
// get every worker's words), and every thread checks every word.  Under
// first touch every thread of rank (p mod n) writes its own word of page p
// at once (the siblings race to touch it first): the page's home is still
// that rank and no thread's word is lost (where the ranks share pages on
// one host, the rank of a page of its unit: a first touch claims its unit).  Every thread reads the
// reallocated block at once and must see zeros.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "mr.h"

static void fill_and_check(uint64_t* a, uint64_t words, int w, int W, int tag) {
  mr_wbar();  // every worker's reads of the old values are done
  // Each worker writes a strided share (so most writes are to pages homed
  // elsewhere, and a page is written by several threads of a rank).
  for (uint64_t i = (uint64_t)w; i < words; i += (uint64_t)W) a[i] = i * 31 + (uint64_t)tag;
  mr_wbar();
  uint64_t bad = 0;
  for (uint64_t i = 0; i < words; i++) bad += a[i] != i * 31 + (uint64_t)tag;
  CHECK(bad == 0);
  if (bad) fprintf(stderr, "rank %d thread %d: %llu words wrong (tag %d)\n", loom_rank(), mr_t, (unsigned long long)bad, tag);
}

static void* g_slot;

// Thread 0 makes the allocation (collective); its siblings get the pointer.
static uint64_t* walloc_policy(uint64_t bytes, loom_home_policy_t policy, int at) {
  if (mr_t == 0) {
    void* p = nullptr;
    CHECK_OK(at >= 0 ? loom_alloc_collective_at(bytes, at, &p) : loom_alloc_collective_policy(bytes, policy, &p));
    g_slot = p;
  }
  mr_rbar();
  uint64_t* p = (uint64_t*)g_slot;
  mr_rbar();  // nobody overwrites the slot before every thread read it
  return p;
}

static void body(int w, int W) {
  const int r = loom_rank(), n = loom_nranks(), t = mr_t, T = mr_T;
  const uint64_t pages = 5 * (uint64_t)n + 3;  // not a multiple of n
  const uint64_t words = pages * 512;
  CHECK(T <= 500);  // first touch: words 5 + t of a page

  uint64_t* cyc = walloc_policy(pages * 4096, LOOM_HOME_CYCLIC, -1);
  int bad = 0;
  for (uint64_t p = 0; p < pages; p++) {
    int h = -2;
    CHECK_OK(loom_home_of(cyc + p * 512, &h));
    bad += h != (int)(p % n);
  }
  CHECK(bad == 0);
  fill_and_check(cyc, words, w, W, 1);

  uint64_t* blk = walloc_policy(pages * 4096, LOOM_HOME_BLOCK, -1);
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
  fill_and_check(blk, words, w, W, 2);

  uint64_t* ex = walloc_policy(pages * 4096, LOOM_HOME_CYCLIC, n - 1);
  bad = 0;
  for (uint64_t p = 0; p < pages; p++) {
    int h = -2;
    CHECK_OK(loom_home_of(ex + p * 512, &h));
    bad += h != n - 1;
  }
  CHECK(bad == 0);
  fill_and_check(ex, words, w, W, 3);

  // First touch: before any touch no page has a home; rank (p mod n) touches
  // page p first (the others wait at a barrier), and becomes its home.  All
  // the threads of that rank touch it at once, each its own word.
  uint64_t* ft = walloc_policy(pages * 4096, LOOM_HOME_FIRST_TOUCH, -1);
  bad = 0;
  for (uint64_t p = 0; p < pages; p++) {
    int h = -2;
    CHECK_OK(loom_home_of(ft + p * 512, &h));
    bad += h != -1;
  }
  CHECK(bad == 0);
  mr_wbar();  // everyone has looked before anyone touches
  for (uint64_t p = (uint64_t)r; p < pages; p += (uint64_t)n) ft[p * 512 + 5 + t] = p + 1000 * (uint64_t)t;
  mr_wbar();
  bad = 0;
  // Where every rank shares pages on one host, a first touch claims the rest
  // of its unit (LOOM_UNIT_PAGES) for its rank, so ranks touching pages in
  // turn split each unit by who came first: every page has a home there,
  // the rank of a page of its unit.
  const char* share = getenv("LOOM_HOST_SHARE");
  const char* trace = getenv("LOOM_TRACE");
  const bool shared = !(share && !strcmp(share, "0")) && !(trace && *trace) && loom_direct_peers() == n - 1;
  for (uint64_t p = 0; p < pages; p++) {
    int h = -2;
    CHECK_OK(loom_home_of(ft + p * 512, &h));
    bad += shared ? h < 0 || h >= n : h != (int)(p % n);
    for (int q = 0; q < T; q++) bad += ft[p * 512 + 5 + q] != p + 1000 * (uint64_t)q;
  }
  CHECK(bad == 0);
  fill_and_check(ft, words, w, W, 4);

  // Freed and reallocated memory takes the new policy and reads as zero.
  mr_rbar();  // this rank's threads are done with cyc (every rank's, since the barriers above)
  if (t == 0) CHECK_OK(loom_free_collective(cyc));
  uint64_t* again = walloc_policy(pages * 4096, LOOM_HOME_CYCLIC, 0);
  CHECK(again == cyc);  // first fit gives the same range back
  bad = 0;
  for (uint64_t p = 0; p < pages; p++) {
    int h = -2;
    CHECK_OK(loom_home_of(again + p * 512, &h));
    bad += h != 0;
  }
  CHECK(bad == 0);
  uint64_t nz = 0;  // every thread at once, each from its own page on
  for (uint64_t k = 0; k < words; k++) nz += again[(k + (uint64_t)t * 512 * 3) % words] != 0;
  CHECK(nz == 0);
  mr_wbar();  // everyone has read the zeros before anyone writes
  fill_and_check(again, words, w, W, 5);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), body);
  return mr_finish("mr_policies");
}
