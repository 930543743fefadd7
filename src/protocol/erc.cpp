// Eager release consistency (ERC) with multiple writers, invalidate and
// update flavours, per block (LOOM_PROTOCOL and
// loom_alloc_collective_protocol), on the driver's homes, twins and diffs:
//  - Each home keeps a copy-set per page (Meta, cs_off in protocol.hpp): a
//    rank ORs its bit in before it fetches a copy (one request for the whole
//    fetch window), so a release that reads the copy-set after its diffs are
//    complete at the home names every rank that may hold a stale copy.
//  - A home traps its own writes too (its pages go back to read-only at every
//    release), so that home writes are known exactly.
//  - Release: (diffs to the homes and flush, by the driver;) read the
//    copy-sets of the pages written; queue a notice {page, invalidate |
//    refresh} for each holder, which the driver publishes (notices.cpp).
//  - Acquire: the driver reads the rings; invalidate drops the copy, refresh
//    brings it up to date from the home (one get per run of pages), so the
//    update flavour's readers do not fault.  Copies without notices stay.
// Pages only their home uses would trap every home write for nothing: when a
// release finds nobody else in the copy-set of a home page, the home sets its
// own bit there (compare-and-swap against the value it read) and leaves the
// page writable ("untracked").  A rank that fetches the page sees that bit in
// the old value of its OR: it keeps its copy only until its next acquire (as
// HLRC would) and tells the home, which traps its writes again from its next
// acquire on.  That rule took LU's 12103 home write faults back to HLRC's 135.
// A rank that gets a notice for a page it has not held for a while (it
// dropped the copy 64 acquires ago or more and never fetched it again)
// leaves the page's copy-set if it is the only other rank there
// (erc_leave): it has no copy, and a later copy joins again before its
// get.  Before, bits were never cleared, and one early copy (SOR's rank 0
// writes the boundary column through every row) made the home trap and
// notify every write for the rest of the run: SOR under either eager
// protocol made 4.1 M faults and ran 15x its HLRC time.
#include "protocol/erc.hpp"

#include <algorithm>
#include <cstring>

#include "protocol/protocol.hpp"
#include "vm.hpp"

namespace loom {
namespace {

// Before fetching pages [first, first+n) from home h: join their copy-sets.
// A page the home writes untrapped (its bit in the old value) is kept only
// until the next acquire, and the home hears of the join.
void before_fetch(int h, uint64_t first, uint64_t n) {
  static uint64_t old[1024];  // n <= LOOM_UNIT_PAGES <= 1024; a fault must not allocate
  LOOM_ASSERT(n <= 1024);
  rt.tp.or_range(h, Seg::Meta, cs_off(first, my_plane()), n, my_bit(), old);
  bool told = false;
  for (uint64_t i = 0; i < n; i++) {
    uint8_t& f = rt.pages.flags[first + i];
    f &= (uint8_t)~kInstalled;  // a new copy (refreshed() marks it again when a notice installs it)
    if (old[i] & bit_in_plane(h, my_plane())) {
      f |= kUntracked;
      notice_queue(h, first + i, kNoticeJoined);
      told = true;
    } else {
      f &= (uint8_t)~kUntracked;
    }
  }
  if (told) notices_publish();
}

// A rank fetched untracked home page p: trap this rank's writes again.
void home_notice(uint64_t p, NoticeKind kind) {
  PageTable& pt = rt.pages;
  if (kind != kNoticeJoined || !(pt.flags[p] & kUntracked) || pt.home[p] != rt.rank) return;
  const uint64_t at = cs_off(p, my_plane());
  uint64_t cur = rt.tp.load(rt.rank, Seg::Meta, at), was;
  while ((was = rt.tp.cas(rt.rank, Seg::Meta, at, cur, cur & ~my_bit())) != cur) cur = was;
  pt.flags[p] &= (uint8_t)~kUntracked;
  if (pt.state[p] == kRW) {
    vm_protect(p, 1, kRO);
    pt.state[p] = kRO;
  }
}

// Notices for pages this rank wrote (their diffs complete at the homes):
// every other holder in the page's copy-set, but not the home.  Home pages
// nobody else holds go untracked instead.
void notify_holders(const std::vector<uint32_t>& pages) {
  static std::vector<uint64_t>& sets = *new std::vector<uint64_t>();   // never destroyed: see runtime.hpp
  static std::vector<uint64_t>& again = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  static const std::vector<uint32_t>* cur;
  if (pages.empty()) return;
  PageTable& pt = rt.pages;
  cur = &pages;
  load_rank_sets(
      pages.size(), [](size_t i, int w, int* r, uint64_t* off) {
        *r = rt.pages.home[(*cur)[i]];
        *off = cs_off((*cur)[i], w);
      },
      &sets);
  const int W = rank_planes();
  for (size_t i = 0; i < pages.size(); i++) {
    const uint32_t p = pages[i];
    const int h = pt.home[p];
    const uint64_t* set = &sets[i * (size_t)W];
    if (!names_other(set, rt.rank, h) && h == rt.rank && (pt.flags[p] & kHomeDirty)) {
      if (erc_go_untracked(p, set[0])) continue;
      again.resize((size_t)W);  // a rank joined meanwhile
      for (int w = 0; w < W; w++) again[(size_t)w] = rt.tp.load(rt.rank, Seg::Meta, cs_off(p, w));
      set = again.data();
    }
    const NoticeKind kind = pt.mode[p] == LOOM_PROTOCOL_ERC_UPDATE ? kNoticeRefresh : kNoticeInvalidate;
    for (int w = 0; w < W; w++)
      for (uint64_t bits = set[w] & ~bit_in_plane(rt.rank, w) & ~bit_in_plane(h, w); bits; bits &= bits - 1)
        notice_queue(64 * w + __builtin_ctzll(bits), p, kind);
  }
}

void home_write(uint64_t p) {
  uint8_t& f = rt.pages.flags[p];
  if (f & kHomeDirty) return;
  f |= kHomeDirty;  // the home's writes are noticed at its release
  rt.erc.home_dirty.push_back((uint32_t)p);
  rt.pages.release_work = true;
}

void release(const std::vector<uint32_t>& written) {
  PageTable& pt = rt.pages;
  std::vector<uint32_t>& home_dirty = rt.erc.home_dirty;
  static std::vector<uint32_t>& all = *new std::vector<uint32_t>();  // never destroyed: see runtime.hpp
  all.assign(written.begin(), written.end());
  all.insert(all.end(), home_dirty.begin(), home_dirty.end());
  notify_holders(all);
  // Trap the home's next write, except on pages that went untracked.
  std::sort(home_dirty.begin(), home_dirty.end());
  size_t kept = 0;
  for (uint32_t p : home_dirty) {
    pt.flags[p] &= (uint8_t)~kHomeDirty;
    if (!(pt.flags[p] & kUntracked)) home_dirty[kept++] = p;
  }
  home_dirty.resize(kept);
  for_runs(home_dirty, [&](uint64_t first, uint64_t n) {
    vm_protect(first, n, kRO);
    std::memset(&pt.state[first], kRO, n);
  });
  home_dirty.clear();
}

// Copies stay until a notice says otherwise, except those fetched while the
// home wrote untrapped: dropped, or refreshed once more when a notice
// installed or refreshed them (see refreshed()).
void acquire(const std::vector<uint32_t>& cached, AcquireVerdicts* out) {
  for (uint32_t p : cached) {
    uint8_t& f = rt.pages.flags[p];
    if (!(f & kUntracked)) {
      out->keep.push_back(p);
    } else if (rt.pages.state[p] != kRW && (f & kInstalled)) {
      f &= (uint8_t)~kInstalled;
      out->refresh.push_back(p);
    } else {
      out->drop.push_back(p);
    }
  }
}

void after_atomic(uint64_t p) {
  static std::vector<uint32_t>& one = *new std::vector<uint32_t>(1);  // never destroyed: see runtime.hpp
  one[0] = (uint32_t)p;
  notify_holders(one);
  notices_publish();
}

// No rank holds a copy of the new block (every rank calls this between two
// barriers, so no copy-set word is in use).
void forget_range(uint64_t first, uint64_t n) {
  for (int w = 0; w < rank_planes(); w++) rt.tp.zero_self_meta(cs_off(first, w), n * 8);
}

// A writable home page is on the home_dirty list or untracked.
void check_page([[maybe_unused]] uint64_t p) {
  LOOM_EXPENSIVE_ASSERT(!(rt.pages.state[p] == kRW && rt.pages.home[p] == rt.rank) ||
                        (rt.pages.flags[p] & (kHomeDirty | kUntracked)));
}

// A notice may have been read at an acquire that raced ahead of the
// sender's release (the sender left the barrier first and released before
// this rank's acquire read its ring): the acquire the notice was meant for
// is then the next one, which must not drop the copy it brought, as it
// drops every copy fetched while the home wrote untrapped (loom_update's
// home pages go untracked at the very release that sends the installs).
// So that acquire refreshes such a copy instead, once (as HLRC does): a get
// at the acquire is as current as a fetch after it, and the copy, still
// marked untracked, is dropped by the acquire after.
void refreshed(uint64_t p, bool by_notice) {
  if (by_notice) rt.pages.flags[p] |= kInstalled;
}
void before_write(uint64_t, int*) {}
void before_atomic(uint64_t, int*) {}  // the holders hear of the atomic from after_atomic


constexpr PageProtocol kOps = {
    .name = "erc",
    .needs_notices = true,
    .migrates = false,  // the copy-sets live at the home
    .writer_sets = false,
    .before_fetch = before_fetch,
    .refreshed = refreshed,
    .before_write = before_write,
    .home_write = home_write,
    .release = release,
    .acquire = acquire,
    .home_notice = home_notice,
    .before_atomic = before_atomic,
    .after_atomic = after_atomic,
    .forget_range = forget_range,
    .check_page = check_page,
};
static_assert(protocol_complete(kOps));

}  // namespace

const PageProtocol kErc = kOps;

// One compare-and-swap: out if this rank is the only one in its word of
// the set, which is when leaving lets the home write untracked; with others
// in it, it stays (a notice it ignores costs less than a round trip per
// page).
void erc_leave(uint64_t p) {
  (void)rt.tp.cas(rt.pages.home[p], Seg::Meta, cs_off(p, my_plane()), my_bit(), 0);
}

// With more than 64 ranks a copy-set is several words, which no one CAS
// covers: home pages stay tracked (their writes trap).
bool erc_go_untracked(uint64_t p, uint64_t seen) {
  if (rank_planes() > 1) return false;
  if (rt.tp.cas(rt.rank, Seg::Meta, cs_off(p), seen, seen | my_bit()) != seen) return false;
  rt.pages.flags[p] |= kUntracked;
  return true;
}

}  // namespace loom
