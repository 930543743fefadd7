// The protocol driver: what every protocol shares (protocol.hpp lists the
// files and the table of operations a protocol provides).
//
//  - Fault on a page homed here: map it in place (it is the home copy).
//  - Read fault on a page homed elsewhere: one get of the page and of the
//    following pages with the same home and protocol (LOOM_UNIT_PAGES,
//    aligned window) into this rank's cache slots, then one mprotect.
//  - Write fault on a page homed elsewhere: twin, map writable, remember as
//    dirty.
//  - Release: byte-exact diffs of dirty pages are put straight into the home
//    copies (NEWGENDSM's DRAW); after the puts are complete remotely each
//    protocol queues its notices, and the notices are published.
//  - Acquire: each protocol sorts its cached copies into keep, drop and
//    refresh; then the notices other ranks sent are acted on.  A copy this
//    rank is still writing (between a split barrier's arrive and wait) is
//    never dropped: it is merged with the home's copy.
//  - Barrier prefetch of hot pages (HLRC pages homed on another host): a
//    page this rank fetches again after each drop at gaps that repeat (in
//    acquires: every K, or two gaps in turn; note_fetched) is hot; the
//    barrier whose acquire starts the interval its gaps predict fetches it
//    during the barrier, while every rank waits (api.cpp: a second barrier
//    holds the homes), instead of leaving it to fault in later from a home
//    that computes by then and answers late.  A prefetched page stays
//    protected until it is read (a local fault, no fetch), so a hot page the
//    program did not read when predicted is seen at the next acquire and
//    turns cold; once such a read is seen, the page's next three pushes
//    come readable at once (install_pushed), and the fourth checks again.
// The order of these steps around each synchronization call is api.cpp's.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "diff.hpp"
#include "heap.hpp"
#include "intercept.hpp"
#include "protocol/protocol.hpp"
#include "threads.hpp"
#include "trace.hpp"
#include "vm.hpp"

namespace loom {
namespace {

// `skip`: hints that keep a page out of the window (a page another thread
// fetches; for a fetch without the rank lock, a prefetched page too, whose
// slot a sibling may be reading).  Goes by the homes known here (the fault
// learnt the window's first), unknown ones too with `unknown`.
bool fetchable(uint64_t q, int h, uint8_t mode, uint8_t skip, bool unknown) {
  const PageTable& pt = rt.pages;
  return (pt.flags[q] & kAlloc) && pt.state[q] == kNone && pt.mode[q] == mode && !(pt.hint[q] & skip) &&
         (pt.home[q] == h || (unknown && pt.home[q] < 0));
}

}  // namespace

// The page is no longer hot (its hints and its reading history are forgotten).
void proto_forget_hints(uint64_t p) {
  PageTable& pt = rt.pages;
  if (pt.hint[p] & kHot) pt.hot--;
  pt.hint.put(p, pt.hint[p] & (kFetching | kHotListed));
  if (pt.fetched_at[p]) pt.fetched_at[p] = 0;  // (read first: an untouched zero page stays untouched)
  if (pt.gap1[p]) pt.gap1[p] = 0;
  if (pt.gap2[p]) pt.gap2[p] = 0;
}

namespace {

// A hot page is due at the acquire numbered `at` when that acquire starts
// the interval its gaps predict it is read in: the gap before the last one
// (gap2) after its last read, one more when it is late.  A prefetched copy
// not read yet is judged as the acquire that retires it leaves it: late if
// it was not, else cold.
bool hot_due(uint32_t p, uint32_t at) {
  const PageTable& pt = rt.pages;
  const uint8_t h = pt.hint[p];
  if (!(h & kHot) || !pt.fetched_at[p]) return false;
  uint32_t late = (h & kLate) ? 1 : 0;
  if (h & kPrefetched) {
    if (late) return false;
    late = 1;
  }
  return at + 1 - pt.fetched_at[p] == pt.gap2[p] + late;
}

// This rank fetched the pages [first, end) from `home` in the interval of
// acquire A = pt.acquires.  A page an acquire dropped since its last fetch
// was read again K acquires after it: a gap.  A gap equal to one of the two
// before it makes the page hot, when its home is on a path a fetch waits
// for (a mapped home answers at memory speed anyway): equal to the last, a
// page read every K acquires (1: every interval; 3: CG's vector); equal to
// the one before, a page read twice per cycle at gaps that alternate (MG's
// grids: 20, 2, 20, 2, ...).  Either way the next gap is the one before the
// last.  The pages a fault's window brings come back whether the program
// reads them or not, so they are judged as the faulting page is: a sweep
// over an array makes all of them hot, not one page in eight.
void note_fetched(uint64_t first, uint64_t end, int home) {
  PageTable& pt = rt.pages;
  if (!rt.cfg.prefetch || rt.tp.is_direct(home)) {
    for (uint64_t q = first; q < end; q++) pt.dropped_at[q] = 0;
    return;
  }
  const uint32_t now = pt.acquires + 1;
  for (uint64_t q = first; q < end; q++) {
    if (pt.hint[q] & kOpened) {
      // Its last push was installed readable (install_pushed), so when the
      // program read it is not known: on time, or later from the copy
      // still valid (a late read, which a protected push would have
      // seen).  Its gaps are taken to hold, counted from this read.
      std::swap(pt.gap1[q], pt.gap2[q]);
    } else if (pt.dropped_at[q] && pt.fetched_at[q] && now > pt.fetched_at[q]) {
      const uint32_t k = now - pt.fetched_at[q];
      const uint8_t g = (uint8_t)(k <= kMaxReadGap ? k : 0);
      const bool repeats = g && (g == pt.gap1[q] || g == pt.gap2[q]);
      pt.gap2[q] = pt.gap1[q];
      pt.gap1[q] = g;
      if (repeats && !(pt.hint[q] & kHot)) {
        pt.hint[q] |= kHot;
        pt.hot++;
        if (!(pt.hint[q] & kHotListed)) {
          pt.hint[q] |= kHotListed;
          pt.hot_pages.push_back((uint32_t)q);
        }
      } else if (!repeats && (pt.hint[q] & kHot)) {
        pt.hint[q] &= (uint8_t)~kHot;
        pt.hot--;
      }
    }
    pt.fetched_at[q] = now;
    pt.dropped_at[q] = 0;
    pt.hint[q] &= (uint8_t)~(kLate | kTrust | kOpened);  // (read: the gaps count from now; a fault
                                                          // fetched it: its next push is a check)
  }
}

// Prefetched pages the program did not read since the last acquire are no
// longer valid, and their gaps misled.  The first time, the page is late:
// predicted one acquire later (a program that takes an extra barrier now
// and then, SOR's every 20 phases, reads it in the next interval instead);
// the second time in a row it turns cold.  The list is emptied (the pages
// the program read are on the cached list).
void retire_prefetched() {
  PageTable& pt = rt.pages;
  for (uint32_t p : pt.prefetched) {
    uint8_t& h = pt.hint[p];
    if (!(h & kPrefetched)) continue;
    h &= (uint8_t)~kPrefetched;
    if ((h & kHot) && !(h & kLate)) h |= kLate;
    else proto_forget_hints(p);
  }
  pt.prefetched.clear();
}

// Fetch the hot pages due at this acquire that have no valid copy (HLRC
// pages homed on a rank this one does not map) into their slots, leaving
// them protected and kPrefetched.  The homes wait in the barrier meanwhile
// (api.cpp), serving requests on their application threads.
void prefetch_hot() {
  PageTable& pt = rt.pages;
  static std::vector<uint32_t>& want = *new std::vector<uint32_t>();  // never destroyed: see runtime.hpp
  want.clear();
  size_t kept = 0;
  for (uint32_t p : pt.hot_pages) {
    if (!(pt.hint[p] & kHot)) {  // turned cold since: leaves the list
      pt.hint[p] &= (uint8_t)~kHotListed;
      continue;
    }
    pt.hot_pages[kept++] = p;
    if (hot_due(p, pt.acquires) && pt.mode[p] == LOOM_PROTOCOL_HLRC && pt.state[p] == kNone && pt.home[p] >= 0 &&
        (pt.flags[p] & kAlloc) && !rt.tp.is_direct(pt.home[p]))
      want.push_back(p);
  }
  pt.hot_pages.resize(kept);
  std::sort(want.begin(), want.end());
  size_t i = 0;
  while (i < want.size()) {
    const uint64_t first = want[i];
    const int h = pt.home[first];
    size_t j = i + 1;
    while (j < want.size() && want[j] == want[j - 1] + 1 && pt.home[want[j]] == h) j++;
    const uint64_t n = j - i;
    page_protocol(first).before_fetch(h, first, n);
    const uint64_t tt = trace_on() ? trace_now() : 0;
    rt.tp.get(h, Seg::Data, first * kPage, slot(first), n * kPage);
    if (trace_on()) trace_event(Ev::Prefetch, tt, first, n | (uint64_t)(uint16_t)h << 48, 0);
    for (size_t k = i; k < j; k++) {
      pt.hint[want[k]] |= kPrefetched;
      pt.dropped_at[want[k]] = 0;
      pt.prefetched.push_back(want[k]);
    }
    rt.st.s.prefetched += n;
    rt.st.s.pages_fetched += n;
    rt.st.s.bytes_fetched += n * kPage;
    i = j;
  }
}

// Allocate the cache slots of pages [first, first+n) in one system call
// instead of one kernel fault per page during the copy (a fresh slot is an
// unpopulated page of the memfd).  Best effort: old kernels lack the advice.
// (Also the view's pages a shared rank's fault maps: share_fault.)
void populate_range(uint8_t* at, uint64_t n) {
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
  static bool supported = true;
  if (n < 2 || !supported) return;
  if (madvise(at, n * kPage, MADV_POPULATE_WRITE) != 0 && errno == EINVAL) supported = false;
}
void populate(uint64_t first, uint64_t n) { populate_range(slot(first), n); }

// The barrier's page push: the prefetch of a barrier across hosts as one
// exchange of messages.  A rank asks each home of its due hot pages for
// them before the barrier's agreement (one message a home: the runs of
// pages) and posts the receive of the pages straight into their slots (an
// indexed datatype over the runs); the agreement (one MPI_Iallreduce) also
// sums how many asks each rank was sent.  Once it is complete every
// release of the barrier is at its homes, and each home sends the pages
// asked of it from its own memory, again one message an asker.  Nobody
// waits for another rank's gets, and no second barrier holds the homes: the
// barrier costs its agreement and one message's way, as a halo exchange
// does.  Only pages with no copy or a read-only one are asked for: a slot
// with no copy is not read (a prefetched copy not read yet, due again
// because it is late, stays protected until a fault opens it, and that
// fault waits for the rank lock the barrier holds), and a read-only copy
// either is the home's (nobody wrote the page) or was written by another
// rank before the barrier, which a reader on this rank that has not
// synchronized may see either way.  The acquire then marks each page it
// finds without a valid copy prefetched (prefetch_hot's state); a copy
// still valid stays as it is.
struct PushRun {
  int home;
  uint32_t first, n;
};
constexpr size_t kPushAskRuns = 1024;            // runs in one ask (more: the rest fault)
constexpr size_t kPushRunPages = (size_t)1 << 16;  // pages in one run (256 MB; a longer run is split)
constexpr size_t kPushMaxPages = (size_t)1 << 18;  // pages one barrier asks for (1 GB; the rest fault)
// Kept asks (jobs of at most kPushKeepRanks ranks): a home keeps the last
// kPushKeep asks each rank sent it, by slot, and an asker that wants the
// same runs of a home again (a program's barriers push the same pages
// iteration after iteration) sends no ask: the agreement carries the
// slot + 1 in a row of its own (sync_barrier_or_asks), and the home
// answers from what it kept.  Only the asker chooses slots, and every ask
// is served in the barrier it is sent in, so both sides always agree on
// what a slot holds.  An ask's first word is its slot (kPushNoSlot: not
// kept), then (first, n) pairs.
constexpr int kPushKeepRanks = 16;
constexpr uint32_t kPushKeep = 32;
constexpr uint64_t kPushNoSlot = ~(uint64_t)0;
constexpr uint64_t kAheadBackoff = 8, kAheadBackoffMax = 1024;  // barriers (pushes ahead, core.cpp)
struct PushState {
  std::vector<PushRun> runs;                   // asked at this barrier, by home
  std::vector<std::vector<uint64_t>> out;      // this barrier's ask messages (slot, then pairs)
  std::vector<MPI_Request> rq;                 // every message of the exchange but the posted ask receive
  std::vector<uint64_t> off, len;              // an ask being served, or made: its runs in bytes
  std::vector<std::vector<std::vector<uint64_t>>> made;  // [home][slot]: the pairs this rank asked it
  std::vector<uint32_t> next_slot;                        // [home]: slots used, round robin
  std::vector<std::vector<std::vector<uint64_t>>> kept;  // [asker][slot]: the pairs it asked here
  // The next ask to this rank is received here: posted at the first ask
  // made anywhere and again after each (a posted receive answers sooner
  // than a probe), cancelled by proto_push_stop.  One for even barriers and
  // one for odd: a rank that has left a barrier may ask for the next one's
  // pages while a home still serves this one's asks (no rank gets further
  // ahead: the next barrier waits for the home).
  uint64_t in[2][2 * kPushAskRuns + 1];
  MPI_Request in_rq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  uint64_t seq = 0;      // barriers that asked (every rank counts the same)
  bool pending = false;  // pages on their way for this barrier's acquire
  // Pushes ahead (a job of 2 ranks; see ahead_plan): the kept slot each
  // rank wanted of the other at each barrier, oldest first (-1: none), as
  // both ranks saw it in the rows; this barrier's plan.
  std::vector<int> hist_mine, hist_theirs;
  int my_slot = -1;    // the kept slot this rank wants of the other now
  bool took = false;   // ... and takes it from the pages sent ahead
  int sent_slot = -1;  // the other's kept slot whose pages this rank sent ahead
  int expect_slot = -1;  // this rank's slot whose pages the posted row receive expects
  int pred_theirs = -1;  // the other's slot this rank could send ahead now (sent_slot, unless it declined)
  // Backing off where the pages sent ahead are not taken although the slot
  // was foretold (the asker writes them: ahead_after), for this rank as an
  // asker and as a home: no push ahead before barrier `until` (by seq).
  struct Backoff {
    uint64_t until = 0, wait = kAheadBackoff;
    int untaken = 0;  // foretold and not taken since the last take
  } mine, theirs;
  std::vector<uint64_t> send_off, send_len, recv_off, recv_len;
  std::vector<uint8_t> scratch;  // pages sent ahead that this rank does not take
  RowPages rows;
  // This rank's diffs to the other since the last barrier ended (a job of
  // 2 ranks): page -> its mask's index in diff_masks (kDiffNoMask past
  // kDiffMasksKept pages).  Pages sent ahead may have left the home before
  // these diffs reached it; a take stores the diffed bytes of this rank's
  // own copy over them (ahead_after).
  std::unordered_map<uint32_t, uint32_t> diffed;
  std::vector<uint64_t> diff_masks;
  bool diffed_over = false;  // more pages diffed than kDiffedKept (a program of locks only): no take
};
constexpr uint32_t kDiffNoMask = ~(uint32_t)0;
constexpr size_t kDiffMasksKept = 256;  // pages (128 KiB of masks)
constexpr size_t kDiffedKept = 65536;   // pages noted between two barriers
constexpr size_t kMaskWords = kPage / 64;
PushState& push_state() {
  static PushState& s = *new PushState();  // never destroyed: see runtime.hpp
  return s;
}

// A diff of page p (its changed bytes' mask) sent to its home at a release:
// kept where pages may come ahead from that home (ahead_take).  Only a full
// barrier's own release keeps the mask: a page diffed at an earlier
// release of the interval (an unlock) may have been written at the home
// since, ordered after this rank's write by the lock, and its bytes must
// come from the home (no mask: not taken).
void push_note_diff(uint32_t p, const uint64_t* mask) {
  if (rt.nranks != 2 || rt.pages.home[p] != 1 - rt.rank || !proto_push_used() || !proto_push_keeps()) return;
  PushState& s = push_state();
  if (s.diffed.size() >= kDiffedKept && !s.diffed.count(p)) {
    s.diffed_over = true;
    return;
  }
  auto [it, fresh] = s.diffed.emplace(p, kDiffNoMask);
  if (fresh && rt.ivl.in_barrier && s.diff_masks.size() < kDiffMasksKept * kMaskWords) {
    it->second = (uint32_t)(s.diff_masks.size() / kMaskWords);
    s.diff_masks.insert(s.diff_masks.end(), mask, mask + kMaskWords);
  } else {
    it->second = kDiffNoMask;
  }
}
constexpr int kTagPushAsk = 0x4c51, kTagPushPages = 0x4c53;  // (asks: 0x4c51 and 0x4c52 by parity)

// A prefetched page the program reads (now, or by the fault that opens
// it): its history as if fetched in this interval, read-only and cached.
// The caller makes it readable.
void prefetched_read(uint64_t q) {
  PageTable& pt = rt.pages;
  pt.fetched_at[q] = pt.acquires + 1;
  std::swap(pt.gap1[q], pt.gap2[q]);  // the gap the prediction used is now the last
  pt.state[q] = kRO;
  list_cached(q);
}

// The received pages the acquire left without a valid copy become
// prefetched copies.  A page whose last protected push the program read
// (kTrust left) is installed readable at once, as read: no fault opens
// it.  Every fourth push of a page is installed protected, as every push
// was before: the fault that opens it says the program still reads it
// (and trusts the page's next three), and one not read is late, then
// cold (retire_prefetched).  MG across 2 hosts opened about 1,500 windows
// a rank by faults of some 10 us each.  A page the program stopped
// reading is pushed at most three more times before the check sees it.
// What an open page hides is a late read (SOR's extra barrier: the page
// pushed at it is read one interval later from the copy still valid):
// it is marked kOpened, and the fault that fetches it when the pushes
// that follow miss takes its gaps to hold from then (note_fetched): one
// remote fault, where a protected push would have been pushed again.
void install_pushed() {
  PageTable& pt = rt.pages;
  PushState& s = push_state();
  s.pending = false;
  uint64_t open_first = 0, open_n = 0;  // a run of pages to open, protected at once
  auto open_flush = [&] {
    if (open_n) vm_protect(open_first, open_n, kRO);
    open_n = 0;
  };
  for (const PushRun& r : s.runs)
    for (uint64_t q = r.first; q < r.first + r.n; q++) {
      if (pt.state[q] != kNone || !(pt.flags[q] & kAlloc) || pt.mode[q] != LOOM_PROTOCOL_HLRC || pt.home[q] != r.home ||
          (pt.hint[q] & (kFetching | kPrefetched)) || !hot_due((uint32_t)q, pt.acquires))
        continue;
      pt.dropped_at[q] = 0;
      rt.st.s.prefetched++;
      rt.st.s.pages_fetched++;
      rt.st.s.bytes_fetched += kPage;
      const uint8_t trust = (uint8_t)((pt.hint[q] & kTrust) >> kTrustShift);
      if (trust) {
        pt.hint[q] = (uint8_t)((pt.hint[q] & ~(kTrust | kLate)) | kOpened | (trust - 1) << kTrustShift);
        prefetched_read(q);
        rt.st.s.prefetch_used++;
        if (open_n && open_first + open_n == q) {
          open_n++;
        } else {
          open_flush();
          open_first = q, open_n = 1;
        }
        continue;
      }
      pt.hint[q] = (uint8_t)((pt.hint[q] & ~kOpened) | kPrefetched);
      pt.prefetched.push_back((uint32_t)q);
    }
  open_flush();
}

// The page-table invariants of page_table.hpp and each protocol's, in the
// debug-full build (O(pages)).
void check_invariants() {
#if LOOM_DEBUG >= 2
  const PageTable& pt = rt.pages;
  std::vector<uint8_t> on_dirty(rt.npages, 0), on_cached(rt.npages, 0);
  for (uint32_t p : pt.dirty) {
    LOOM_EXPENSIVE_ASSERT(!on_dirty[p]);
    LOOM_EXPENSIVE_ASSERT(pt.home[p] != rt.rank);
    on_dirty[p] = 1;
  }
  for (uint32_t p : pt.cached) {
    LOOM_EXPENSIVE_ASSERT(!on_cached[p]);
    on_cached[p] = 1;
  }
  for (uint64_t p = 0; p < rt.npages; p++) {
    LOOM_EXPENSIVE_ASSERT(pt.state[p] == kNone || (pt.flags[p] & kAlloc));
    LOOM_EXPENSIVE_ASSERT(!(pt.state[p] == kRW && pt.home[p] != rt.rank) || on_dirty[p] || rt.shared);
    LOOM_EXPENSIVE_ASSERT(((pt.flags[p] & kListed) != 0) == (on_cached[p] != 0));
    page_protocol(p).check_page(p);
  }
#endif
}

// Every cached copy goes to its protocol, which says keep, drop or refresh.
// The acquire of the cached copies of pages [lo, hi) (every page: a full
// acquire; a range: loom_acquire_range, which leaves the other copies and
// the prefetch hints as they are).
void acquire_copies(bool prefetch, uint64_t lo = 0, uint64_t hi = UINT64_MAX) {
  PageTable& pt = rt.pages;
  static std::vector<uint32_t>& outside = *new std::vector<uint32_t>();  // never destroyed: see runtime.hpp
  const bool whole = lo == 0 && hi == UINT64_MAX;
  outside.clear();
  if (whole) {
    pt.acquires++;
    retire_prefetched();
  }
  if (pt.cached.empty()) {
    if (prefetch && pt.hot) prefetch_hot();
    if (push_state().pending && whole) install_pushed();
    return;
  }
  const auto& families = protocol_families();
  const uint8_t* family_of = protocol_family_of();
  static std::vector<std::vector<uint32_t>>& of = *new std::vector<std::vector<uint32_t>>();  // never destroyed: see runtime.hpp
  static AcquireVerdicts& v = *new AcquireVerdicts();  // never destroyed: see runtime.hpp
  of.resize(families.size());
  for (auto& l : of) l.clear();
  v.keep.clear();
  v.drop.clear();
  v.refresh.clear();
  for (uint32_t p : pt.cached) {
    if (pt.state[p] == kNone || pt.home[p] == rt.rank || !(pt.flags[p] & kAlloc)) pt.flags[p] &= (uint8_t)~kListed;
    else if (p < lo || p >= hi) outside.push_back(p);
    else of[family_of[pt.mode[p]]].push_back(p);
  }
  for (size_t i = 0; i < families.size(); i++)
    if (!of[i].empty()) families[i]->acquire(of[i], &v);
  v.keep.insert(v.keep.end(), outside.begin(), outside.end());
  pt.cached.swap(v.keep);
  for (uint32_t p : v.drop) pt.flags[p] &= (uint8_t)~kListed;
  for (uint32_t p : v.refresh) pt.flags[p] &= (uint8_t)~kListed;
  // A page this rank is writing keeps its writes: merged with the home's
  // copy, it stays writable and listed, to be looked at by the next acquire.
  size_t kept = 0;
  for (uint32_t p : v.drop) {
    if (pt.state[p] == kRW) {
      merge_from_home(p);
      list_cached(p);
    } else {
      v.drop[kept++] = p;
    }
  }
  v.drop.resize(kept);
  drop_pages(v.drop);
  if (prefetch && pt.hot) prefetch_hot();
  if (push_state().pending && whole) install_pushed();
  if (!v.refresh.empty()) {
    double t0 = stat_now();
    std::sort(v.refresh.begin(), v.refresh.end());
    refresh_pages(v.refresh, false);
    for (uint32_t p : v.refresh) list_cached(p);
    rt.st.s.t_update += stat_now() - t0;
  }
}

}  // namespace

// ---- services for the protocols ------------------------------------------

void list_cached(uint64_t q) {
  uint8_t& f = rt.pages.flags[q];
  if (!(f & kListed)) {
    f |= kListed;
    rt.pages.cached.push_back((uint32_t)q);
  }
}

void merge_from_home(uint64_t p) {
  alignas(64) static uint8_t fresh[kPage];
  rt.tp.get(rt.pages.home[p], Seg::Data, p * kPage, fresh, kPage);
  // Read-only while the bytes are merged: another thread of this rank that
  // writes the page meanwhile waits (its fault finds the page writable
  // again afterwards), instead of having its byte overwritten by the home's.
  vm_protect(p, 1, kRO);
  uint8_t* c = slot(p);
  uint8_t* t = rt.pages.twins + p * kPage;
  for (uint64_t i = 0; i < kPage; i++) {
    c[i] = c[i] != t[i] ? c[i] : fresh[i];
    t[i] = fresh[i];
  }
  vm_protect(p, 1, kRW);
}

void drop_pages(std::vector<uint32_t>& drop) {
  if (drop.empty()) return;
  std::sort(drop.begin(), drop.end());
  for_runs(drop, [](uint64_t first, uint64_t n) {
    vm_protect(first, n, kNone);
    std::memset(&rt.pages.state[first], kNone, n);
  });
  for (uint32_t p : drop) rt.pages.dropped_at[p] = rt.pages.acquires;
  rt.st.s.invalidations += drop.size();
}

// Absent pages join the protocol's bookkeeping first (before_fetch) and
// become read-only copies.
void refresh_pages(const std::vector<uint32_t>& pages, bool by_notice) {
  PageTable& pt = rt.pages;
  size_t i = 0;
  while (i < pages.size()) {
    const uint64_t first = pages[i];
    const int h = pt.home[first];
    const uint8_t mode = pt.mode[first];
    size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + 1 && pt.home[pages[j]] == h && pt.mode[pages[j]] == mode) j++;
    const uint64_t n = j - i;
    const PageProtocol& proto = *kProtocolOf[mode];
    bool absent = false;
    for (size_t k = i; k < j; k++) absent |= pt.state[pages[k]] == kNone;
    if (absent) proto.before_fetch(h, first, n);
    rt.tp.get(h, Seg::Data, first * kPage, slot(first), n * kPage);
    for (size_t k = i; k < j; k++) {
      const uint64_t p = pages[k];
      proto.refreshed(p, by_notice);
      if (pt.state[p] == kNone) {
        vm_protect(p, 1, kRO);
        pt.state[p] = kRO;
        list_cached(p);
      }
    }
    rt.st.s.updates += n;
    i = j;
  }
}

// ---- the driver ----------------------------------------------------------

namespace {

// A fault's fetch may run without the rank lock (threads.hpp, "Fetches
// made without the rank lock"): only in the fault handler's outermost hold,
// with other threads about (one thread gains nothing), on a path whose gets
// may overlap, and with no trace (whose records need the lock) or adaptive
// compare (which reads the dropped copies in the slots the get overwrites).
bool fetch_may_unlock(int h) {
  return threads_several() && rank_lock_depth() == 1 && !trace_on() && !rt.cfg.adapt && rt.tp.concurrent_get(h);
}

// The get of [first, first+n) from h into this rank's slots, made with the
// rank lock given up: the window's pages are marked (a sibling's fault on
// one waits, and no other window takes them).  False: a take of the lock
// meanwhile doomed the fetch (threads.hpp); nothing is published, and the
// fault fetches again under the lock.
bool get_unlocked(int h, uint64_t first, uint64_t n) {
  PageTable& pt = rt.pages;
  for (uint64_t q = first; q < first + n; q++) pt.hint[q] |= kFetching;
  const uint64_t gen = fetch_out();
  const int depth = rank_lock_release_all();
  rt.tp.get(h, Seg::Data, first * kPage, slot(first), n * kPage);
  fetch_landed();
  rank_lock_retake(depth);
  for (uint64_t q = first; q < first + n; q++) pt.hint[q] &= (uint8_t)~kFetching;
  return fetch_back(gen);
}

// Pages [first, first + n) just fetched from h into their slots: read-only
// copies, cached, their reading history noted, counted.
void installed_fetched(int h, uint64_t first, uint64_t n) {
  PageTable& pt = rt.pages;
  vm_protect(first, n, kRO);
  for (uint64_t q = first; q < first + n; q++) {
    pt.state[q] = kRO;
    list_cached(q);
  }
  note_fetched(first, first + n, h);
  rt.st.s.pages_fetched += n;
  rt.st.s.bytes_fetched += n * kPage;
}

// ---- fetches along a stride --------------------------------------------------
//
// A rank that reads another host's pages a constant step apart (LU's row of
// perimeter blocks, each block a window in its owner's column-major
// region; a column of a row-major array) faults once a window, and each
// fault waits for the home: a round trip, and while the home computes, its
// protocol thread's next poll (naps of up to 500 us).  So a rank's faults
// on one home's pages are followed as a stream of windows (LOOM_UNIT_PAGES
// each): after two equal steps in a row (windows W, W+s, W+2s) a fault
// fetches the next windows along the step with its own, their unknown
// homes learnt in one load and the gets waited for together (the home
// serves them in one poll): 2 windows, doubling up to 16 while the fault
// after them lands just past them (they were read with no fault), and 2
// again when the step breaks; a new walk along the last step seen twice
// fetches ahead from its second fault, not its third.  HLRC pages, and only while a fetch joins no
// copy-set (ivl_fetch_joins: no lock taken yet), since a join is a round
// trip a window; not in a fetch without the rank lock (threads) or one the
// adaptive protocol compares.
constexpr uint32_t kStrideFirst = 2, kStrideMost = 16;  // windows fetched ahead
constexpr size_t kStrideStreams = 64;                    // streams followed: a home's is rank mod 64
constexpr size_t kStrideRuns = kGetsAtOnce - 1;          // runs ahead (with the fault's window: one get_many)
static_assert(kStrideMost <= kStrideRuns, "a window a run must fit");

struct StrideStream {
  int home = -1;
  int64_t last = -1;  // the window of the last fault's fetch from home
  int64_t step = 0;   // windows from the fault before it to last (0: none yet)
  int64_t known = 0;  // the last step seen twice in a row (0: none)
  int64_t next = -1;  // just past the windows the last fault fetched ahead (-1: none)
  uint32_t same = 0;  // steps in a row equal to step (counted up to 2)
  uint32_t depth = kStrideFirst;
};
StrideStream g_stride[kStrideStreams];  // the fault path's, under the rank lock

// A fault fetches window w from home h: the windows to fetch ahead of it
// (*step apart), 0 for none.
uint32_t stride_note(int h, int64_t w, int64_t* step) {
  StrideStream& s = g_stride[(size_t)h % kStrideStreams];
  if (s.home != h) s = StrideStream{}, s.home = h;
  if (s.same >= 2 && w == s.next) {
    s.depth = std::min(2 * s.depth, kStrideMost);  // the windows ahead were read: go further
  } else if (s.last >= 0 && s.step != 0 && w - s.last == s.step) {
    s.same = std::min<uint32_t>(s.same + 1, 2);
  } else {
    s.step = s.last >= 0 ? w - s.last : 0;
    // A new walk along a step this stream took before is that step at once
    // (LU reads each step's column of blocks this way, after a fault
    // elsewhere: one fault a walk saved).
    s.same = s.step == 0 ? 0 : s.step == s.known ? 2 : 1;
    s.depth = kStrideFirst;
  }
  if (s.same >= 2) s.known = s.step;
  s.last = w;
  s.next = -1;
  *step = s.step;
  return s.same >= 2 ? s.depth : 0;
}

// Runs of pages a fault fetches ahead along its stream's step.
struct StrideRuns {
  size_t n = 0;
  uint64_t first[kStrideRuns], count[kStrideRuns];
};

// The windows w + step, w + 2 step, ... (up to `want`) ahead of a fault on
// page p from home h: in each, the runs of pages the fault's own window
// would take (fetchable, `skip` as for it).  The walk stops before a window
// that leaves p's allocated pages or protocol or holds pages of another
// home; their unknown homes are learnt first, in one load.  Then the
// stream knows where a fault just past them lands.
void stride_runs(uint64_t p, int h, int64_t w, int64_t step, uint32_t want, uint8_t skip, StrideRuns& out) {
  PageTable& pt = rt.pages;
  const uint64_t unit = rt.cfg.unit_pages;
  uint64_t lo[kStrideMost], hi[kStrideMost];
  auto fits = [&](uint64_t a, uint64_t b, bool unknown) {
    for (uint64_t q = a; q < b; q++)
      if (!(pt.flags[q] & kAlloc) || pt.mode[q] != pt.mode[p] || (pt.home[q] != h && !(unknown && pt.home[q] < 0)))
        return false;
    return true;
  };
  uint32_t k = 0;
  for (; k < want; k++) {
    const int64_t c = w + (int64_t)(k + 1) * step;
    if (c < 0 || (uint64_t)c >= (rt.npages + unit - 1) / unit) break;
    lo[k] = (uint64_t)c * unit, hi[k] = std::min(lo[k] + unit, rt.npages);
    if (!fits(lo[k], hi[k], true)) break;
  }
  proto_learn_homes_of(lo, hi, k);
  out.n = 0;
  uint32_t i = 0;  // windows walked
  for (bool full = false; i < k && !full; i += full ? 0 : 1) {
    // An unclaimed page (nobody's yet) is left to its fault; another
    // home's ends the walk.
    bool other = false;
    for (uint64_t q = lo[i]; q < hi[i]; q++) other |= pt.home[q] >= 0 && pt.home[q] != h;
    if (other) break;
    for (uint64_t q = lo[i]; q < hi[i] && !full;) {
      if (!fetchable(q, h, pt.mode[p], skip, false)) {
        q++;
        continue;
      }
      uint64_t e = q + 1;
      while (e < hi[i] && fetchable(e, h, pt.mode[p], skip, false)) e++;
      out.first[out.n] = q, out.count[out.n] = e - q, out.n++;
      q = e;
      full = out.n == kStrideRuns;  // (the window's rest is left to its fault)
    }
  }
  StrideStream& s = g_stride[(size_t)h % kStrideStreams];
  s.next = w + (int64_t)(i + 1) * step;
}

// The fault's window [first, first + n) and the runs ahead, one wait for
// all; the runs ahead then become read-only copies as the window does
// (make_readable).
void get_with_runs(int h, uint64_t first, uint64_t n, const StrideRuns& ahead) {
  uint64_t off[kGetsAtOnce];
  uint8_t* dst[kGetsAtOnce];
  size_t len[kGetsAtOnce];
  off[0] = first * kPage, dst[0] = slot(first), len[0] = n * kPage;
  for (size_t i = 0; i < ahead.n; i++) {
    page_protocol(ahead.first[i]).before_fetch(h, ahead.first[i], ahead.count[i]);
    populate(ahead.first[i], ahead.count[i]);
    off[1 + i] = ahead.first[i] * kPage, dst[1 + i] = slot(ahead.first[i]), len[1 + i] = ahead.count[i] * kPage;
  }
  rt.tp.get_many(h, Seg::Data, 1 + ahead.n, off, dst, len);
  for (size_t i = 0; i < ahead.n; i++) {
    installed_fetched(h, ahead.first[i], ahead.count[i]);
    rt.st.s.pages_strided += ahead.count[i];
  }
}

// Read access to p.  may_unlock: the fault path, whose get may run without
// the rank lock; false when that fetch was doomed (p is still invalid, and
// the caller holds the lock again).
bool make_readable(uint64_t p, bool may_unlock) {
  PageTable& pt = rt.pages;
  if (pt.state[p] != kNone) return true;
  if (pt.hint[p] & kPrefetched) {
    // Fetched by the last barrier, read when its gaps said: still hot.
    // The prefetched pages of its aligned window open with it (one fault
    // for the window, as a fetch would have taken).
    const uint64_t unit = rt.cfg.unit_pages, lo = p - p % unit, hi = std::min(lo + unit, rt.npages);
    auto ready = [&](uint64_t q) { return (pt.hint[q] & kPrefetched) && pt.state[q] == kNone; };
    uint64_t first = p, end = p + 1;
    while (first > lo && ready(first - 1)) first--;
    while (end < hi && ready(end)) end++;
    vm_protect(first, end - first, kRO);
    for (uint64_t q = first; q < end; q++) {
      pt.hint[q] = (uint8_t)((pt.hint[q] & ~(kPrefetched | kLate | kTrust | kOpened)) | kTrustFull << kTrustShift);
      prefetched_read(q);
    }
    rt.st.s.prefetch_used += end - first;
    return true;
  }
  // The aligned window of LOOM_UNIT_PAGES around p.  Its homes not known
  // here are learnt in one batched load (p's alone: proto_home's load),
  // and unclaimed pages stay unknown, out of the window, with no second
  // load of their entries.
  const uint64_t unit = rt.cfg.unit_pages, lo = p - p % unit, hi = std::min(lo + unit, rt.npages);
  const bool learnt = pt.home[p] < 0;
  // (A claim of the unit from words already loaded needs no lookup first.)
  if (learnt && !proto_claim_ready(p)) proto_learn_homes(lo, hi, 2);
  pt.opened_n = 0;  // (only this fault's claim opens pages)
  int h = proto_home(p, true);
  if (h == rt.rank) {
    // With p, the pages a claim of its unit won here (directory.cpp,
    // claim_unit): one fault a unit.
    const uint64_t run = pt.opened_n && pt.opened_first == p ? pt.opened_n : 1;
    pt.opened_n = 0;
    vm_protect(p, run, kRO);
    std::memset(&pt.state[p], kRO, run);
    return true;
  }
  pt.opened_n = 0;
  const bool unlocked = may_unlock && fetch_may_unlock(h);
  const uint8_t skip = (uint8_t)((fetch_marks_live() ? kFetching : 0) | (unlocked ? kPrefetched : 0));
  // The window cut to the contiguous pages that are allocated, not cached,
  // homed at the same rank and served by the same protocol.  Where p's home
  // was known (the window's were not learnt above), the unknown homes of
  // the pages the window could take are learnt first, in one load.
  // (With every home there known, that walk is the window.)
  uint64_t first = p, end = p + 1;
  bool walk = learnt;
  if (!learnt) {
    while (first > lo && fetchable(first - 1, h, pt.mode[p], skip, true)) first--;
    while (end < hi && fetchable(end, h, pt.mode[p], skip, true)) end++;
    for (uint64_t q = first; q < end && !walk; q++) walk = pt.home[q] < 0;
    if (walk) {
      proto_learn_homes(first, end, 1);
      first = p, end = p + 1;
    }
  }
  if (walk) {
    while (first > lo && fetchable(first - 1, h, pt.mode[p], skip, false)) first--;
    while (end < hi && fetchable(end, h, pt.mode[p], skip, false)) end++;
  }
  uint64_t n = end - first;
  // Before the get: a release that misses this rank in the protocol's
  // bookkeeping then completed its diffs before the get reads them.
  page_protocol(p).before_fetch(h, first, n);
  populate(first, n);
  // Windows further along this rank's step through h's pages.
  static StrideRuns& ahead = *new StrideRuns();  // never destroyed: see runtime.hpp
  ahead.n = 0;
  if (rt.cfg.stride && !unlocked && !rt.cfg.adapt && pt.mode[p] == LOOM_PROTOCOL_HLRC && !rt.tp.is_direct(h) &&
      !ivl_fetch_joins(h)) {
    int64_t step = 0;
    const int64_t w = (int64_t)(lo / unit);
    if (const uint32_t want = stride_note(h, w, &step)) stride_runs(p, h, w, step, want, skip | kPrefetched, ahead);
  }
  if (unlocked) {
    if (!get_unlocked(h, first, n)) return false;
  } else if (ahead.n) {
    get_with_runs(h, first, n, ahead);
  } else {
    // Lazy pages an acquire dropped: is the home's copy the one dropped
    // (adapt.hpp)?  The dropped copies are still in their slots.
    const uint64_t compared = adapt_save_dropped(first, n);
    rt.tp.get(h, Seg::Data, first * kPage, slot(first), n * kPage);
    if (compared) adapt_compare_dropped(first, n);
  }
  installed_fetched(h, first, n);
  return true;
}

// Write access to p (may_unlock as for make_readable).
bool make_writable(uint64_t p, bool may_unlock) {
  PageTable& pt = rt.pages;
  if (pt.state[p] == kRW) return true;
  pt.opened_n = 0;  // (only this fault's claim opens pages: not one an atomic made, say)
  int h = proto_home(p, true, true);
  if (h != rt.rank && pt.state[p] == kNone) {
    if (!make_readable(p, may_unlock)) return false;
    h = proto_home(p, true);
  }
  const PageProtocol& proto = page_protocol(p);
  uint64_t run = 1;
  // A write to a page a read fault's claim opened: the rest of that run
  // registers with it, and opens with it (a[i] += x in fresh memory).
  if (h == rt.rank && pt.state[p] == kRO)
    if (const uint64_t r = proto_register_run(p)) pt.opened_first = p, pt.opened_n = r;
  proto.before_write(p, &h);
  if (h != rt.rank) {
    std::memcpy(pt.twins + p * kPage, slot(p), kPage);
    pt.dirty.push_back((uint32_t)p);
    rt.st.s.twins++;
  } else {
    // The pages a write fault's claim of p's unit won here open with p
    // (directory.cpp, claim_unit): one fault and one mprotect a unit.
    if (pt.opened_n && pt.opened_first == p) run = pt.opened_n;
    for (uint64_t q = p; q < p + run; q++) {
      migrate_home_write(q);
      proto.home_write(q);
    }
  }
  pt.opened_n = 0;
  vm_protect(p, run, kRW);
  std::memset(&pt.state[p], kRW, run);
  if (run > 1) populate_range(rt.base + (p + 1) * kPage, run - 1);
  return true;
}

// ---- one host: pages shared from their homes (LOOM_HOST_SHARE) -----------
//
// With every rank on one host and every peer's memfd mapped, a fault maps
// the page itself instead of copying it: the view's page becomes a mapping
// of the home's memfd at the page's offset (mremap of the peer mapping with
// old size 0 duplicates a shared mapping, so no file descriptor per peer is
// kept).  The ranks then share the page as threads share memory: the host's
// caches keep it coherent, so there are no copies to invalidate, no twins,
// no diffs and no write notices; the page stays read-write until its block
// is freed or reset (which make it absent again).  Homes do not move
// (migration is pointless when every access is a load or a store at the
// home), and locks and barriers order the accesses with their fences.

bool is_foreign(uint64_t p) { return (rt.pages.foreign[p / 64] >> (p % 64)) & 1; }
void set_foreign(uint64_t p, bool on) {
  uint64_t& w = rt.pages.foreign[p / 64];
  w = on ? w | 1ull << (p % 64) : w & ~(1ull << (p % 64));
}

// The view's pages [first, first+n) onto home h's memfd (h == this rank:
// its own), read-write.
void share_map(uint64_t first, uint64_t n, int h) {
  void* at = rt.base + first * kPage;
  void* r;
  if (h == rt.rank)
    r = mmap(at, n * kPage, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, rt.tp.data_fd(),
             (off_t)(first * kPage));
  else
    r = mremap(rt.tp.mapped_data(h) + first * kPage, 0, n * kPage, MREMAP_MAYMOVE | MREMAP_FIXED, at);
  if (r == MAP_FAILED) {
    const int e = errno;
    fatal("mapping %llu pages at page %llu from rank %d's memory failed: %s%s", (unsigned long long)n,
          (unsigned long long)first, h, std::strerror(e),
          e == ENOMEM ? ": this process has reached the kernel's limit on mappings (vm.max_map_count); raise it "
                        "(sysctl -w vm.max_map_count=...) or set LOOM_HOST_SHARE=0"
                      : "; LOOM_HOST_SHARE=0 copies pages instead");
  }
  for (uint64_t q = first; q < first + n; q++) set_foreign(q, h != rt.rank);
}

// First touch of a unit: p was just claimed here.  A rank sharing pages
// claims the other unclaimed pages of p's aligned unit too (LOOM_UNIT_PAGES;
// not past p's block: the next allocation's pages are the next block's
// first toucher's), so that it faults once a unit rather than once a page.
// Those pages' home is then this rank even if another rank touches one
// first.  With every rank on one host that changes nowhere the bytes are
// and what a touch costs, only what loom_home_of says: the host's memory
// backs every page, and the kernel places each physically at its first
// write, whoever's file it is in (share_fault maps in advance only the
// pages a sweep in address order will touch).  Before, only such a sweep
// claimed ahead (p - 1 claimed here too), and a program that first-touches
// pages in no order paid a fault and a claim a page: SPLASH-3 RADIX's
// permutation, 377 claims a rank, 6.5 ms against 3.5 with the unit
// (docs/BENCHMARKS.md, "First touch a unit at a time on one host").  The
// pages' slots are cleared before they are offered (a hole punched in this
// rank's memfd for each run of them instead of a zeroing write a page).
constexpr uint64_t kShareSpan = 64;  // units a shared rank's fault may map at once (share_fault)

void share_claim_unit(uint64_t p) {
  PageTable& pt = rt.pages;
  const uint64_t unit = rt.cfg.unit_pages, ulo = p - p % unit, uhi = std::min(ulo + unit, rt.npages);
  uint64_t lo = p, hi = p + 1;
  while (lo > ulo && !pt.starts_block(lo)) lo--;  // (p's block only)
  while (hi < uhi && !pt.starts_block(hi)) hi++;
  auto open = [&](uint64_t q) {  // (p itself has its home: claimed)
    return pt.state[q] == kNone && (pt.flags[q] & kAlloc) && pt.home[q] < 0 && dir_home(q) < 0;
  };
  for (uint64_t q = lo; q < hi;) {
    if (!open(q)) {
      q++;
      continue;
    }
    uint64_t e = q + 1;
    while (e < hi && open(e)) e++;
    // (A hole not punched: those pages are claimed one by one at their
    // faults, each zeroed then.  Another rank's claim may win one.)
    if (fallocate(rt.tp.data_fd(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(q * kPage),
                  (off_t)((e - q) * kPage)) == 0)
      for (uint64_t x = q; x < e; x++) (void)proto_claim_zeroed(x);
    q = e;
  }
}

// The fault of a rank that shares pages: p (and the absent pages of its
// aligned span with the same home) become read-write mappings of their
// home's memory.  No protocol runs.
void share_fault(uint64_t p) {
  PageTable& pt = rt.pages;
  const bool claimed = pt.home[p] < 0;
  const bool sweep = p > 0 && pt.home[p - 1] == rt.rank;  // (before the claim below)
  const int h = proto_home(p, true);
  if (claimed && h == rt.rank) share_claim_unit(p);
  // The window: the absent pages around p with the same home, within an
  // aligned span of kShareSpan units (a mapping costs about the same for
  // one page or many, and pages already placed only wait to be touched).
  // (A page no rank has touched yet stays out: first touch places pages,
  // as loom_home_of reports them.)
  const uint64_t unit = rt.cfg.unit_pages, span = unit * kShareSpan;
  uint64_t first = p, end = p + 1;
  if (h >= 0) {
    const uint64_t lo = p - p % span, hi = std::min(lo + span, rt.npages);
    auto joins = [&](uint64_t q) {
      return pt.state[q] == kNone && (pt.flags[q] & kAlloc) && is_foreign(q) == is_foreign(p) &&
             proto_home(q, false) == h;
    };
    while (first > lo && joins(first - 1)) first--;
    while (end < hi && joins(end)) end++;
  }
  const uint64_t n = end - first;
  if (h == rt.rank && !is_foreign(p)) vm_protect(first, n, kRW);
  else share_map(first, n, h);
  // The pages of p's unit in this rank's page tables now, in one system
  // call rather than a kernel fault each at their first access (not the
  // whole window: its far pages may never be touched here, and a home that
  // claimed them may not have touched them either).  Where this rank just
  // claimed p out of address order, p alone: the unit's other pages may be
  // another rank's to write first, and that write places them physically.
  uint64_t ulo = std::max(first, p - p % unit), uhi = std::min(end, p - p % unit + unit);
  if (claimed && h == rt.rank && !sweep) ulo = p, uhi = p + 1;
  populate_range(rt.base + ulo * kPage, uhi - ulo);
  std::memset(&pt.state[first], kRW, n);
  if (h != rt.rank) rt.st.s.pages_mapped += n;
}

}  // namespace

void proto_make_readable(uint64_t p) {
  if (rt.shared) {
    if (rt.pages.state[p] == kNone) share_fault(p);
    return;
  }
  (void)make_readable(p, false);
}
void proto_make_writable(uint64_t p) {
  if (rt.shared) {
    if (rt.pages.state[p] != kRW) share_fault(p);
    return;
  }
  (void)make_writable(p, false);
}

Fault proto_fault(uint64_t p, int is_write) {
  PageTable& pt = rt.pages;
  if (!(pt.flags[p] & kAlloc)) {
    // A block another rank allocated: learn it from the heap table.
    if (!heap_mark_if_allocated(p)) return Fault::NotLoom;
  }
  // A page in a window another thread fetches without the rank lock: wait
  // for that fetch (without the lock), then look again.  A fault inside a
  // hold it cannot give up dooms the fetches out instead (threads.hpp).
  if ((pt.hint[p] & kFetching) && fetch_marks_live()) {
    if (rank_lock_depth() > 1) fetch_doom();
    while ((pt.hint[p] & kFetching) && fetch_marks_live()) {
      const uint32_t seq = fetch_seq();
      const int depth = rank_lock_release_all();
      fetch_wait(seq);
      rank_lock_retake(depth);
    }
  }
  uint8_t s = pt.state[p];
  if (is_write < 0) is_write = s == kRO ? 1 : 0;  // unknown: read first, a write faults again
  // Another thread of this rank made the page valid while this one waited
  // for the rank lock.
  if (s == kRW || (s == kRO && !is_write)) return Fault::Allowed;
  // Inside a wrapped MPI call a fault that needs the transport would re-enter MPI.
  if (const char* call = intercept_mpi_call(); call && !rt.tp.all_direct()) intercept_fault_in_mpi(call, p, is_write);
  double t0 = stat_now();
  const uint64_t tt = trace_on() ? trace_now() : 0;
  const uint64_t fetched = rt.st.s.pages_fetched;
  bool valid = true;
  if (rt.shared) {
    (is_write ? rt.st.s.write_faults : rt.st.s.read_faults)++;
    share_fault(p);
  } else if (is_write) {
    rt.st.s.write_faults++;
    valid = make_writable(p, true);
  } else {
    rt.st.s.read_faults++;
    valid = make_readable(p, true);
  }
  // A take of the lock doomed the fetch: fetch under the lock now (a
  // program that takes the lock all the time must still make progress).
  if (!valid) (void)(is_write ? make_writable(p, false) : make_readable(p, false));
  rt.st.s.t_fault += stat_now() - t0;
  if (trace_on()) {
    trace_event(Ev::Fault, tt, p, (uint64_t)(uint16_t)rt.pages.home[p] | (rt.st.s.pages_fetched - fetched) << 32,
                is_write ? 1 : 0);
    trace_flush_full();  // a sweep over a large block between synchronizations faults without end
  }
  return Fault::Handled;
}

namespace {

// The release of the dirty pages in `list` (all of pt.dirty, or a range's
// share of it): diffs to the homes, then the protocols' notices.
void release_pages(std::vector<uint32_t>& list) {
  PageTable& pt = rt.pages;
  pt.release_work = false;
  const auto& families = protocol_families();
  double t0 = stat_now();
  std::sort(list.begin(), list.end());
  // Read-only before the diffs: another thread of this rank that writes a
  // page meanwhile faults and waits for the rank lock, then twins it again,
  // so its write is in this diff or the next one and never between the two.
  for_runs(list, [](uint64_t first, uint64_t n) {
    vm_protect(first, n, kRO);
    std::memset(&rt.pages.state[first], kRO, n);
  });
  migrate_note_released(list);
  static DiffRunList& runs = *new DiffRunList();  // never destroyed: see runtime.hpp
  constexpr size_t kWords = kPage / 64;
  static uint64_t mask[kWords];
  for (uint32_t p : list) {
    const uint64_t tt = trace_on() ? trace_now() : 0;
    runs.clear();
    // The page's changed bytes as a mask, in one pass that costs by its
    // words; a diff of many runs goes by the mask (its transport stores or
    // sends it whole), one of few by its runs, the smaller record.
    const DiffMask d = diff_mask(pt.twins + p * kPage, slot(p), kPage, mask);
    const bool by_mask = Transport::mask_pays(d.runs, kWords);
    if (d.bytes && (!by_mask || trace_runs())) mask_runs(mask, kWords, DiffRunList::add, &runs);
    if (d.bytes && by_mask) rt.tp.put_mask(pt.home[p], Seg::Data, p * kPage, slot(p), mask, kWords);
    else if (d.bytes)
      rt.tp.put_runs(pt.home[p], Seg::Data, p * kPage, slot(p), runs.off.data(), runs.len.data(), runs.off.size());
    if (d.bytes) push_note_diff(p, mask);
    rt.st.s.diffs++;
    rt.st.s.diff_bytes += d.bytes;
    if (trace_runs()) {  // the diff's own runs: no second pass over the page
      trace_run_list(p, runs.off.data(), runs.len.data(), runs.off.size(), pt.home[p]);
      trace_flush_full();  // a release of many scattered pages fills buffers
    }
    if (trace_on())
      trace_event(Ev::Diff, tt, p,
                  (uint64_t)(uint32_t)d.bytes | (uint64_t)(uint16_t)std::min<size_t>(d.runs, 0xffff) << 32 |
                      (uint64_t)(uint16_t)pt.home[p] << 48);
  }
  // A full barrier's release in a job of 2 ranks: the diffs' acknowledgement
  // later (the agreement waits at the home for the batches instead).
  if (rt.ivl.in_barrier && sync_barrier_by_rows()) rt.tp.flush_late();
  else rt.tp.flush();
  // The diffs are at the homes (or, in a barrier of 2 ranks, will be before
  // it ends): each protocol tells the holders it must.
  const uint8_t* family_of = protocol_family_of();
  static std::vector<std::vector<uint32_t>>& written = *new std::vector<std::vector<uint32_t>>();  // never destroyed: see runtime.hpp
  written.resize(families.size());
  for (auto& l : written) l.clear();
  for (uint32_t p : list) written[family_of[pt.mode[p]]].push_back(p);
  for (size_t i = 0; i < families.size(); i++) families[i]->release(written[i]);
  notices_queue_updates();  // loom_update: every other rank installs the page
  notices_publish();
  list.clear();
  rt.st.s.t_diff += stat_now() - t0;
}

}  // namespace

void proto_release() {
  intercept_check_pending();  // no nonblocking MPI operation still uses Loom pages
  if (rt.shared) {  // nothing to send: this rank's stores are in the homes' memory, ordered before the sync's
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return;
  }
  PageTable& pt = rt.pages;
  if (pt.dirty.empty() && !pt.release_work && rt.rings.update_runs.empty()) {
    rt.tp.flush();
    ivl_record();
    return;
  }
  release_pages(pt.dirty);
  ivl_record();
  check_invariants();
}

// A release of the pages [first, first+n) only, where that is the whole
// work: other dirty pages stay dirty.  Home writes an eager protocol must
// announce and loom_update's runs are not per page here: with either
// pending, the release is a full one (releasing more is always allowed).
void proto_release_range(uint64_t first, uint64_t n) {
  if (rt.shared) return proto_release();
  PageTable& pt = rt.pages;
  if (pt.release_work || !rt.rings.update_runs.empty()) return proto_release();
  intercept_check_pending();
  static std::vector<uint32_t>& mine = *new std::vector<uint32_t>();  // never destroyed: see runtime.hpp
  mine.clear();
  size_t kept = 0;
  for (uint32_t p : pt.dirty) {
    if (p >= first && p < first + n) mine.push_back(p);
    else pt.dirty[kept++] = p;
  }
  pt.dirty.resize(kept);
  if (mine.empty()) {
    rt.tp.flush();
    ivl_record();
    return;
  }
  release_pages(mine);
  ivl_record();
  check_invariants();
}

void proto_acquire(bool prefetch, IvlAcquire kind, uint64_t info) {
  const uint64_t tt = trace_on() ? trace_now() : 0;
  // LOOM_TRACE_RUNS: writes not released yet (a split barrier's fuzzy
  // region before its wait) are recorded as written before this acquire;
  // the release that publishes them records them again.
  if (trace_runs())
    for (uint32_t p : rt.pages.dirty) trace_page_runs(p, rt.pages.twins + p * kPage, slot(p), rt.pages.home[p]);
  const uint64_t inv = rt.st.s.invalidations, upd = rt.st.s.updates;
  intercept_check_pending();  // (loom_barrier_wait has no release of its own)
  if (rt.shared) {  // no copies to drop: the sync's loads, ordered before this rank's of shared pages
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    notices_process();  // (blocks another rank freed: forget notices)
    return;
  }
  rt.tp.sync_local();
  check_invariants();
  ivl_begin_acquire(kind, info);
  acquire_copies(prefetch);
  ivl_end_acquire();
  notices_process();
  check_invariants();
  if (trace_on() && (rt.st.s.invalidations != inv || rt.st.s.updates != upd))  // (an acquire that changed nothing is not recorded)
    trace_event(Ev::Acquire, tt, rt.st.s.invalidations - inv, rt.st.s.updates - upd);
}

void proto_acquire_range(uint64_t first, uint64_t n) {
  if (rt.shared) return proto_acquire(false, IvlAcquire::All, 0);
  intercept_check_pending();
  rt.tp.sync_local();
  ivl_partial_acquire();
  acquire_copies(false, first, first + n);
  notices_process();  // all of them: a notice is about one page, and acting on more is allowed
  check_invariants();
}

void load_rank_sets(size_t n, void (*where)(size_t i, int plane, int* rank, uint64_t* off),
                    std::vector<uint64_t>* sets) {
  static void (*s_where)(size_t, int, int*, uint64_t*);
  static size_t s_planes;
  s_where = where;
  s_planes = (size_t)rank_planes();
  sets->resize(n * s_planes);
  if (n == 0) return;
  rt.tp.load_many(
      n * s_planes, [](size_t k, int* r, uint64_t* off) { s_where(k / s_planes, (int)(k % s_planes), r, off); },
      sets->data());
}

void proto_forget_writers() {
  // Ranks that share pages keep no writer sets, and their home pages stay
  // writable (every rank skips this: rt.shared is the same everywhere).
  if (rt.shared) return;
  PageTable& pt = rt.pages;
  const uint64_t words = (rt.npages + 63) / 64;
  static std::vector<uint64_t>& wrote = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  wrote.assign(words, 0);
  for (uint64_t p = 0; p < rt.npages; p++) {
    uint8_t& f = pt.flags[p];
    if (pt.mode[p] != LOOM_PROTOCOL_HLRC) continue;
    if (f & kIWriter) wrote[p / 64] |= 1ull << (p % 64);
    f &= (uint8_t)~(kIWriter | kOtherWritten);
  }
  MPI_Allreduce(MPI_IN_PLACE, wrote.data(), (int)words, MPI_UINT64_T, MPI_BOR, MPI_COMM_WORLD);
  // This rank's slice of the directory, by plain stores: nobody reads or
  // changes a writer set until the raw barrier that ends this step.
  const uint64_t N = (uint64_t)rt.nranks;
  for (uint64_t i = 0; i < words; i++)
    for (uint64_t w = wrote[i]; w; w &= w - 1) {
      const uint64_t p = i * 64 + (uint64_t)__builtin_ctzll(w);
      if (p % N == (uint64_t)rt.rank)
        for (int pl = 0; pl < rank_planes(); pl++)
          __atomic_store_n(reinterpret_cast<uint64_t*>(rt.tp.self_meta() + dir_writers_off(p, pl)), 0, __ATOMIC_RELAXED);
    }
  rt.tp.sync_local();
  // A home page written in place registers again at its next write.
  uint64_t first = 0, n = 0;
  auto flush = [&] {
    if (n) vm_protect(first, n, kRO);
    n = 0;
  };
  for (uint64_t p = 0; p < rt.npages; p++) {
    if (pt.state[p] == kRW && pt.home[p] == rt.rank && pt.mode[p] == LOOM_PROTOCOL_HLRC) {
      pt.state[p] = kRO;
      if (n && first + n == p) n++;
      else {
        flush();
        first = p;
        n = 1;
      }
    }
  }
  flush();
  sync_barrier_raw();
}

// Some hot page is due at this rank's next acquire (whether it will have
// been dropped by then is the acquire's to find out).
bool proto_wants_prefetch() {
  const PageTable& pt = rt.pages;
  if (!rt.cfg.prefetch || pt.hot == 0) return false;
  for (uint32_t p : pt.hot_pages)
    if (hot_due(p, pt.acquires + 1)) return true;
  return false;
}

bool proto_push_used() {
  return !rt.shared && !rt.tp.all_direct() && rt.nranks <= kPushRanks && rt.cfg.prefetch != 2;
}

bool proto_push_keeps() { return rt.nranks <= kPushKeepRanks; }

namespace {
// Pushes ahead, in a job of 2 ranks, whose agreement is rows (sync.cpp,
// agree_by_rows): a home sends the pages of the kept ask it expects with
// its row, as it arrives, instead of after the agreement.  Each send over
// TCP costs its sender 6-17 us (MG across 2 emulated hosts), and the
// barrier's last arriver otherwise waits for two in a row: its own row,
// then the other's pages, sent only once that row is in.  Which slot a
// home sends is predicted from the slots the asker wanted before, a cycle
// of up to kAheadCycle barriers (MG repeats every 22, SOR 21, a halo 1),
// and both ranks predict alike from the same rows, so the asker knows
// which runs, if any, may follow the other's row and posts their receive
// with it as the barrier before ends (sync_rows_prepost), into scratch.
// It takes them (copies them into the pages' slots) only if it wants that
// slot now and has written none of their bytes at the home since the last
// barrier ended by stores and atomics (a write the home's pages may not
// have had when they left, and this rank's copy does not hold:
// Transport::data_written), nor by a diff other than this barrier's own
// release's; its row says -(slot + 1) then, and the home does not send them
// again.  This barrier's diffs may not have reached the home either when
// its pages left, but their bytes are this rank's copy's: the take stores
// them over the pages it got (push_note_diff).  SOR's rank 1 writes a page
// of rank 0's every sweep (the block boundary falls inside it) and took no
// page ahead before that: each barrier then waited for the home's pages
// after the agreement.  Else the home
// answers as before.  A home may still send its row alone (several
// threads of its own compute: none is sent ahead); the asker sees the
// short message and receives the pages the usual way.  Pushes foretold
// right and not taken back both ranks off (ahead_after).
constexpr size_t kAheadCycle = 32, kAheadWindow = 32;
constexpr uint64_t kAheadMaxBytes = (uint64_t)256 << 10;  // (more: answered after the agreement)

// The slot the asker will want next, by the cycle c (1..kAheadCycle) that
// foretold the last kAheadWindow slots best (each as the one c before it),
// if it foretold at least 3 in 4 of them, else -1; the shortest of equals.
// Only a cycle that foretold the slot it now foretells from counts (h[n-c]
// == h[n-2c]): a slot seen once would otherwise be foretold by the cycle
// that puts it just out of its window (MG's warm-up: 29 barriers in a row
// sent 96 KiB ahead that the asker did not want).  (The last slots alone
// would not do either: CG's 1 0 0 1 0 0 ends in a cycle of 1; nor would the
// whole history: one odd barrier, as the reader's own write in mr_prefetch
// section 5, would stop the pushes for as many.)
int ahead_predict(const std::vector<int>& h) {
  const size_t n = h.size();
  size_t best = 0, best_hits = 0, best_of = 1;
  for (size_t c = 1; c <= kAheadCycle && 2 * c <= n; c++) {
    if (h[n - c] != h[n - 2 * c]) continue;
    size_t hits = 0, of = 0;
    for (size_t i = std::max(c, n > kAheadWindow ? n - kAheadWindow : 0); i < n; i++, of++) hits += h[i] == h[i - c];
    if (of >= c && hits * best_of > best_hits * of) best = c, best_hits = hits, best_of = of;
    if (best == c && hits == of) break;  // (none foretells better)
  }
  return best && 4 * best_hits >= 3 * best_of ? h[n - best] : -1;
}

// A kept ask's (first, n) pairs as runs in bytes; their total.
uint64_t ahead_runs(const std::vector<uint64_t>& pairs, std::vector<uint64_t>* off, std::vector<uint64_t>* len) {
  off->clear();
  len->clear();
  uint64_t total = 0;
  for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
    off->push_back(pairs[i] * kPage);
    len->push_back(pairs[i + 1] * kPage);
    total += pairs[i + 1] * kPage;
  }
  return total;
}

// As a barrier ends: the receive of the next one's row, with the pages the
// other rank will send ahead if it predicts as this rank does.
void ahead_prepost(PushState& s) {
  s.expect_slot = -1;
  if (rt.nranks != 2 || !proto_push_keeps()) return;
  const size_t other = (size_t)(1 - rt.rank);
  const int p = s.seq + 1 >= s.mine.until ? ahead_predict(s.hist_mine) : -1;
  uint64_t bytes = 0;
  if (p >= 0 && s.made.size() == 2 && (size_t)p < s.made[other].size() && !s.made[other][(size_t)p].empty()) {
    bytes = ahead_runs(s.made[other][(size_t)p], &s.recv_off, &s.recv_len);
    if (bytes > kAheadMaxBytes) bytes = 0;
  }
  if (bytes) s.scratch.resize(bytes);
  if (sync_rows_prepost(s.scratch.data(), bytes) && bytes) s.expect_slot = p;
}

void ahead_plan(PushState& s) {
  s.my_slot = -1;
  s.took = false;
  s.sent_slot = -1;
  s.pred_theirs = -1;
  s.rows = RowPages{};
  if (rt.nranks != 2 || !proto_push_keeps()) return;
  const size_t other = (size_t)(1 - rt.rank);
  const int q = s.seq >= s.theirs.until ? ahead_predict(s.hist_theirs) : -1;
  if (q >= 0 && s.kept.size() == 2 && (size_t)q < s.kept[other].size() && !s.kept[other][(size_t)q].empty()) {
    const uint64_t bytes = ahead_runs(s.kept[other][(size_t)q], &s.send_off, &s.send_len);
    if (bytes <= kAheadMaxBytes) s.pred_theirs = q;  // (as the asker's expect_slot)
    if (bytes <= kAheadMaxBytes && !threads_several()) {
      rt.tp.sync_local();  // (rma: the diffs put here are in the memory the send reads)
      s.rows.send_off = s.send_off.data();
      s.rows.send_len = s.send_len.data();
      s.rows.send_n = s.send_off.size();
      s.sent_slot = q;
    }
  }
}

// Whether every page of the runs this rank diffed since the last barrier
// has its mask kept (and no other thread of the rank may have written the
// page's own copy since its diff): the pages sent ahead can then be taken,
// this rank's diffed bytes stored over them.
bool ahead_diffs_kept(const PushState& s) {
  if (s.diffed_over) return false;
  if (s.diffed.empty()) return true;
  const bool several = threads_several();
  for (size_t i = 0; i < s.recv_off.size(); i++)
    for (uint64_t p = s.recv_off[i] / kPage; p < (s.recv_off[i] + s.recv_len[i]) / kPage; p++) {
      auto it = s.diffed.find((uint32_t)p);
      if (it != s.diffed.end() && (it->second == kDiffNoMask || several)) return false;
    }
  return true;
}

// The asker wants kept slot `slot` of home h this barrier: whether it takes
// the pages sent ahead (its row then says -(slot + 1)).  Not where it wrote
// their bytes at the home by stores or atomics (Transport::data_written),
// which its own copy does not hold.
bool ahead_take(PushState& s, int h, int slot) {
  if (h != 1 - rt.rank) return false;
  s.my_slot = slot;
  if (s.expect_slot != slot ||
      rt.tp.data_written(h, s.recv_off.data(), s.recv_len.data(), s.recv_off.size()) || !ahead_diffs_kept(s))
    return false;
  s.took = true;
  return true;
}

// After the agreement: a take whose pages did not come is received the
// usual way; then both ranks note the slots wanted.
void ahead_after(PushState& s, const int* kept) {
  if (rt.nranks != 2 || !proto_push_keeps()) return;
  const int other = 1 - rt.rank;
  if (s.took && s.rows.recv_full) {  // the pages into their slots
    uint8_t* from = s.scratch.data();
    for (size_t i = 0; i < s.recv_off.size(); from += s.recv_len[i], i++) {
      // The home sent them as it arrived, perhaps before this rank's diffs
      // of this interval reached it: the diffed bytes stay this rank's.
      // (The home wrote none of them: the program is race-free, or the
      // barrier orders the home's write before this rank's.)
      if (!s.diffed.empty())
        for (uint64_t at = 0; at < s.recv_len[i]; at += kPage) {
          auto it = s.diffed.find((uint32_t)((s.recv_off[i] + at) / kPage));
          if (it != s.diffed.end())
            mask_store(from + at, rt.tp.self_data() + s.recv_off[i] + at, &s.diff_masks[it->second * kMaskWords],
                       kMaskWords);
        }
      std::memcpy(rt.tp.self_data() + s.recv_off[i], from, s.recv_len[i]);
    }
    rt.st.s.pages_ahead += (uint64_t)(from - s.scratch.data()) / kPage;
  } else if (s.took) {
    s.rq.emplace_back();
    rt.tp.irecv_data_runs(other, kTagPushPages, s.recv_off.data(), s.recv_len.data(), s.recv_off.size(), &s.rq.back());
  }
  const int theirs = kept ? kept[other] : 0;
  // Pages sent ahead of a slot foretold right and not taken (the asker
  // wrote some of them, as SOR's rank 1 does every time) were sent for
  // nothing: both ranks see it in the row, and after two such barriers
  // with no take between them stop sending that way for a while, 8
  // barriers doubling to 1024, until a take.  (One now and then, as SOR's
  // rank 0 in one barrier of 20, costs a send; backing off at once cost it
  // 8 barriers of pushes ahead each time.)
  auto outcome = [&](bool took, PushState::Backoff* b) {
    if (took) {
      b->untaken = 0;
      b->wait = kAheadBackoff;
    } else if (++b->untaken >= 2) {
      b->until = s.seq + 1 + b->wait;
      b->wait = std::min(2 * b->wait, kAheadBackoffMax);
    }
  };
  if (s.expect_slot >= 0 && s.my_slot == s.expect_slot) outcome(s.took, &s.mine);
  if (s.pred_theirs >= 0 && std::abs(theirs) - 1 == s.pred_theirs) outcome(theirs < 0, &s.theirs);
  for (auto* h : {&s.hist_mine, &s.hist_theirs}) {
    h->push_back(h == &s.hist_mine ? s.my_slot : theirs == 0 ? -1 : std::abs(theirs) - 1);
    if (h->size() > kAheadWindow + kAheadCycle) h->erase(h->begin());
  }
}
}  // namespace

RowPages* proto_push_row_pages() {
  return rt.nranks == 2 && proto_push_keeps() ? &push_state().rows : nullptr;
}

void proto_push_ask(int* asks, int* kept) {
  PageTable& pt = rt.pages;
  PushState& s = push_state();
  std::fill(asks, asks + rt.nranks, 0);
  if (kept) std::fill(kept, kept + rt.nranks, 0);
  for (int k = 0; k < 2; k++)
    if (s.in_rq[k] == MPI_REQUEST_NULL) rt.tp.irecv_words(kTagPushAsk + k, s.in[k], 2 * kPushAskRuns + 1, &s.in_rq[k]);
  const int par = (int)(++s.seq & 1);
  s.runs.clear();
  s.out.clear();
  s.rq.clear();
  s.pending = false;
  ahead_plan(s);
  if (!rt.cfg.prefetch || pt.hot == 0) return;
  static std::vector<uint32_t>& due = *new std::vector<uint32_t>();  // never destroyed: see runtime.hpp
  due.clear();
  const uint32_t at = pt.acquires + 1;  // (the barrier's acquire)
  for (uint32_t p : pt.hot_pages)
    if (hot_due(p, at) && pt.mode[p] == LOOM_PROTOCOL_HLRC && pt.home[p] >= 0 && pt.home[p] != rt.rank &&
        (pt.flags[p] & kAlloc) && (pt.state[p] == kNone || pt.state[p] == kRO) && !(pt.hint[p] & kFetching) &&
        !rt.tp.is_direct(pt.home[p]))
      due.push_back(p);
  if (due.empty()) return;
  std::sort(due.begin(), due.end());
  if (due.size() > kPushMaxPages) due.resize(kPushMaxPages);  // (the rest fault)
  for (size_t i = 0; i < due.size();) {
    size_t j = i + 1;
    while (j < due.size() && j - i < kPushRunPages && due[j] == due[j - 1] + 1 && pt.home[due[j]] == pt.home[due[i]])
      j++;
    s.runs.push_back(PushRun{pt.home[due[i]], due[i], (uint32_t)(j - i)});
    i = j;
  }
  std::stable_sort(s.runs.begin(), s.runs.end(), [](const PushRun& a, const PushRun& b) { return a.home < b.home; });
  for (const PushRun& r : s.runs) {
    if (pt.state[r.first] == kNone) populate(r.first, r.n);  // (no kernel fault a page as the pages land)
    // (Locks seen: this rank's copy-set bits at the home, complete before
    // the home reads the pages: intervals.cpp.)
    page_protocol(r.first).before_fetch(r.home, r.first, r.n);
  }
  const bool keep = kept && proto_push_keeps();
  if (keep && s.made.size() != (size_t)rt.nranks) {
    s.made.assign((size_t)rt.nranks, {});
    s.next_slot.assign((size_t)rt.nranks, 0);
  }
  static std::vector<uint64_t>& pairs = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  // The ask messages' words stay put (the sends read them) until the
  // exchange is waited for: one buffer each, reserved so none moves.
  s.out.reserve(s.runs.size());
  for (size_t i = 0; i < s.runs.size();) {
    size_t j = i;
    s.off.clear();
    s.len.clear();
    pairs.clear();
    for (; j < s.runs.size() && s.runs[j].home == s.runs[i].home && j - i < kPushAskRuns; j++) {
      s.off.push_back((uint64_t)s.runs[j].first * kPage);
      s.len.push_back((uint64_t)s.runs[j].n * kPage);
      pairs.push_back(s.runs[j].first);
      pairs.push_back(s.runs[j].n);
    }
    const int h = s.runs[i].home;
    int slot = -1;
    if (keep)
      for (size_t k = 0; k < s.made[(size_t)h].size() && slot < 0; k++)
        if (s.made[(size_t)h][k] == pairs) slot = (int)k;
    bool took = false;
    if (slot >= 0) {
      took = ahead_take(s, h, slot);
      kept[h] = took ? -(slot + 1) : slot + 1;  // the home answers from what it kept: no message
    } else {
      uint64_t id = kPushNoSlot;
      if (keep) {
        id = s.next_slot[(size_t)h]++ % kPushKeep;
        if (s.made[(size_t)h].size() <= id) s.made[(size_t)h].resize(id + 1);
        s.made[(size_t)h][id] = pairs;
      }
      s.out.emplace_back();
      std::vector<uint64_t>& m = s.out.back();
      m.push_back(id);
      m.insert(m.end(), pairs.begin(), pairs.end());
      s.rq.emplace_back();
      rt.tp.isend(h, kTagPushAsk + par, m.data(), m.size() * sizeof(uint64_t), &s.rq.back());
      asks[h] = 1;
    }
    if (!took) {  // (taken: they come with the home's row)
      s.rq.emplace_back();
      rt.tp.irecv_data_runs(h, kTagPushPages, s.off.data(), s.len.data(), j - i, &s.rq.back());
    }
    // (A home's runs past the ask's limit are not asked for: they fault.)
    size_t k = j;
    while (k < s.runs.size() && s.runs[k].home == h) k++;
    if (k > j) s.runs.erase(s.runs.begin() + (ptrdiff_t)j, s.runs.begin() + (ptrdiff_t)k);
    i = j;
  }
  // The runs on their way (a trace replayed elsewhere has no other record
  // of them: their pages are read with no fetch).
  if (trace_on()) {
    const uint64_t tt = trace_now();
    for (const PushRun& r : s.runs) trace_event(Ev::Prefetch, tt, r.first, r.n | (uint64_t)(uint16_t)r.home << 48, 1);
  }
  s.pending = true;
}

namespace {
// Send asker `from` the pages of the (first, n) pairs it asked for.
void push_answer(PushState& s, int from, const uint64_t* pairs, size_t n) {
  s.off.resize(n);
  s.len.resize(n);
  for (size_t i = 0; i < n; i++) {
    const uint64_t first = pairs[2 * i], pages = pairs[2 * i + 1];
    if (pages == 0 || first + pages > rt.npages)
      fatal("the barrier's page push: rank %d asked for %llu pages at page %llu of %llu", from,
            (unsigned long long)pages, (unsigned long long)first, (unsigned long long)rt.npages);
    s.off[i] = first * kPage;
    s.len[i] = pages * kPage;
  }
  s.rq.emplace_back();
  rt.tp.isend_data_runs(from, kTagPushPages, s.off.data(), s.len.data(), n, &s.rq.back());
}
}  // namespace

void proto_push_serve(int asked, const int* kept) {
  PushState& s = push_state();
  ahead_after(s, kept);
  // kept[r] < 0: r wants that slot and took the pages sent ahead, if they were.
  auto wants = [&](int r) { return kept && kept[r] != 0 && !(kept[r] < 0 && s.sent_slot == -kept[r] - 1); };
  bool any_kept = false;
  for (int r = 0; kept && r < rt.nranks; r++) any_kept |= wants(r);
  if (asked > 0 || any_kept) {
    rt.tp.sync_local();  // (rma: the diffs others put here are in the memory the sends read)
    if (any_kept && s.kept.size() != (size_t)rt.nranks) s.kept.resize((size_t)rt.nranks);
    for (int r = 0; any_kept && r < rt.nranks; r++) {
      if (!wants(r)) continue;
      const size_t slot = (size_t)std::abs(kept[r]) - 1;
      if (slot >= s.kept[(size_t)r].size() || s.kept[(size_t)r][slot].empty())
        fatal("the barrier's page push: rank %d named kept ask %zu, which this rank does not hold", r, slot);
      const std::vector<uint64_t>& p = s.kept[(size_t)r][slot];
      push_answer(s, r, p.data(), p.size() / 2);
    }
    // Every ask was sent before its sender joined the agreement: they are
    // all on their way, and each is answered as it comes.
    wait_site("the barrier's page push (asks)");
    const int par = (int)(s.seq & 1);
    const uint64_t* in = s.in[par];
    for (int served = 0; served < asked; served++) {
      int from = -1;
      size_t words = 0;
      spin_until([&] { return rt.tp.test_words(&s.in_rq[par], &words, &from); });
      if (words < 3 || words % 2 == 0)
        fatal("the barrier's page push: an ask of %zu words from rank %d", words, from);
      const size_t n = (words - 1) / 2;
      if (in[0] != kPushNoSlot) {
        if (in[0] >= kPushKeep || !proto_push_keeps())
          fatal("the barrier's page push: rank %d asked to keep its ask in slot %llu", from, (unsigned long long)in[0]);
        if (s.kept.size() != (size_t)rt.nranks) s.kept.resize((size_t)rt.nranks);
        std::vector<std::vector<uint64_t>>& mine = s.kept[(size_t)from];
        if (mine.size() <= in[0]) mine.resize(in[0] + 1);
        mine[in[0]].assign(in + 1, in + 1 + 2 * n);
      }
      push_answer(s, from, in + 1, n);
      rt.tp.irecv_words(kTagPushAsk + par, s.in[par], 2 * kPushAskRuns + 1, &s.in_rq[par]);
    }
  }
  if (!s.rq.empty()) {
    wait_site("the barrier's page push (pages)");
    spin_until([&] { return rt.tp.test_all(s.rq.data(), s.rq.size()); });
    s.rq.clear();
  }
  if (rt.nranks == 2) {
    rt.tp.data_writes_mark(1 - rt.rank);
    s.diffed.clear();
    s.diff_masks.clear();
    s.diffed_over = false;
    ahead_prepost(s);
  }
}

void proto_push_stop() {
  PushState& s = push_state();
  for (MPI_Request& rq : s.in_rq) rt.tp.cancel(&rq);
  s.pending = false;
  // Every rank stops at once (loom_finalize, loom_stop): kept asks go on
  // both sides.
  s.made.clear();
  s.next_slot.clear();
  s.kept.clear();
  s.hist_mine.clear();
  s.hist_theirs.clear();
  s.expect_slot = -1;
  s.mine = s.theirs = PushState::Backoff{};
}

void proto_before_atomic(uint64_t p) {
  PageTable& pt = rt.pages;
  if (rt.shared) {  // the atomic and this rank's view are the same memory
    (void)proto_home(p, true);
    return;
  }
  proto_forget_hints(p);  // a prefetched copy would miss the atomic's update too
  int h = proto_home(p, true);
  if (h != rt.rank && pt.state[p] != kNone) {
    if (pt.state[p] == kRW) proto_release();  // this rank's writes to the page go first
    vm_protect(p, 1, kNone);                  // the copy would miss the atomic's update
    pt.state[p] = kNone;
  }
  page_protocol(p).before_atomic(p, &h);
}

void proto_after_atomic(uint64_t p) {
  if (!rt.shared) page_protocol(p).after_atomic(p);
}

void proto_forget_copies(uint64_t first, uint64_t n, bool allocated) {
  PageTable& pt = rt.pages;
  pt.alloc_gen++;
  if (allocated) pt.mark_block(first, n);
  for (uint64_t p = first; p < first + n; p++) {
    if (pt.home[p] != rt.rank && pt.state[p] != kNone) {
      LOOM_ASSERT(pt.state[p] != kRW || rt.shared);  // callers release first (a shared page is the home's)
      vm_protect(p, 1, kNone);
      pt.state[p] = kNone;
    }
    migrate_forget(p);
    adapt_forget(p);
    ivl_forget(p);
    proto_forget_hints(p);
    pt.flags.put(p, allocated ? pt.flags[p] | kAlloc | kSingle : pt.flags[p] & (uint8_t)~(kAlloc | kSingle));
    pt.mode[p] = (uint8_t)rt.cfg.protocol;
    pt.heap_checked[p] = ~0u;  // unknown: the next check reads the table
  }
}

void proto_forget_block(uint64_t first, uint64_t n) {
  PageTable& pt = rt.pages;
  pt.alloc_gen++;
  bool dirty = false;
  for (uint64_t p = first; p < first + n; p++) {
    if (pt.state[p] == kRW && pt.home[p] != rt.rank) dirty = true;  // written after another rank freed it
    if (pt.state[p] != kNone) vm_protect(p, 1, kNone);
    pt.state.put(p, kNone);
    pt.flags.put(p, pt.flags[p] & kListed);
    pt.home[p] = -1;
    pt.mode[p] = (uint8_t)rt.cfg.protocol;
    pt.heap_checked[p] = ~0u;
    migrate_forget(p);
    adapt_forget(p);
    ivl_forget(p);
    proto_forget_hints(p);
  }
  if (dirty)  // those writes have no block to go to
    pt.dirty.erase(std::remove_if(pt.dirty.begin(), pt.dirty.end(),
                                  [&](uint32_t p) { return p >= first && p < first + n; }),
                   pt.dirty.end());
  for (const PageProtocol* f : protocol_families()) f->forget_range(first, n);
}

void proto_free_block(uint64_t first, uint64_t n) {
  // Word by word, with atomic stores: other ranks read and CAS these words
  // (a put would race with them, and MPI forbids mixing the two on one
  // location).  Untouched pages' entries are zero already: one batched
  // load finds the ones to clear.
  // A chunk of pages at a time, so that a large block's free does not
  // keep a buffer of 16 bytes a page for the rest of the run.
  static std::vector<uint64_t>& words = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  static uint64_t s_first, s_words;
  constexpr uint64_t kChunk = 65536;
  s_words = dir_entry_bytes() / 8;  // the home word and the writer set's planes
  for (uint64_t c = first; c < first + n; c += kChunk) {
    const uint64_t m = std::min(kChunk, first + n - c);
    s_first = c;
    words.resize(s_words * m);
    rt.tp.load_many(
        s_words * m, [](size_t i, int* r, uint64_t* off) {
          const uint64_t p = s_first + i / s_words;
          *r = (int)dir_rank(p);
          *off = dir_off(p) + (i % s_words) * 8;
        },
        words.data());
    for (uint64_t i = 0; i < s_words * m; i++)
      if (words[i])
        rt.tp.store((int)dir_rank(c + i / s_words), Seg::Meta, dir_off(c + i / s_words) + (i % s_words) * 8, 0);
  }
  rt.tp.flush();
  notices_send_forget(first, n);
  proto_forget_block(first, n);
}

void proto_watch_homes() {
  PageTable& pt = rt.pages;
  uint64_t first = 0, n = 0;
  auto flush = [&] {
    if (n) {
      vm_protect(first, n, kNone);
      std::memset(&pt.state[first], kNone, n);
    }
    n = 0;
  };
  for (uint64_t p = 0; p < rt.npages; p++) {
    const bool watch = pt.home[p] == rt.rank && pt.state[p] != kNone && (pt.flags[p] & kAlloc) &&
                       pt.mode[p] == LOOM_PROTOCOL_HLRC;
    if (watch && pt.state[p] == kRW) ivl_home_protected(p);
    if (watch && n && first + n == p) n++;
    else if (watch) {
      flush();
      first = p, n = 1;
    }
  }
  flush();
}

void proto_reset_range(uint64_t first, uint64_t n, bool allocated, loom_home_policy_t policy, int explicit_home,
                       loom_protocol_t protocol, const int16_t* placed) {
  PageTable& pt = rt.pages;
  vm_protect(first, n, kNone);
  pt.alloc_gen++;
  if (allocated) pt.mark_block(first, n);
  const uint64_t N = (uint64_t)rt.nranks;
  uint64_t chunk = (n + N - 1) / N;
  // This rank's directory entries of the range are consecutive in its Meta
  // (directory.cpp: page p's entry is at index p / N of rank p % N): put
  // in runs, not stored a word at a time, which under rma is an MPI
  // operation each (a 16 GiB block took 33 s across 2 hosts).  Every rank
  // is between two barriers here, so no other rank reads or CASes them.
  // Where no page of the range gets a home here (first touch, or a free)
  // every entry becomes zero: in a memfd Meta its pages are punched out
  // instead (Transport::zero_self_meta), so that a block allocated and not
  // used costs this rank no directory memory.
  bool zeros = !allocated || (policy != LOOM_HOME_CYCLIC && policy != LOOM_HOME_BLOCK && policy != LOOM_HOME_EXPLICIT);
  for (uint64_t i = 0; zeros && allocated && placed && i < n; i++) zeros = placed[i] < 0;
  const uint64_t p0 = first + ((uint64_t)rt.rank + N - first % N) % N;  // this rank's first entry in the range
  if (zeros && rt.tp.meta_is_mapped() && p0 < first + n) {
    const uint64_t p1 = p0 + (first + n - 1 - p0) / N * N;  // and its last
    rt.tp.zero_self_meta(dir_off(p0), dir_off(p1) + dir_entry_bytes() - dir_off(p0));
  }
  const bool put_entries = !(zeros && rt.tp.meta_is_mapped());
  static std::vector<uint64_t>& own = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  uint64_t own_off = 0;
  own.clear();
  auto put_own = [&] {
    if (own.empty()) return;
    rt.tp.put(rt.rank, Seg::Meta, own_off, own.data(), own.size() * 8);
    rt.tp.flush();  // before the buffer is written again
    own.clear();
  };
  for (uint64_t i = 0; i < n; i++) {
    uint64_t p = first + i;
    int h = -1;
    if (allocated) switch (policy) {
        case LOOM_HOME_CYCLIC: h = (int)(i % N); break;
        case LOOM_HOME_BLOCK: h = (int)(i / chunk); break;
        case LOOM_HOME_EXPLICIT: h = explicit_home; break;
        default: h = -1;
      }
    if (allocated && placed && placed[i] >= 0) h = placed[i];
    pt.state.put(p, kNone);  // (put: a range never used before stays untouched where it can)
    pt.flags.put(p, (uint8_t)((pt.flags[p] & kListed) | (allocated ? kAlloc : 0)));  // collective: not kSingle
    migrate_forget(p);
    adapt_forget(p);
    ivl_forget(p);
    proto_forget_hints(p);
    pt.home[p] = (int16_t)h;
    pt.mode[p] = (uint8_t)protocol;
    if (put_entries && dir_rank(p) == (uint64_t)rt.rank) {
      if (own.empty()) own_off = dir_off(p);
      own.push_back((uint64_t)(h + 1));
      for (int w = 0; w < rank_planes(); w++) own.push_back(0);
      if (own.size() >= 8192) put_own();
    }
  }
  put_own();
  for (const PageProtocol* f : protocol_families()) f->forget_range(first, n);
  rt.tp.sync_local();
  // Fresh contents: the home copies of the range read as zero.
  if (rt.tp.all_direct()) {
    if (fallocate(rt.tp.data_fd(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(first * kPage),
                  (off_t)(n * kPage)) != 0)
      std::memset(slot(first), 0, n * kPage);
  } else {
    for (uint64_t p = first; p < first + n; p++)
      if (pt.home[p] == rt.rank) std::memset(slot(p), 0, kPage);
  }
}

}  // namespace loom
