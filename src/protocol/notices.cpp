// Notice rings between ranks (notices.hpp has the layout and the rules).
#include "protocol/notices.hpp"

#include <algorithm>

#include "heap.hpp"
#include "protocol/protocol.hpp"

namespace loom {
namespace {

// The ring that rank `writer` fills, in the Meta of the rank that reads it.
uint64_t ring_off(int writer) { return rt.meta.rings + (uint64_t)writer * kRingWords * 8; }

}  // namespace

void notice_queue(int r, uint64_t p, NoticeKind kind) {
  rt.rings.outbox[r].push_back(p << 2 | kind);
  rt.st.s.notices++;
}

// Entries into the rings, flush, then the heads (a holder reads only
// entries below a head it sees).
void notices_publish() {
  Transport& tp = rt.tp;
  NoticeRings& R = rt.rings;
  static std::vector<int> sent_to;
  sent_to.clear();
  for (int r = 0; r < rt.nranks; r++) {
    std::vector<uint64_t>& box = R.outbox[r];
    if (box.empty()) continue;
    const uint64_t n = box.size(), ring = ring_off(rt.rank);
    if (R.sent[r] + n - R.tail[r] > kRingEntries) R.tail[r] = tp.load(r, Seg::Meta, ring + 8);
    if (R.sent[r] + n - R.tail[r] > kRingEntries) {
      R.ovf[r]++;  // no room: the holder drops every copy kept by notices instead
    } else {
      const uint64_t at = R.sent[r] % kRingEntries, first = std::min(n, kRingEntries - at);
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
  std::vector<uint32_t>& up = rt.rings.update_pages;
  if (up.empty()) return;
  std::sort(up.begin(), up.end());
  up.erase(std::unique(up.begin(), up.end()), up.end());
  for (uint32_t p : up) {
    const int h = proto_home(p, false);
    if (h < 0 || !(rt.pages.flags[p] & kAlloc)) continue;  // untouched: reads as zero anyway
    for (int r = 0; r < rt.nranks; r++)
      if (r != rt.rank && r != h) notice_queue(r, p, kNoticeInstall);
  }
  up.clear();
}

void notices_process() {
  Transport& tp = rt.tp;
  NoticeRings& R = rt.rings;
  PageTable& pt = rt.pages;
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
    if (gen != R.ovf_seen[w]) {
      R.ovf_seen[w] = gen;
      overflow = true;
    }
    uint64_t& done = R.seen[w];
    if (head == done) continue;
    const uint64_t* e = reinterpret_cast<const uint64_t*>(tp.self_meta() + ring_off(w)) + 8;
    for (; done < head; done++) notes.push_back(e[done % kRingEntries]);
    tp.store(rt.rank, Seg::Meta, ring_off(w) + 8, done);
  }
  if (notes.empty() && !overflow) return;
  double t0 = stat_now();
  drop.clear();
  refresh.clear();
  if (overflow) {  // notices were lost: no copy kept by notices can be trusted
    for (uint32_t p : pt.cached)
      if (page_protocol(p).needs_notices && pt.home[p] != rt.rank && pt.state[p] != kNone)
        notes.push_back((uint64_t)p << 2 | kNoticeInvalidate);
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
    }
  }
  drop_pages(drop);
  refresh_pages(refresh, true);
  rt.st.s.t_update += stat_now() - t0;
}

}  // namespace loom
