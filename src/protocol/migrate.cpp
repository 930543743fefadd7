// Home migration at barriers (migrate.hpp has the design).
//
// Measured (docs/BENCHMARKS.md, loom_bench migrate): 6.7x for a Jacobi whose
// arrays one rank initialized; no change when placement is right; Barnes-Hut
// and IS slower (shared pages move to a writer that is not the main one), so
// it is off by default.  Two designs were measured and dropped: migrating at
// the writer's release (safe only for pages nobody else ever wrote, which
// excludes the rank-0-initializes case), and moving after one interval of
// writes (a one-time boundary write stole every page of a neighbour's rows).
#include "protocol/migrate.hpp"

#include <algorithm>

#include "protocol/protocol.hpp"
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

// Inside a barrier's quiescent window: take the home of page p (which this
// rank wrote since the last barrier) unless it moved before.
bool try_migrate(uint64_t p) {
  Transport& tp = rt.tp;
  PageTable& pt = rt.pages;
  const int old_home = pt.home[p];
  if (old_home < 0 || old_home == rt.rank || !(pt.flags[p] & kAlloc) || !page_protocol(p).migrates) return false;
  const uint64_t cur = (uint64_t)old_home + 1, me = (uint64_t)rt.rank + 1;
  if (tp.cas(dir_rank(p), Seg::Meta, dir_off(p), cur, me | kMigrated) != cur) return false;
  // The old home's copy is final (every diff of the interval is in it), so
  // it becomes this rank's home copy.
  tp.get(old_home, Seg::Data, p * kPage, slot(p), kPage);
  uint64_t idx = tp.fetch_add(old_home, Seg::Meta, rt.meta.lost, 1);
  tp.store(old_home, Seg::Meta, rt.meta.lost + 8 + (idx % kLostMax) * 8, p + 1);
  LOOM_ASSERT(pt.state[p] != kRW);  // released before the window
  pt.home[p] = (int16_t)rt.rank;
  rt.st.s.migrations++;
  return true;
}

}  // namespace

void migrate_note_released(const std::vector<uint32_t>& pages) {
  if (rt.cfg.migrate)  // candidates for the next barrier's migration window
    rt.mig.candidates.insert(rt.mig.candidates.end(), pages.begin(), pages.end());
}

void migrate_process_lost() {
  if (!rt.cfg.migrate) return;
  Transport& tp = rt.tp;
  Migration& m = rt.mig;
  const uint64_t count = tp.load(rt.rank, Seg::Meta, rt.meta.lost);
  if (count - m.lost_consumed > kLostMax) {
    // The mailbox overflowed: check every page this rank homes.
    for (uint64_t p = 0; p < rt.npages; p++)
      if (rt.pages.home[p] == rt.rank && dir_home(p) != rt.rank) lose_home(p);
    m.lost_consumed = count;
    return;
  }
  while (m.lost_consumed < count) {
    const uint64_t off = rt.meta.lost + 8 + (m.lost_consumed % kLostMax) * 8;
    uint64_t e = tp.load(rt.rank, Seg::Meta, off);
    if (e == 0) break;  // announced, not written yet: the next acquire takes it
    tp.store(rt.rank, Seg::Meta, off, 0);
    lose_home(e - 1);
    m.lost_consumed++;
  }
}

bool migrate_refresh_home(uint64_t p, int* h) {
  if (!rt.cfg.migrate) return false;
  int now_home = dir_home(p);
  if (now_home == *h) return false;
  if (*h == rt.rank) lose_home(p);
  rt.pages.home[p] = (int16_t)now_home;
  *h = now_home;
  return true;
}

void migrate_window() {
  if (!rt.cfg.migrate) return;
  std::vector<uint32_t>& now = rt.mig.candidates;
  std::sort(now.begin(), now.end());
  now.erase(std::unique(now.begin(), now.end()), now.end());
  // A page moves once this rank has written it in kMigrateAfter barrier
  // intervals (not necessarily in a row: double-buffered arrays are written
  // every other interval), so that one stray write, such as a boundary set
  // once or an initialization, does not take a home from its real writer.
  std::vector<uint8_t>& count = rt.mig.count;
  for (uint32_t p : now)
    if (count[p] < kMigrateAfter && ++count[p] == kMigrateAfter) try_migrate(p);
  now.clear();
  rt.tp.flush();
}

void migrate_forget(uint64_t p) {
  if (!rt.mig.count.empty()) rt.mig.count[p] = 0;
}

}  // namespace loom
