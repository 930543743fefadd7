// Page-state transitions of the HLRC protocol, read from the runtime's own
// page table (this test links the internal library, built with the
// debug-full invariant checks):
//   remote page: NONE -read-> RO (fetched, cached) -write-> RW (twin, dirty)
//                -release-> RO (diff made, twin dropped)
//                -acquire, another rank wrote it-> NONE (invalidated)
//                -acquire, only this rank writes it-> stays RO
//   home page:   NONE -read-> RO -write-> RW, no twin; stays RW across
//                barriers (written in place, no fault in steady state)
//
// mr_pagestate T runs T threads per rank, and a page's state is the rank's:
// thread 0 reads the remote page in, and its siblings then read it with no
// fault; the last thread writes it first (one write fault, one twin) and
// the others then write their own words of it with no fault and no second
// twin; thread 0's barrier releases it (one diff, back to RO), and the
// siblings' words reach the home with it.  Every thread writes its word of
// the home pages, every thread reads the remote page again at once after
// the home wrote it (one read fault for the rank), and every thread checks
// the values.  Thread 0 makes the collective calls and reads the page table
// and the rank's statistics after mr_rbar(), when the siblings' accesses
// are done.
#include <cstring>

#include "mr.h"
#include "runtime.hpp"

using namespace loom;

static uint64_t pg(const void* p) { return (uint64_t)((const uint8_t*)p - rt.base) / kPage; }

// Words of page 0 of a block: 1 the home's write, 3 the first read, 8 + rank
// the writer rank's own word, kSib + t thread t's word of the remote page,
// kHome + t the home's thread t's word.
enum { kSib = 128, kHomeW = 256 };
static uint64_t sib_value(int r, int t) { return 0x5000 + (uint64_t)r * 64 + (uint64_t)t; }
static uint64_t home_value(int r, int t) { return 0x7000 + (uint64_t)r * 64 + (uint64_t)t; }

static uint64_t* g_blocks[64];
static loom_stats_t g_s0, g_s1;

static loom_stats_t thread_stats() {
  loom_stats_t s;
  CHECK_OK(loom_thread_stats_get(&s));
  return s;
}

static void body(int w, int W) {
  (void)w;
  (void)W;
  const int r = loom_rank(), n = loom_nranks(), t = mr_t, T = mr_T;
  const int other = (r + 1) % n;  // pages homed at the next rank
  CHECK(n >= 2 && n <= 64);  // a remote page needs a second rank
  loom_stats_t& s0 = g_s0;
  loom_stats_t& s1 = g_s1;
  // One block homed at each rank (collective, thread 0); every rank works
  // on the block homed at its successor.
  if (t == 0)
    for (int h = 0; h < n; h++) CHECK_OK(loom_alloc_collective_at(4 * 4096, h, (void**)&g_blocks[h]));
  mr_rbar();
  uint64_t* remote = g_blocks[other];
  uint64_t* home = g_blocks[r];
  const uint64_t p = pg(remote);
  CHECK(rt.pages.state[p] == kNone);
  CHECK(rt.pages.home[p] == other);
  mr_rbar();  // every thread looked before thread 0 reads

  // Read: fetched and cached read-only (with its neighbours in the unit).
  if (t == 0) {
    CHECK_OK(loom_stats_get(&s0));
    volatile uint64_t v = remote[3];
    (void)v;
    CHECK_OK(loom_stats_get(&s1));
    CHECK(rt.pages.state[p] == kRO);
    CHECK(s1.read_faults == s0.read_faults + 1);
    CHECK(s1.pages_fetched >= s0.pages_fetched + 1);
    CHECK(rt.pages.flags[p] & kListed);
  }
  mr_rbar();
  {  // ... and it is read-only for every thread of the rank: no fault here
    const loom_stats_t a = thread_stats();
    uint64_t sum = 0;
    for (int k = 0; k < 512; k += 7) sum += ((volatile uint64_t*)remote)[k];
    const loom_stats_t b = thread_stats();
    CHECK(sum == 0);
    CHECK(b.read_faults == a.read_faults && b.write_faults == a.write_faults);
  }
  mr_rbar();
  if (t == 0) {
    loom_stats_t s2;
    CHECK_OK(loom_stats_get(&s2));
    CHECK(s2.read_faults == s1.read_faults);  // the siblings' reads took no fault
    CHECK(s2.pages_fetched == s1.pages_fetched);
    CHECK(rt.pages.state[p] == kRO);
    CHECK_OK(loom_stats_get(&s0));
  }
  mr_rbar();

  // Write (the last thread first): twin of the pre-write contents, on the
  // dirty list, writable.
  if (t == T - 1) {
    remote[r + 8] = 0x1234 + (uint64_t)r;
    remote[kSib + t] = sib_value(r, t);
  }
  mr_rbar();
  if (t == 0) {
    CHECK_OK(loom_stats_get(&s1));
    CHECK(rt.pages.state[p] == kRW);
    CHECK(rt.pages.dirty.size() == 1 && rt.pages.dirty[0] == p);
    CHECK(((uint64_t*)(rt.pages.twins + p * kPage))[r + 8] == 0);
    CHECK(rt.pages.flags[p] & kIWriter);
    CHECK(s1.write_faults == s0.write_faults + 1);
    CHECK(s1.twins == s0.twins + 1);
  }
  mr_rbar();
  // The other threads write their words: the page is writable for them, so
  // no fault and no second twin (which would hold the first writer's value).
  if (t != T - 1) {
    const loom_stats_t a = thread_stats();
    remote[kSib + t] = sib_value(r, t);
    const loom_stats_t b = thread_stats();
    CHECK(b.write_faults == a.write_faults && b.twins == a.twins);
  }
  mr_rbar();
  if (t == 0) {
    loom_stats_t s2;
    CHECK_OK(loom_stats_get(&s2));
    CHECK(s2.write_faults == s1.write_faults);
    CHECK(s2.twins == s1.twins);
    CHECK(rt.pages.state[p] == kRW);
    CHECK(rt.pages.dirty.size() == 1 && rt.pages.dirty[0] == p);
    const uint64_t* twin = (const uint64_t*)(rt.pages.twins + p * kPage);
    int bad = twin[r + 8] != 0;
    for (int q = 0; q < T; q++) bad += twin[kSib + q] != 0;
    CHECK(bad == 0);
  }
  mr_rbar();

  // Home page: in place, no twin, whichever threads write it (each its own
  // word, all at once): one write fault for the rank at most.
  const uint64_t hp = pg(home + 2 * 512);
  if (t == 0) CHECK_OK(loom_stats_get(&s0));
  mr_rbar();
  home[2 * 512 + 100 + t] = 5 + (uint64_t)t;
  mr_rbar();
  if (t == 0) {
    CHECK_OK(loom_stats_get(&s1));
    CHECK(rt.pages.state[hp] == kRW);
    CHECK(s1.twins == s0.twins);
    CHECK(s1.write_faults <= s0.write_faults + 1);
    CHECK(rt.pages.dirty.size() == 1);

    // Release at thread 0's barrier: diff made, page read-only again.
    // Every rank wrote its successor's page, so with n >= 2 the writers of
    // `remote` are this rank (and, for n == 2, the home also wrote its own
    // block) ...
    CHECK_OK(loom_stats_get(&s0));
    CHECK_OK(loom_barrier());
    CHECK_OK(loom_stats_get(&s1));
    CHECK(s1.diffs == s0.diffs + 1);  // one diff carries every thread's words
    CHECK(rt.pages.dirty.empty());
    // ... and the home of `remote` did not write that page, so only this
    // rank is its writer: the copy survives the acquire.
    CHECK(rt.pages.state[p] == kRO);
    CHECK(rt.pages.state[hp] == kRW);  // home page stays writable across barriers
  }
  mr_rbar();
  {  // the copy keeps every thread's words, read with no fault
    const loom_stats_t a = thread_stats();
    int bad = remote[r + 8] != 0x1234 + (uint64_t)r;
    for (int q = 0; q < T; q++) bad += remote[kSib + q] != sib_value(r, q);
    const loom_stats_t b = thread_stats();
    CHECK(bad == 0);
    CHECK(b.read_faults == a.read_faults);
  }

  // Home writes the page in place: the cached copy elsewhere is dropped at
  // the next acquire, and a re-read fetches the new value (and the words
  // of this rank's threads, which thread 0's barrier took to the home).
  mr_wbar();  // every rank's checks above are done before the next writes
  if (t == T - 1) home[1] = 0xbeef + (uint64_t)r;  // this rank is home of blocks[r]
  home[kHomeW + t] = home_value(r, t);
  mr_wbar();
  CHECK(rt.pages.state[p] == kNone);
  CHECK(rt.pages.flags[p] & kOtherWritten);
  mr_rbar();  // every thread looked before any reads
  if (t == 0) CHECK_OK(loom_stats_get(&s0));
  mr_rbar();
  {  // every thread reads at once: one of them fetches, the others wait for it
    int bad = remote[1] != 0xbeef + (uint64_t)other;
    bad += remote[8 + r] != 0x1234 + (uint64_t)r;  // own earlier write is at the home
    for (int q = 0; q < T; q++) {
      bad += remote[kSib + q] != sib_value(r, q);      // so are the siblings'
      bad += remote[kHomeW + q] != home_value(other, q);  // the home's threads' words
    }
    CHECK(bad == 0);
    if (bad) fprintf(stderr, "rank %d thread %d: %d words of the re-fetched page wrong\n", r, t, bad);
  }
  mr_rbar();
  if (t == 0) {
    CHECK_OK(loom_stats_get(&s1));
    CHECK(rt.pages.state[p] == kRO);
    CHECK(s1.read_faults == s0.read_faults + 1);  // one fault for the rank, however many threads read
  }

  // After its first write, a home page never needs a twin or a fault again.
  home[3 * 512 + t] = 0;
  mr_wbar();
  if (t == 0) CHECK_OK(loom_stats_get(&s0));
  mr_rbar();
  for (int k = 0; k < 10; k++) {
    home[3 * 512 + t] += 1;
    mr_wbar();
  }
  mr_rbar();
  if (t == 0) {
    CHECK_OK(loom_stats_get(&s1));
    CHECK(s1.write_faults == s0.write_faults);
    CHECK(s1.twins == s0.twins);
  }
  mr_rbar();
  CHECK(home[3 * 512 + t] == 10);
  int bad = 0;  // and every thread's counts reached the successor's readers
  for (int q = 0; q < T; q++) bad += remote[3 * 512 + q] != 10;
  CHECK(bad == 0);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), body);
  return mr_finish("mr_pagestate");
}
