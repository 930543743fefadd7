// Home-based lazy release consistency with multiple writers (HLRC), with
// one-sided operations only: no handler runs on the home.
//
//  - Fault on a page homed here: map it in place (it is the home copy).  The
//    first write registers this rank in the page's writer set; after that the
//    page stays writable: no twin, diff or fault in steady state.
//  - Read fault on a page homed elsewhere: one get of the page and of the
//    following pages with the same home (LOOM_UNIT_PAGES, aligned window)
//    into this rank's cache slots, then one mprotect.
//  - Write fault on a page homed elsewhere: twin, register as writer, map
//    writable, remember as dirty.
//  - Release: byte-exact diffs of dirty pages are put straight into the home
//    copies; the release completes after the puts are complete remotely.
//  - Acquire: drop every cached copy whose writer set names another rank.
//    Writer sets are sticky classification (ArgoDSM's Pyxis idea reduced to
//    writers): a home writes in place without faults, so there are no exact
//    write notices for home pages; "another rank is a writer" is the
//    may-have-written test.  Pages only this rank writes, and pages nobody
//    else writes (read-only data), stay cached across acquires.
//
// Homes: the directory entry {home+1, writer mask} of page p lives on rank
// p mod N.  First touch claims the home by compare-and-swap (ARDMAR).
//
// Home migration (LOOM_MIGRATE=1), at barriers only: between the release
// and the acquire of a barrier every rank is quiescent (all diffs are at the
// homes, nobody writes), so a page homed elsewhere that this rank wrote in
// kMigrateAfter intervals (one stray write, such as a boundary set once,
// must not move a page) can change home safely: CAS the
// directory's home word to this rank with a sticky MIGRATED mark (a page
// moves at most once, so pages two ranks keep writing do not ping-pong),
// copy the now final home copy into this rank's slot, and post the page to
// the old home's "lost homes" mailbox, which it reads at the barrier's
// acquire.  A second raw barrier closes the window.  With migration on, a
// rank re-reads the directory before fetching a page instead of trusting a
// home it cached (the forwarding rule).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "diff.hpp"
#include "runtime.hpp"

namespace loom {
namespace {

uint64_t my_bit() { return 1ull << rt.rank; }
uint8_t* slot(uint64_t p) { return rt.tp.self_data() + p * kPage; }

bool fetchable(uint64_t q, int h) {
  return (rt.flags[q] & kAlloc) && rt.state[q] == kNone && proto_home(q, false) == h;
}

void list_cached(uint64_t q) {
  if (!(rt.flags[q] & kListed)) {
    rt.flags[q] |= kListed;
    rt.cached.push_back((uint32_t)q);
  }
}

void register_writer(uint64_t p) {
  if (rt.flags[p] & kIWriter) return;
  uint64_t old = rt.tp.fetch_or(dir_rank(p), Seg::Meta, dir_off(p) + 8, my_bit());
  rt.flags[p] |= kIWriter;
  if (old & ~my_bit()) rt.flags[p] |= kOtherWritten;
}

constexpr uint64_t kMigrated = 1ull << 62;  // sticky mark in the home word: this page moved once

int home_in_word(uint64_t v) { return (v & ~kMigrated) == 0 ? -1 : (int)((v & ~kMigrated) - 1); }

// The home as the directory says now; -1 if unclaimed.
int dir_home(uint64_t p) { return home_in_word(rt.tp.load(dir_rank(p), Seg::Meta, dir_off(p))); }

// This rank is no longer the home of p: drop the page (its slot is stale).
void lose_home(uint64_t p) {
  if (rt.home[p] != rt.rank) return;
  if (rt.state[p] != kNone) vm_protect(p, 1, kNone);
  rt.state[p] = kNone;
  rt.home[p] = -1;
}

// Apply the notices of homes other ranks took from this one.
void process_lost_homes() {
  if (!rt.cfg.migrate) return;
  Transport& tp = rt.tp;
  const uint64_t count = tp.load(rt.rank, Seg::Meta, rt.meta.lost);
  if (count - rt.lost_consumed > kLostMax) {
    // The mailbox overflowed: check every page this rank homes.
    for (uint64_t p = 0; p < rt.npages; p++)
      if (rt.home[p] == rt.rank && dir_home(p) != rt.rank) lose_home(p);
    rt.lost_consumed = count;
    return;
  }
  while (rt.lost_consumed < count) {
    const uint64_t off = rt.meta.lost + 8 + (rt.lost_consumed % kLostMax) * 8;
    uint64_t e = tp.load(rt.rank, Seg::Meta, off);
    if (e == 0) break;  // announced, not written yet: the next acquire takes it
    tp.store(rt.rank, Seg::Meta, off, 0);
    lose_home(e - 1);
    rt.lost_consumed++;
  }
}

// With migration, a cached home may be stale (the page moved at a barrier):
// the directory says where this rank's writes must go.  Returns true (and
// updates *h) when the home changed.
bool refresh_home(uint64_t p, int* h) {
  if (!rt.cfg.migrate) return false;
  int now_home = dir_home(p);
  if (now_home == *h) return false;
  if (*h == rt.rank) lose_home(p);
  rt.home[p] = (int16_t)now_home;
  *h = now_home;
  return true;
}

// Inside a barrier's quiescent window: take the home of page p (which this
// rank wrote since the last barrier) unless it moved before.
bool try_migrate(uint64_t p) {
  Transport& tp = rt.tp;
  const int old_home = rt.home[p];
  if (old_home < 0 || old_home == rt.rank || !(rt.flags[p] & kAlloc)) return false;
  const uint64_t cur = (uint64_t)old_home + 1, me = (uint64_t)rt.rank + 1;
  if (tp.cas(dir_rank(p), Seg::Meta, dir_off(p), cur, me | kMigrated) != cur) return false;
  // The old home's copy is final (every diff of the interval is in it), so
  // it becomes this rank's home copy.
  tp.get(old_home, Seg::Data, p * kPage, slot(p), kPage);
  uint64_t idx = tp.fetch_add(old_home, Seg::Meta, rt.meta.lost, 1);
  tp.store(old_home, Seg::Meta, rt.meta.lost + 8 + (idx % kLostMax) * 8, p + 1);
  LOOM_ASSERT(rt.state[p] != kRW);  // released before the window
  rt.home[p] = (int16_t)rt.rank;
  rt.st.s.migrations++;
  return true;
}

// Apply f(first, count) to maximal runs of consecutive page numbers in a
// sorted list.
template <class F>
void for_runs(const std::vector<uint32_t>& pages, F&& f) {
  size_t i = 0;
  while (i < pages.size()) {
    size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + 1) j++;
    f(pages[i], j - i);
    i = j;
  }
}

struct PutCtx {
  int home;
  uint64_t off;
};

void put_run(uint32_t o, uint32_t len, void* c) {
  auto* ctx = static_cast<PutCtx*>(c);
  rt.tp.put(ctx->home, Seg::Data, ctx->off + o, rt.tp.self_data() + ctx->off + o, len);
}

// Allocate the cache slots of pages [first, first+n) in one system call
// instead of one kernel fault per page during the copy (a fresh slot is an
// unpopulated page of the memfd).  Best effort: old kernels lack the advice.
void populate(uint64_t first, uint64_t n) {
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
  static bool supported = true;
  if (n < 2 || !supported) return;
  if (madvise(slot(first), n * kPage, MADV_POPULATE_WRITE) != 0 && errno == EINVAL) supported = false;
}

// Invariants 1-4 of runtime.hpp, in the debug-full build (O(pages)).
void check_invariants() {
#if LOOM_DEBUG >= 2
  std::vector<uint8_t> on_dirty(rt.npages, 0), on_cached(rt.npages, 0);
  for (uint32_t p : rt.dirty) {
    LOOM_EXPENSIVE_ASSERT(!on_dirty[p]);
    LOOM_EXPENSIVE_ASSERT(rt.home[p] != rt.rank);
    on_dirty[p] = 1;
  }
  for (uint32_t p : rt.cached) {
    LOOM_EXPENSIVE_ASSERT(!on_cached[p]);
    on_cached[p] = 1;
  }
  for (uint64_t p = 0; p < rt.npages; p++) {
    LOOM_EXPENSIVE_ASSERT(rt.state[p] == kNone || (rt.flags[p] & kAlloc));
    LOOM_EXPENSIVE_ASSERT(!(rt.state[p] == kRW && rt.home[p] != rt.rank) || on_dirty[p]);
    LOOM_EXPENSIVE_ASSERT(((rt.flags[p] & kListed) != 0) == (on_cached[p] != 0));
  }
#endif
}

}  // namespace

uint64_t dir_rank(uint64_t p) { return p % (uint64_t)rt.nranks; }
uint64_t dir_off(uint64_t p) { return rt.meta.dir + (p / (uint64_t)rt.nranks) * 16; }

int proto_home(uint64_t p, bool claim) {
  int h = rt.home[p];
  // With migration a cached home may be stale: a page about to be fetched
  // asks the directory again (this rank's own homes it learns by mailbox).
  if (h >= 0 && !(rt.cfg.migrate && h != rt.rank && rt.state[p] == kNone)) return h;
  uint64_t v = rt.tp.load(dir_rank(p), Seg::Meta, dir_off(p)) & ~kMigrated;
  if (v == 0 && claim) {
    // The slot holds nothing valid (the page is not cached here), so it can
    // be zeroed before it is offered as the home copy.
    if (rt.state[p] == kNone) std::memset(slot(p), 0, kPage);
    v = rt.tp.cas(dir_rank(p), Seg::Meta, dir_off(p), 0, (uint64_t)rt.rank + 1);
    if (v == 0) v = (uint64_t)rt.rank + 1;
  }
  if (v == 0) return -1;
  rt.home[p] = (int16_t)(v - 1);
  return (int)(v - 1);
}

void proto_make_readable(uint64_t p) {
  if (rt.state[p] != kNone) return;
  int h = proto_home(p, true);
  if (h == rt.rank) {
    vm_protect(p, 1, kRO);
    rt.state[p] = kRO;
    return;
  }
  // The aligned window of LOOM_UNIT_PAGES around p, cut to the contiguous
  // pages that are allocated, not cached, and homed at the same rank.
  uint64_t unit = rt.cfg.unit_pages;
  uint64_t lo = p - p % unit, hi = std::min(lo + unit, rt.npages);
  uint64_t first = p, end = p + 1;
  while (first > lo && fetchable(first - 1, h)) first--;
  while (end < hi && fetchable(end, h)) end++;
  uint64_t n = end - first;
  populate(first, n);
  rt.tp.get(h, Seg::Data, first * kPage, slot(first), n * kPage);
  vm_protect(first, n, kRO);
  for (uint64_t q = first; q < end; q++) {
    rt.state[q] = kRO;
    list_cached(q);
  }
  rt.st.s.pages_fetched += n;
  rt.st.s.bytes_fetched += n * kPage;
}

void proto_make_writable(uint64_t p) {
  if (rt.state[p] == kRW) return;
  int h = proto_home(p, true);
  if (h != rt.rank && rt.state[p] == kNone) proto_make_readable(p);
  register_writer(p);
  if (refresh_home(p, &h) && rt.state[p] == kNone) proto_make_readable(p);
  if (h != rt.rank) {
    std::memcpy(rt.twins + p * kPage, slot(p), kPage);
    rt.dirty.push_back((uint32_t)p);
    rt.st.s.twins++;
  }
  vm_protect(p, 1, kRW);
  rt.state[p] = kRW;
}

bool proto_fault(uint64_t p, int is_write) {
  if (!(rt.flags[p] & kAlloc)) {
    // A block another rank allocated: learn it from the heap table.
    if (!heap_mark_if_allocated(p)) return false;
  }
  uint8_t s = rt.state[p];
  if (is_write < 0) is_write = s == kRO ? 1 : 0;  // unknown: read first, a write faults again
  if (s == kRW || (s == kRO && !is_write)) return false;  // the access was allowed: not ours
  double t0 = stat_now();
  if (is_write) {
    rt.st.s.write_faults++;
    proto_make_writable(p);
  } else {
    rt.st.s.read_faults++;
    proto_make_readable(p);
  }
  rt.st.s.t_fault += stat_now() - t0;
  return true;
}

void proto_release() {
  if (rt.dirty.empty()) {
    rt.tp.flush();
    return;
  }
  double t0 = stat_now();
  std::sort(rt.dirty.begin(), rt.dirty.end());
  if (rt.cfg.migrate)  // candidates for the next barrier's migration window
    rt.migrate_candidates.insert(rt.migrate_candidates.end(), rt.dirty.begin(), rt.dirty.end());
  for (uint32_t p : rt.dirty) {
    PutCtx ctx{rt.home[p], (uint64_t)p * kPage};
    size_t bytes = diff_runs(rt.twins + ctx.off, slot(p), kPage, put_run, &ctx);
    rt.st.s.diffs++;
    rt.st.s.diff_bytes += bytes;
  }
  rt.tp.flush();
  for_runs(rt.dirty, [](uint64_t first, uint64_t n) {
    vm_protect(first, n, kRO);
    std::memset(&rt.state[first], kRO, n);
  });
  rt.dirty.clear();
  rt.st.s.t_diff += stat_now() - t0;
  check_invariants();
}

void proto_acquire() {
  rt.tp.sync_local();
  process_lost_homes();
  check_invariants();
  if (rt.cached.empty()) return;
  static std::vector<uint32_t> drop, check;
  static std::vector<uint64_t> writers;
  drop.clear();
  check.clear();
  for (uint32_t p : rt.cached) {
    if (rt.state[p] == kNone || rt.home[p] == rt.rank || !(rt.flags[p] & kAlloc)) {
      rt.flags[p] &= (uint8_t)~kListed;
    } else if (rt.flags[p] & kOtherWritten) {
      drop.push_back(p);
      rt.flags[p] &= (uint8_t)~kListed;
    } else {
      check.push_back(p);
    }
  }
  writers.resize(check.size());
  rt.tp.load_many(
      check.size(), [](size_t i, int* r, uint64_t* off) {
        *r = (int)dir_rank(check[i]);
        *off = dir_off(check[i]) + 8;
      },
      writers.data());
  rt.cached.clear();
  for (size_t i = 0; i < check.size(); i++) {
    uint32_t p = check[i];
    if (writers[i] & ~my_bit()) {
      rt.flags[p] = (uint8_t)((rt.flags[p] | kOtherWritten) & ~kListed);
      drop.push_back(p);
    } else {
      rt.cached.push_back(p);
    }
  }
  if (drop.empty()) return;
  std::sort(drop.begin(), drop.end());
  for_runs(drop, [](uint64_t first, uint64_t n) {
    vm_protect(first, n, kNone);
    std::memset(&rt.state[first], kNone, n);
  });
  rt.st.s.invalidations += drop.size();
  check_invariants();
}

void proto_migrate_window() {
  if (!rt.cfg.migrate) return;
  std::vector<uint32_t>& now = rt.migrate_candidates;
  std::sort(now.begin(), now.end());
  now.erase(std::unique(now.begin(), now.end()), now.end());
  // A page moves once this rank has written it in kMigrateAfter barrier
  // intervals (not necessarily in a row: double-buffered arrays are written
  // every other interval), so that one stray write, such as a boundary set
  // once or an initialization, does not take a home from its real writer.
  for (uint32_t p : now)
    if (rt.migrate_count[p] < kMigrateAfter && ++rt.migrate_count[p] == kMigrateAfter) try_migrate(p);
  now.clear();
  rt.tp.flush();
}

void proto_before_atomic(uint64_t p) {
  int h = proto_home(p, true);
  if (h != rt.rank && rt.state[p] != kNone) {
    if (rt.state[p] == kRW) proto_release();  // this rank's writes to the page go first
    vm_protect(p, 1, kNone);                  // the copy would miss the atomic's update
    rt.state[p] = kNone;
  }
  register_writer(p);
  refresh_home(p, &h);
}

void proto_forget_copies(uint64_t first, uint64_t n, bool allocated) {
  for (uint64_t p = first; p < first + n; p++) {
    if (rt.home[p] != rt.rank && rt.state[p] != kNone) {
      LOOM_ASSERT(rt.state[p] != kRW);  // callers release first
      vm_protect(p, 1, kNone);
      rt.state[p] = kNone;
    }
    if (!rt.migrate_count.empty()) rt.migrate_count[p] = 0;
    if (allocated) rt.flags[p] |= kAlloc | kSingle;
    else rt.flags[p] &= (uint8_t)~(kAlloc | kSingle);
    rt.heap_checked[p] = ~0u;  // unknown: the next check reads the table
  }
}

void proto_reset_range(uint64_t first, uint64_t n, bool allocated, loom_home_policy_t policy, int explicit_home) {
  process_lost_homes();  // notices about the range's old life must not hit its new one
  vm_protect(first, n, kNone);
  const uint64_t N = (uint64_t)rt.nranks;
  uint64_t chunk = (n + N - 1) / N;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t p = first + i;
    int h = -1;
    if (allocated) switch (policy) {
        case LOOM_HOME_CYCLIC: h = (int)(i % N); break;
        case LOOM_HOME_BLOCK: h = (int)(i / chunk); break;
        case LOOM_HOME_EXPLICIT: h = explicit_home; break;
        default: h = -1;
      }
    rt.state[p] = kNone;
    rt.flags[p] = (uint8_t)((rt.flags[p] & kListed) | (allocated ? kAlloc : 0));  // collective: not kSingle
    if (!rt.migrate_count.empty()) rt.migrate_count[p] = 0;
    rt.home[p] = (int16_t)h;
    if (dir_rank(p) == (uint64_t)rt.rank) {
      rt.tp.store(rt.rank, Seg::Meta, dir_off(p), (uint64_t)(h + 1));
      rt.tp.store(rt.rank, Seg::Meta, dir_off(p) + 8, 0);
    }
  }
  // Fresh contents: the home copies of the range read as zero.
  if (rt.tp.all_direct()) {
    if (fallocate(rt.tp.data_fd(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(first * kPage),
                  (off_t)(n * kPage)) != 0)
      std::memset(slot(first), 0, n * kPage);
  } else {
    for (uint64_t p = first; p < first + n; p++)
      if (rt.home[p] == rt.rank) std::memset(slot(p), 0, kPage);
  }
}

const Protocol kHlrc = {"hlrc",           proto_fault,         proto_make_readable, proto_make_writable,
                        proto_release,    proto_acquire,       proto_before_atomic, proto_home,
                        proto_forget_copies, proto_reset_range, proto_migrate_window};

}  // namespace loom
