// Adaptive placement: home migration at barriers (migrate.hpp has the rule).
//
// Measured (docs/BENCHMARKS.md, "Adaptive placement and protocol"): Jacobi
// whose arrays one rank initialized 6.1x faster, SPLASH-3 LU (rank 0 sets up
// every page) 3.4x, the suite's programs unchanged.  Designs measured and dropped: a
// page moving to any rank that wrote it in two intervals (Barnes-Hut 2.4x,
// IS 2x slower: pages the old home kept writing moved away from it);
// migrating at the writer's release (safe only for pages nobody else ever
// wrote, which excludes the rank-0-initializes case); moving after one
// interval of writes (a one-time boundary write stole every page of a
// neighbour's rows); and, for telling the other ranks, re-reading the
// directory before every fetch (a round trip per fault across hosts).
#include "protocol/migrate.hpp"

#include <algorithm>

#include "protocol/protocol.hpp"
#include "trace.hpp"
#include "vm.hpp"

namespace loom {
namespace {

// This rank is no longer the home of p: drop the page (its slot is stale).
void lose_home(uint64_t p) {
  PageTable& pt = rt.pages;
  if (pt.home[p] != rt.rank) return;
  if (pt.state[p] != kNone) vm_protect(p, 1, kNone);
  pt.state[p] = kNone;
  pt.home[p] = -1;
}

// Trap this rank's next write of home pages [first, first+n) (watched).
void watch_pages(uint64_t first, uint64_t n) {
  PageTable& pt = rt.pages;
  for (uint64_t p = first; p < first + n && p < rt.npages; p++) {
    if (pt.home[p] != rt.rank || !(pt.flags[p] & kAlloc) || !page_protocol(p).migrates) continue;
    rt.mig.state[p] |= kWatched;
    if (pt.state[p] == kRW) {
      // Another thread of this rank may have written the page since this
      // rank's last release (the watch arrives at any acquire).
      ivl_home_protected(p);
      vm_protect(p, 1, kRO);
      pt.state[p] = kRO;
    }
  }
}

}  // namespace

void migrate_note_released(const std::vector<uint32_t>& pages) {
  if (!rt.cfg.migrate) return;
  Migration& m = rt.mig;
  for (uint32_t p : pages) {
    uint8_t& st = m.state[p];
    if ((st & kDone) || !page_protocol(p).migrates) continue;
    m.candidates.push_back(p);
    if (!(st & (kWroteOnce | kAskedNow))) {
      st |= kAskedNow;
      m.asks[rt.pages.home[p]].push_back(p);
    }
  }
  // One notice per run of pages (sorted) to each home.
  for (int h = 0; h < rt.nranks; h++) {
    std::vector<uint32_t>& a = m.asks[h];
    if (a.empty()) continue;
    for_runs(a, [h](uint64_t first, uint64_t n) { notice_queue_place(h, first, kPlaceWatch, n); });
    a.clear();
  }
}

bool migrate_prepare() {
  Migration& m = rt.mig;
  std::vector<uint32_t>& now = m.candidates;
  std::sort(now.begin(), now.end());
  now.erase(std::unique(now.begin(), now.end()), now.end());
  m.ready.clear();
  for (uint32_t p : now) {
    uint8_t& st = m.state[p];
    if (st & kDone) continue;
    if (st & kWroteOnce) m.ready.push_back(p);
    else if (st & kAskedNow) st = (uint8_t)((st & ~kAskedNow) | kWroteOnce);
  }
  now.clear();
  return !m.ready.empty();
}

void migrate_window() {
  Transport& tp = rt.tp;
  PageTable& pt = rt.pages;
  Migration& m = rt.mig;
  static std::vector<uint32_t>& taken = *new std::vector<uint32_t>();  // never destroyed: see runtime.hpp
  static std::vector<int16_t>& from = *new std::vector<int16_t>();    // never destroyed: see runtime.hpp
  taken.clear();
  from.clear();
  for (uint32_t p : m.ready) {
    const int h = pt.home[p];
    m.state[p] |= kDone;  // taken or refused: either way, never again
    if (h < 0 || h == rt.rank || !(pt.flags[p] & kAlloc) || !page_protocol(p).migrates) continue;  // (it may have turned eager)
    bool others = false;
    for (int w = 0; w < rank_planes() && !others; w++)
      others = (tp.load(dir_rank(p), Seg::Meta, dir_writers_off(p, w)) & ~bit_in_plane(rt.rank, w) & ~bit_in_plane(h, w)) != 0;
    if (others) continue;  // a third writer: this rank would not be the only one writing it
    const uint64_t cur = (uint64_t)h + 1, me = (uint64_t)rt.rank + 1;
    if (tp.cas(dir_rank(p), Seg::Meta, dir_off(p), cur, me | kMigrated) != cur) continue;  // shared, or moved
    LOOM_ASSERT(pt.state[p] != kRW);  // released before the window
    taken.push_back(p);
    from.push_back((int16_t)h);
  }
  // The old homes' copies are final (every diff of the interval is in
  // them): they become this rank's home copies, one get per run.
  size_t i = 0;
  while (i < taken.size()) {
    size_t j = i + 1;
    while (j < taken.size() && taken[j] == taken[j - 1] + 1 && from[j] == from[i]) j++;
    tp.get(from[i], Seg::Data, (uint64_t)taken[i] * kPage, slot(taken[i]), (j - i) * kPage);
    i = j;
  }
  for (uint32_t p : taken) {
    pt.home[p] = (int16_t)rt.rank;
    ivl_moved_in(p);  // every other rank may hold a copy: this rank's writes are named in its records
  }
  rt.st.s.migrations += taken.size();
  if (trace_on() && !taken.empty()) trace_event(Ev::Migrate, trace_now(), taken.size(), 0);
  for (int r = 0; r < rt.nranks; r++)
    if (r != rt.rank) for_runs(taken, [r](uint64_t first, uint64_t n) { notice_queue_place(r, first, kPlaceMoved, n); });
  notices_publish();  // flushes the gets' targets too: nothing is in flight past the window
  tp.flush();
}

void migrate_watch(uint64_t first, uint64_t n) {
  if (!rt.mig.state.empty()) watch_pages(first, n);
}

void migrate_moved(uint64_t first, uint64_t n, int to) {
  PageTable& pt = rt.pages;
  for (uint64_t p = first; p < first + n && p < rt.npages; p++) {
    lose_home(p);
    pt.home[p] = (int16_t)to;
  }
}

void migrate_notices_lost() {
  if (rt.mig.state.empty()) return;
  PageTable& pt = rt.pages;
  for (uint64_t p = 0; p < rt.npages; p++) {
    if (pt.home[p] < 0 || !(pt.flags[p] & kAlloc)) continue;
    const int h = dir_home(p);
    if (h == pt.home[p]) continue;
    lose_home(p);
    pt.home[p] = (int16_t)h;
  }
  watch_pages(0, rt.npages);
}

void migrate_home_write(uint64_t p) {
  if (rt.mig.state.empty() || !(rt.mig.state[p] & kWatched)) return;
  rt.mig.state[p] &= (uint8_t)~kWatched;
  rt.tp.fetch_or(dir_rank(p), Seg::Meta, dir_off(p), kShared);
}

void migrate_forget(uint64_t p) {
  if (!rt.mig.state.empty()) rt.mig.state.put(p, 0);
}

}  // namespace loom
