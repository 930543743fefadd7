// Notice rings between ranks (notices.hpp has the layout and the rules).
#include "protocol/notices.hpp"
#include "trace.hpp"

#include <algorithm>
#include <atomic>

#include "heap.hpp"
#include "protocol/erc.hpp"
#include "protocol/protocol.hpp"

namespace loom {

// Acquires since a copy was dropped after which a notice for it makes this
// rank leave the page's copy-set (erc_leave).  Across 2 emulated hosts,
// leaving at the first notice for an absent copy cost IS 1.9x and MG 1.6x
// (pages dropped at one acquire and read again a few later left and joined
// every time).
constexpr uint32_t kLeaveAfter = 64;
namespace {

// The ring that rank `writer` fills, in the Meta of the rank that reads it.
uint64_t ring_off(int writer) { return rt.meta.rings + (uint64_t)writer * (8 + rt.rings.entries) * 8; }

}  // namespace

namespace {
void queue_run(int r, uint64_t p, uint64_t kind, uint64_t n) {
  for (; n;) {
    const uint64_t k = std::min(n, kNoticeMaxRun);
    rt.rings.outbox[r].push_back((k - 1) << 40 | p << 2 | kind);
    rt.st.s.notices++;
    if (trace_on())  // kind: the notice kind in bits 0-1, bit 2 for a placement notice (forget, watch, switch)
      trace_event(Ev::Notice, trace_now(), p, k | ((kind & 3) | (kind >> 63) << 2) << 32 | (uint64_t)(uint16_t)r << 48);
    p += k;
    n -= k;
  }
}
}  // namespace

void notice_queue(int r, uint64_t p, NoticeKind kind, uint64_t n) { queue_run(r, p, kind, n); }
void notice_queue_place(int r, uint64_t p, PlaceKind kind, uint64_t n) { queue_run(r, p, kNoticeForget | kind, n); }

void notices_send_forget(uint64_t first, uint64_t n) {
  for (int r = 0; r < rt.nranks; r++)
    if (r != rt.rank) notice_queue_place(r, first, kPlaceForget, n);
  notices_publish();
}

// Entries into the rings, flush, then the heads (a holder reads only
// entries below a head it sees).
void notices_publish() {
  Transport& tp = rt.tp;
  NoticeRings& R = rt.rings;
  static std::vector<int>& sent_to = *new std::vector<int>();  // never destroyed: see runtime.hpp
  sent_to.clear();
  for (int r = 0; r < rt.nranks; r++) {
    std::vector<uint64_t>& box = R.outbox[r];
    if (box.empty()) continue;
    const uint64_t n = box.size(), ring = ring_off(rt.rank);
    if (R.sent[r] + n - R.tail[r] > R.entries) R.tail[r] = tp.load(r, Seg::Meta, ring + 8);
    if (R.sent[r] + n - R.tail[r] > R.entries) {
      R.ovf[r]++;  // no room: the holder drops every copy kept by notices instead
    } else {
      const uint64_t at = R.sent[r] % R.entries, first = std::min(n, R.entries - at);
      tp.put(r, Seg::Meta, ring + (8 + at) * 8, box.data(), first * 8);
      if (first < n) tp.put(r, Seg::Meta, ring + 8 * 8, box.data() + first, (n - first) * 8);
      R.sent[r] += n;
    }
    box.clear();
    sent_to.push_back(r);
  }
  if (sent_to.empty()) return;
  tp.flush();
  for (int r : sent_to) tp.store(r, Seg::Meta, ring_off(rt.rank), R.sent[r] | R.ovf[r] << 48);
}

void notices_queue_updates() {
  auto& up = rt.rings.update_runs;
  if (up.empty()) return;
  // Sorted, overlapping and adjacent ranges joined.
  std::sort(up.begin(), up.end());
  size_t n = 0;
  for (size_t i = 1; i < up.size(); i++) {
    if (up[i].first <= up[n].first + up[n].second)
      up[n].second = std::max(up[n].second, up[i].first + up[i].second - up[n].first);
    else
      up[++n] = up[i];
  }
  up.resize(n + 1);
  // Too many ranges for the rings: join across the smallest gaps.
  if (up.size() > rt.rings.max_update_runs()) {
    static std::vector<uint64_t>& gaps = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
    gaps.clear();
    for (size_t i = 1; i < up.size(); i++) gaps.push_back(up[i].first - (up[i - 1].first + up[i - 1].second));
    const size_t keep = rt.rings.max_update_runs() - 1;  // gaps left open
    std::nth_element(gaps.begin(), gaps.end() - keep, gaps.end());
    const uint64_t cut = *(gaps.end() - keep);  // gaps below this are joined
    size_t open = 0, m = 0;
    for (size_t i = 1; i < up.size(); i++) {
      const uint64_t gap = up[i].first - (up[m].first + up[m].second);
      if (gap < cut || open >= keep) up[m].second = up[i].first + up[i].second - up[m].first;
      else {
        up[++m] = up[i];
        open++;
      }
    }
    up.resize(m + 1);
  }
  // Pages never touched read as zero anyway: each range is sent as its runs
  // of allocated pages with a known home (the home ignores the notice).
  for (const auto& [first, count] : up) {
    uint64_t start = ~0ull;
    for (uint64_t p = first; p <= first + count; p++) {
      const bool want = p < first + count && (rt.pages.flags[p] & kAlloc) && proto_home(p, false) >= 0;
      if (want && start == ~0ull) start = p;
      if (!want && start != ~0ull) {
        for (int r = 0; r < rt.nranks; r++)
          if (r != rt.rank) notice_queue(r, start, kNoticeInstall, p - start);
        start = ~0ull;
      }
    }
  }
  up.clear();
}

namespace {
// The sum of the ring heads (each a count with the overflow generation
// above it: they only grow) that the last notices_process read.
std::atomic<uint64_t> g_heads_read{0};

uint64_t heads_sum() {
  uint64_t sum = 0;
  for (int w = 0; w < rt.nranks; w++)
    if (w != rt.rank)
      sum += __atomic_load_n(reinterpret_cast<const uint64_t*>(rt.tp.self_meta() + ring_off(w)), __ATOMIC_ACQUIRE);
  return sum;
}
}  // namespace

bool notices_pending() { return heads_sum() != g_heads_read.load(std::memory_order_relaxed); }

void notices_process() {
  Transport& tp = rt.tp;
  NoticeRings& R = rt.rings;
  PageTable& pt = rt.pages;
  const int N = rt.nranks;
  static std::vector<uint64_t>& heads = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  static std::vector<uint64_t>& notes = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  static std::vector<uint32_t>& drop = *new std::vector<uint32_t>();  // never destroyed: see runtime.hpp
  static std::vector<uint32_t>& refresh = *new std::vector<uint32_t>();  // never destroyed: see runtime.hpp
  static std::vector<std::pair<uint64_t, uint64_t>>& forgets = *new std::vector<std::pair<uint64_t, uint64_t>>();  // never destroyed: see runtime.hpp
  static std::vector<std::pair<uint64_t, uint64_t>>& watches = *new std::vector<std::pair<uint64_t, uint64_t>>();  // never destroyed: see runtime.hpp
  static std::vector<std::pair<uint64_t, uint64_t>>& eager = *new std::vector<std::pair<uint64_t, uint64_t>>();  // never destroyed: see runtime.hpp
  heads.resize(N);
  forgets.clear();
  watches.clear();
  eager.clear();
  tp.load_many(
      N, [](size_t i, int* r, uint64_t* off) {
        *r = rt.rank;
        *off = ring_off((int)i);
      },
      heads.data());
  {
    uint64_t sum = 0;
    for (int w = 0; w < N; w++)
      if (w != rt.rank) sum += heads[w];
    g_heads_read.store(sum, std::memory_order_relaxed);
  }
  notes.clear();
  bool overflow = false;
  for (int w = 0; w < N; w++) {
    if (w == rt.rank) continue;
    const uint64_t head = heads[w] & kRingCountMask, gen = heads[w] >> 48;
    if (gen != R.ovf_seen[w]) {
      R.ovf_seen[w] = gen;
      overflow = true;
    }
    uint64_t& done = R.seen[w];
    if (head == done) continue;
    const uint64_t* e = reinterpret_cast<const uint64_t*>(tp.self_meta() + ring_off(w)) + 8;
    for (; done < head; done++) {
      const uint64_t x = e[done % R.entries], p = x >> 2 & kNoticePageMask, n = (x >> 40 & (kNoticeMaxRun - 1)) + 1;
      if (x & kNoticeForget) {
        switch (x & 3) {
          case kPlaceForget: forgets.emplace_back(p, n); break;
          case kPlaceWatch: watches.emplace_back(p, n); break;
          case kPlaceMoved: migrate_moved(p, n, w); break;  // before the forgets, which may follow a move
          case kPlaceEager: eager.emplace_back(p, n); break;
          default: break;
        }
      } else
        for (uint64_t k = 0; k < n; k++) notes.push_back((p + k) << 2 | (x & 3));
    }
    tp.store(rt.rank, Seg::Meta, ring_off(w) + 8, done);
  }
  if (notes.empty() && forgets.empty() && watches.empty() && eager.empty() && !overflow) return;
  double t0 = stat_now();
  const uint64_t tt = trace_on() ? trace_now() : 0;
  const uint64_t received = notes.size() + forgets.size() + watches.size() + eager.size();
  drop.clear();
  refresh.clear();
  // Blocks freed by other ranks first: every other notice is about a
  // current block.
  for (const auto& [first, n] : forgets)
    if (first + n <= rt.npages) proto_forget_block(first, n);
  for (const auto& [first, n] : watches) migrate_watch(first, n);
  for (const auto& [first, n] : eager) adapt_switch(first, n);  // after the forgets: a freed page stays lazy
  if (overflow) {  // notices were lost: no copy kept by notices can be trusted
    migrate_notices_lost();  // nor a home this rank knows
    adapt_notices_lost();    // nor a lazy page's protocol
    for (uint32_t p : pt.cached)
      if (page_protocol(p).needs_notices && pt.home[p] != rt.rank && pt.state[p] != kNone)
        notes.push_back((uint64_t)p << 2 | kNoticeInvalidate);
    // and any loom_alloc block may have been freed: forget them all.
    for (uint64_t p = 0; p < rt.npages; p++)
      if (pt.flags[p] & kSingle) proto_forget_block(p, 1);
  }
  // One action per page: a refresh or install wins over an invalidate.
  std::sort(notes.begin(), notes.end(), [](uint64_t a, uint64_t b) {
    return (a >> 2) != (b >> 2) ? (a >> 2) < (b >> 2) : (a & 3) > (b & 3);
  });
  uint64_t last = ~0ull;
  for (uint64_t e : notes) {
    const uint64_t p = e >> 2;
    const NoticeKind kind = (NoticeKind)(e & 3);
    if (p == last || p >= rt.npages) continue;
    last = p;
    if (!(pt.flags[p] & kAlloc) && !(kind == kNoticeInstall && heap_mark_if_allocated(p))) continue;
    if (pt.home[p] == rt.rank) {  // the home copy is always current
      page_protocol(p).home_notice(p, kind);
      continue;
    }
    if (pt.state[p] == kRW) {
      merge_from_home(p);
      rt.st.s.updates++;
    } else if (pt.state[p] == kRO) {
      if (kind == kNoticeInvalidate) drop.push_back((uint32_t)p);
      else refresh.push_back((uint32_t)p);
    } else if (kind == kNoticeInstall && proto_home(p, false) >= 0 && pt.home[p] != rt.rank) {
      refresh.push_back((uint32_t)p);
    } else if (kind != kNoticeInstall && pt.state[p] == kNone && page_protocol(p).needs_notices &&
               pt.acquires - pt.dropped_at[p] >= kLeaveAfter) {
      // A notice for a copy this rank dropped kLeaveAfter acquires ago or
      // more and has not fetched since: leave the copy-set, or every later
      // write of the page traps at its home and comes here.  (A page read
      // again soon stays in: leaving and joining cost a round trip each.)
      erc_leave(p);
    }
  }
  drop_pages(drop);
  refresh_pages(refresh, true);
  rt.st.s.t_update += stat_now() - t0;
  if (trace_on()) trace_event(Ev::Notices, tt, received, drop.size() | (uint64_t)refresh.size() << 32);
}

}  // namespace loom
