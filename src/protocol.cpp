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
//
// Eager release consistency (ERC), per block (LOOM_PROTOCOL and
// loom_alloc_collective_protocol), on the same homes, twins and diffs:
//  - Each home keeps a copy-set word per page (Meta, at copyset + p*8): a
//    rank ORs its bit in before it fetches a copy (one request for the whole
//    fetch window), so a release that reads the copy-set after its diffs are
//    complete at the home names every rank that may hold a stale copy.
//  - A home traps its own writes too (its pages go back to read-only at every
//    release), so that home writes are known exactly.
//  - Release: diffs to the homes, flush; read the copy-sets of the pages
//    written; post a notice {page, invalidate|refresh} into each holder's
//    ring for this rank (single producer, single consumer, in the holder's
//    Meta), flush, then publish the ring heads.
//  - Acquire: read the rings; invalidate drops the copy, refresh brings the
//    copy up to date from the home (one get per run of pages), so the update
//    protocol's readers do not fault.  A copy this rank is writing (twinned)
//    is merged: the home's bytes where this rank did not write, and the twin
//    becomes the home's page, so that this rank's diff stays its own writes.
//    Notices are order-free (both act on the home's current copy), so rings
//    from different writers need no common order.  A full ring makes the
//    writer bump an overflow generation instead; the holder then drops every
//    eager copy it has.
// Pages only their home uses would trap every home write for nothing: when a
// release finds nobody else in the copy-set of a home page, the home sets its
// own bit there (compare-and-swap against the value it read) and leaves the
// page writable.  A rank that fetches the page sees that bit in the old value
// of its OR: it keeps its copy only until its next acquire (as HLRC would)
// and tells the home, which traps its writes again from its next acquire on.
// loom_update uses the same rings under every protocol: at the release, each
// page of the range goes to every other rank as an "install" notice.
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

bool eager(uint64_t p) { return rt.mode[p] != LOOM_PROTOCOL_HLRC; }
uint64_t cs_off(uint64_t p) { return rt.meta.copyset + p * 8; }
// The ring that rank `writer` fills, in the Meta of the rank that reads it.
uint64_t ring_off(int writer) { return rt.meta.rings + (uint64_t)writer * kRingWords * 8; }

bool fetchable(uint64_t q, int h, uint8_t mode) {
  return (rt.flags[q] & kAlloc) && rt.state[q] == kNone && rt.mode[q] == mode && proto_home(q, false) == h;
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
  if (old_home < 0 || old_home == rt.rank || !(rt.flags[p] & kAlloc) || eager(p)) return false;
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

// ---- notices -------------------------------------------------------------

void queue_notice(int r, uint64_t p, NoticeKind kind) {
  rt.outbox[r].push_back(p << 2 | kind);
  rt.st.s.notices++;
}

// Send the queued notices: entries into the rings, flush, then the heads
// (a holder reads only entries below a head it sees).
void publish_notices() {
  Transport& tp = rt.tp;
  static std::vector<int> sent_to;
  sent_to.clear();
  for (int r = 0; r < rt.nranks; r++) {
    std::vector<uint64_t>& box = rt.outbox[r];
    if (box.empty()) continue;
    const uint64_t n = box.size(), ring = ring_off(rt.rank);
    if (rt.ring_sent[r] + n - rt.ring_tail[r] > kRingEntries)
      rt.ring_tail[r] = tp.load(r, Seg::Meta, ring + 8);
    if (rt.ring_sent[r] + n - rt.ring_tail[r] > kRingEntries) {
      rt.ring_ovf[r]++;  // no room: the holder drops every eager copy instead
    } else {
      const uint64_t at = rt.ring_sent[r] % kRingEntries, first = std::min(n, kRingEntries - at);
      tp.put(r, Seg::Meta, ring + (8 + at) * 8, box.data(), first * 8);
      if (first < n) tp.put(r, Seg::Meta, ring + 8 * 8, box.data() + first, (n - first) * 8);
      rt.ring_sent[r] += n;
    }
    box.clear();
    sent_to.push_back(r);
  }
  if (sent_to.empty()) return;
  tp.flush();
  for (int r : sent_to) tp.store(r, Seg::Meta, ring_off(rt.rank), rt.ring_sent[r] | rt.ring_ovf[r] << 48);
}

// Before fetching eager pages [first, first+n) from home h: join their
// copy-sets.  A page the home writes untrapped (its bit in the old value)
// is kept only until the next acquire, and the home hears of the join.
void join_copysets(int h, uint64_t first, uint64_t n) {
  static std::vector<uint64_t> old;
  old.resize(n);
  rt.tp.or_range(h, Seg::Meta, cs_off(first), n, my_bit(), old.data());
  bool told = false;
  for (uint64_t i = 0; i < n; i++) {
    if (old[i] & (1ull << h)) {
      rt.flags[first + i] |= kUntracked;
      queue_notice(h, first + i, kNoticeJoined);
      told = true;
    } else {
      rt.flags[first + i] &= (uint8_t)~kUntracked;
    }
  }
  if (told) publish_notices();
}

// A home page nobody else holds goes untracked: this rank's bit in the
// copy-set, set only if the copy-set is still `seen` (no rank joined since).
bool go_untracked(uint64_t p, uint64_t seen) {
  if (rt.tp.cas(rt.rank, Seg::Meta, cs_off(p), seen, seen | my_bit()) != seen) return false;
  rt.flags[p] |= kUntracked;
  return true;
}

// A rank fetched untracked home page p: trap this rank's writes again.
void track_again(uint64_t p) {
  if (!(rt.flags[p] & kUntracked) || rt.home[p] != rt.rank) return;
  uint64_t cur = rt.tp.load(rt.rank, Seg::Meta, cs_off(p)), was;
  while ((was = rt.tp.cas(rt.rank, Seg::Meta, cs_off(p), cur, cur & ~my_bit())) != cur) cur = was;
  rt.flags[p] &= (uint8_t)~kUntracked;
  if (rt.state[p] == kRW) {
    vm_protect(p, 1, kRO);
    rt.state[p] = kRO;
  }
}

// Notices for eager pages this rank wrote (their diffs complete at the
// homes): every other holder in the page's copy-set, but not the home.
// Home pages nobody else holds go untracked instead.
void notify_holders(const std::vector<uint32_t>& pages) {
  static std::vector<uint64_t> sets;
  static const std::vector<uint32_t>* cur;
  if (pages.empty()) return;
  cur = &pages;
  sets.resize(pages.size());
  rt.tp.load_many(
      pages.size(), [](size_t i, int* r, uint64_t* off) {
        *r = rt.home[(*cur)[i]];
        *off = cs_off((*cur)[i]);
      },
      sets.data());
  for (size_t i = 0; i < pages.size(); i++) {
    const uint32_t p = pages[i];
    uint64_t bits = sets[i] & ~my_bit() & ~(1ull << rt.home[p]);
    if (bits == 0 && rt.home[p] == rt.rank && (rt.flags[p] & kHomeDirty)) {
      if (go_untracked(p, sets[i])) continue;
      bits = rt.tp.load(rt.rank, Seg::Meta, cs_off(p)) & ~my_bit();  // a rank joined meanwhile
    }
    const NoticeKind kind = rt.mode[p] == LOOM_PROTOCOL_ERC_UPDATE ? kNoticeRefresh : kNoticeInvalidate;
    while (bits) {
      queue_notice(__builtin_ctzll(bits), p, kind);
      bits &= bits - 1;
    }
  }
}

// A copy this rank is writing (twinned) that others wrote too: bring in the
// home's bytes where this rank did not write; the twin becomes the home's
// page, so this rank's diff stays its own writes.
void merge_from_home(uint64_t p) {
  alignas(64) static uint8_t fresh[kPage];
  rt.tp.get(rt.home[p], Seg::Data, p * kPage, fresh, kPage);
  uint8_t* c = slot(p);
  uint8_t* t = rt.twins + p * kPage;
  for (uint64_t i = 0; i < kPage; i++) {
    c[i] = c[i] != t[i] ? c[i] : fresh[i];
    t[i] = fresh[i];
  }
}

// Bring the copies of sorted `pages` (all non-home, read-only or absent) up
// to date from their homes: one get per run of pages with one home.  Absent
// eager pages join the copy-set first; absent pages become read-only copies.
// A lazy page brought in by a notice is marked kInstalled: the notice may
// have been read at an acquire that raced with the sender's release (the
// sender left the barrier first), so the next acquire refreshes the page
// once more instead of dropping it.
void refresh_pages(const std::vector<uint32_t>& pages, bool by_notice) {
  size_t i = 0;
  while (i < pages.size()) {
    const uint64_t first = pages[i];
    const int h = rt.home[first];
    const uint8_t mode = rt.mode[first];
    size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + 1 && rt.home[pages[j]] == h && rt.mode[pages[j]] == mode) j++;
    const uint64_t n = j - i;
    bool absent = false;
    for (size_t k = i; k < j; k++) absent |= rt.state[pages[k]] == kNone;
    if (absent && mode != LOOM_PROTOCOL_HLRC) join_copysets(h, first, n);
    rt.tp.get(h, Seg::Data, first * kPage, slot(first), n * kPage);
    for (size_t k = i; k < j; k++) {
      const uint64_t p = pages[k];
      if (by_notice && mode == LOOM_PROTOCOL_HLRC) rt.flags[p] |= kInstalled;
      if (rt.state[p] == kNone) {
        vm_protect(p, 1, kRO);
        rt.state[p] = kRO;
        list_cached(p);
      }
    }
    rt.st.s.updates += n;
    i = j;
  }
}

void drop_pages(std::vector<uint32_t>& drop) {
  if (drop.empty()) return;
  std::sort(drop.begin(), drop.end());
  for_runs(drop, [](uint64_t first, uint64_t n) {
    vm_protect(first, n, kNone);
    std::memset(&rt.state[first], kNone, n);
  });
  rt.st.s.invalidations += drop.size();
}

// Read this rank's rings and act on the notices.
void process_notices() {
  Transport& tp = rt.tp;
  const int N = rt.nranks;
  static std::vector<uint64_t> heads, notes;
  static std::vector<uint32_t> drop, refresh;
  heads.resize(N);
  tp.load_many(
      N, [](size_t i, int* r, uint64_t* off) {
        *r = rt.rank;
        *off = ring_off((int)i);
      },
      heads.data());
  notes.clear();
  bool overflow = false;
  for (int w = 0; w < N; w++) {
    if (w == rt.rank) continue;
    const uint64_t head = heads[w] & kRingCountMask, gen = heads[w] >> 48;
    if (gen != rt.ring_ovf_seen[w]) {
      rt.ring_ovf_seen[w] = gen;
      overflow = true;
    }
    uint64_t& done = rt.ring_seen[w];
    if (head == done) continue;
    const uint64_t* e = reinterpret_cast<const uint64_t*>(tp.self_meta() + ring_off(w)) + 8;
    for (; done < head; done++) notes.push_back(e[done % kRingEntries]);
    tp.store(rt.rank, Seg::Meta, ring_off(w) + 8, done);
  }
  if (notes.empty() && !overflow) return;
  double t0 = stat_now();
  drop.clear();
  refresh.clear();
  if (overflow) {  // notices were lost: no eager copy can be trusted
    for (uint32_t p : rt.cached)
      if (eager(p) && rt.home[p] != rt.rank && rt.state[p] != kNone) notes.push_back((uint64_t)p << 2 | kNoticeInvalidate);
  }
  // One action per page: a refresh or install wins over an invalidate.
  std::sort(notes.begin(), notes.end(), [](uint64_t a, uint64_t b) {
    return (a >> 2) != (b >> 2) ? (a >> 2) < (b >> 2) : (a & 3) > (b & 3);
  });
  uint64_t last = ~0ull;
  for (uint64_t e : notes) {
    const uint64_t p = e >> 2;
    const uint64_t kind = e & 3;
    if (p == last || p >= rt.npages) continue;
    last = p;
    if (!(rt.flags[p] & kAlloc) && !(kind == kNoticeInstall && heap_mark_if_allocated(p))) continue;
    if (rt.home[p] == rt.rank) {  // the home copy is always current
      if (kind == kNoticeJoined) track_again(p);
      continue;
    }
    if (rt.state[p] == kRW) {
      merge_from_home(p);
      rt.st.s.updates++;
    } else if (rt.state[p] == kRO) {
      if (kind == kNoticeInvalidate) drop.push_back((uint32_t)p);
      else refresh.push_back((uint32_t)p);
    } else if (kind == kNoticeInstall && proto_home(p, false) >= 0 && rt.home[p] != rt.rank) {
      refresh.push_back((uint32_t)p);
    }
  }
  drop_pages(drop);
  refresh_pages(refresh, true);
  rt.st.s.t_update += stat_now() - t0;
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
    // Eager protocols: a writable home page is on the home_dirty list or untracked.
    LOOM_EXPENSIVE_ASSERT(!(rt.state[p] == kRW && rt.home[p] == rt.rank && eager(p)) ||
                          (rt.flags[p] & (kHomeDirty | kUntracked)));
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
  while (first > lo && fetchable(first - 1, h, rt.mode[p])) first--;
  while (end < hi && fetchable(end, h, rt.mode[p])) end++;
  uint64_t n = end - first;
  // Eager: join the copy-sets before the get, so that any release that
  // misses this rank's bit completed its diffs before the get reads them.
  if (eager(p)) join_copysets(h, first, n);
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
  if (!eager(p)) {
    register_writer(p);
    if (refresh_home(p, &h) && rt.state[p] == kNone) proto_make_readable(p);
  }
  if (h != rt.rank) {
    std::memcpy(rt.twins + p * kPage, slot(p), kPage);
    rt.dirty.push_back((uint32_t)p);
    rt.st.s.twins++;
  } else if (eager(p) && !(rt.flags[p] & kHomeDirty)) {
    rt.flags[p] |= kHomeDirty;  // the home's writes are noticed at its release
    rt.home_dirty.push_back((uint32_t)p);
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
  if (rt.dirty.empty() && rt.home_dirty.empty() && rt.update_pages.empty()) {
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
  // Eager pages: the diffs are at the homes; now tell the other holders.
  static std::vector<uint32_t> written;
  written.clear();
  for (uint32_t p : rt.dirty)
    if (eager(p)) written.push_back(p);
  written.insert(written.end(), rt.home_dirty.begin(), rt.home_dirty.end());
  notify_holders(written);
  if (!rt.update_pages.empty()) {  // loom_update: every other rank installs the page
    std::sort(rt.update_pages.begin(), rt.update_pages.end());
    rt.update_pages.erase(std::unique(rt.update_pages.begin(), rt.update_pages.end()), rt.update_pages.end());
    for (uint32_t p : rt.update_pages) {
      const int h = proto_home(p, false);
      if (h < 0 || !(rt.flags[p] & kAlloc)) continue;  // untouched: reads as zero anyway
      for (int r = 0; r < rt.nranks; r++)
        if (r != rt.rank && r != h) queue_notice(r, p, kNoticeInstall);
    }
    rt.update_pages.clear();
  }
  publish_notices();
  for_runs(rt.dirty, [](uint64_t first, uint64_t n) {
    vm_protect(first, n, kRO);
    std::memset(&rt.state[first], kRO, n);
  });
  rt.dirty.clear();
  std::sort(rt.home_dirty.begin(), rt.home_dirty.end());
  {
    size_t kept = 0;  // untracked pages stay writable
    for (uint32_t p : rt.home_dirty) {
      rt.flags[p] &= (uint8_t)~kHomeDirty;
      if (!(rt.flags[p] & kUntracked)) rt.home_dirty[kept++] = p;
    }
    rt.home_dirty.resize(kept);
  }
  for_runs(rt.home_dirty, [](uint64_t first, uint64_t n) {  // trap the home's next write
    vm_protect(first, n, kRO);
    std::memset(&rt.state[first], kRO, n);
  });
  rt.home_dirty.clear();
  rt.st.s.t_diff += stat_now() - t0;
  check_invariants();
}

static void acquire_lazy();

void proto_acquire() {
  rt.tp.sync_local();
  process_lost_homes();
  check_invariants();
  acquire_lazy();
  process_notices();
  check_invariants();
}

// HLRC's part of an acquire: drop every cached lazy page that another rank
// writes (eager pages stay: their notices say exactly what changed).
static void acquire_lazy() {
  if (rt.cached.empty()) return;
  static std::vector<uint32_t> drop, check, keep, refresh;
  static std::vector<uint64_t> writers;
  drop.clear();
  check.clear();
  keep.clear();
  for (uint32_t p : rt.cached) {
    if (rt.state[p] == kNone || rt.home[p] == rt.rank || !(rt.flags[p] & kAlloc)) {
      rt.flags[p] &= (uint8_t)~kListed;
    } else if (eager(p) && !(rt.flags[p] & kUntracked)) {
      keep.push_back(p);
    } else if (eager(p)) {  // fetched while the home wrote untrapped
      drop.push_back(p);
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
  rt.cached.swap(keep);
  for (size_t i = 0; i < check.size(); i++) {
    uint32_t p = check[i];
    if (writers[i] & ~my_bit()) {
      rt.flags[p] = (uint8_t)((rt.flags[p] | kOtherWritten) & ~kListed);
      drop.push_back(p);
    } else {
      rt.cached.push_back(p);
    }
  }
  // A page this rank is writing (between a split barrier's arrive and wait)
  // keeps its writes: merged with the home's copy, it stays writable and
  // listed, to be looked at again by the next acquire.
  size_t kept = 0;
  refresh.clear();
  for (uint32_t p : drop) {
    if (rt.state[p] == kRW) {
      merge_from_home(p);
      list_cached(p);
    } else if (rt.flags[p] & kInstalled) {  // see refresh_pages
      rt.flags[p] &= (uint8_t)~kInstalled;
      refresh.push_back(p);
    } else {
      drop[kept++] = p;
    }
  }
  drop.resize(kept);
  drop_pages(drop);
  if (!refresh.empty()) {
    double t0 = stat_now();
    std::sort(refresh.begin(), refresh.end());
    refresh_pages(refresh, false);
    for (uint32_t p : refresh) list_cached(p);
    rt.st.s.t_update += stat_now() - t0;
  }
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
  if (eager(p)) return;  // the holders hear of the atomic from after_atomic
  register_writer(p);
  refresh_home(p, &h);
}

void proto_after_atomic(uint64_t p) {
  if (!eager(p)) return;  // lazy: the writer set makes every holder drop the page
  static std::vector<uint32_t> one(1);
  one[0] = (uint32_t)p;
  notify_holders(one);
  publish_notices();
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
    rt.mode[p] = (uint8_t)rt.cfg.protocol;
    rt.heap_checked[p] = ~0u;  // unknown: the next check reads the table
  }
}

void proto_reset_range(uint64_t first, uint64_t n, bool allocated, loom_home_policy_t policy, int explicit_home,
                       loom_protocol_t protocol) {
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
    rt.mode[p] = (uint8_t)protocol;
    if (dir_rank(p) == (uint64_t)rt.rank) {
      rt.tp.store(rt.rank, Seg::Meta, dir_off(p), (uint64_t)(h + 1));
      rt.tp.store(rt.rank, Seg::Meta, dir_off(p) + 8, 0);
    }
  }
  // No rank holds a copy of the new block (every rank calls this between
  // two barriers, so no copy-set word is in use).
  std::memset(rt.tp.self_meta() + cs_off(first), 0, n * 8);
  rt.tp.sync_local();
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

const Protocol kHlrc = {"hlrc+erc",          proto_fault,         proto_make_readable, proto_make_writable,
                        proto_release,       proto_acquire,       proto_before_atomic, proto_home,
                        proto_forget_copies, proto_reset_range,   proto_migrate_window, proto_after_atomic};

}  // namespace loom
