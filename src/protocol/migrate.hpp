// Adaptive placement: home migration at barriers (on by default; LOOM_MIGRATE).
//
// The common case it serves: one rank sets the data up (first touch makes
// it the home of everything), then every rank works on its part; each
// page's home should end up with the rank that writes it.  What it must not
// do (measured with the first design, which moved a page to any rank that
// wrote it twice): move pages several ranks keep writing, whose old home
// then pays the diffs (Barnes-Hut 2.4x, IS 2x slower).
//
// The rule: rank R takes the home of page p from H when
//   1. R wrote p in two barrier intervals (one stray write, such as a
//      boundary set once, does not move a page);
//   2. H did not write p since R's first of them: R's first release of p
//      asks H (a "watch" notice) to trap its own writes of p; H's next
//      write of p faults once and marks the directory's home word SHARED,
//      which no move overrides (H then writes in place again);
//   3. no third rank is in p's writer set.
// The move happens inside the barrier, where every rank is quiescent (all
// diffs are at the homes, nobody writes): a barrier whose ranks want to move
// pages (the barrier ORs one bit; no extra round when nobody does) runs a
// window between a raw barrier's two halves: R CASes the home word from
// H+1 to R+1 with a sticky MIGRATED mark (a page moves at most once), copies
// the now final home copy into its slot, and sends every other rank a
// "moved" notice, which each reads before leaving the barrier.  So every
// rank's cached home is current outside the window: faults and diffs go
// straight to the home, as without migration.  Only pages of protocols
// whose metadata does not live at the home move (PageProtocol::migrates).
// Thread safety: under the rank lock (threads.hpp).
#pragma once
#include <cstdint>
#include <new>
#include <vector>

#include "protocol/page_arrays.hpp"

namespace loom {

// Per page, this rank's migration facts (Migration::state).
enum MigrateFlag : uint8_t {
  kWroteOnce = 1,  // this rank released a write of the page in an earlier barrier interval
  kAskedNow = 2,   // its home was asked to watch at a release in this interval
  kDone = 4,       // never again: taken, or refused (shared, moved before, third writer)
  kWatched = 8,    // at the home: a rank asked; the home's next write marks the page shared
};

struct Migration {
  std::vector<uint32_t> candidates;  // non-home pages released since the last barrier
  std::vector<uint32_t> ready;       // pages this rank may take at this barrier
  ZeroArray<uint8_t> state;          // MigrateFlag bits (empty with migration and adaptation off)
  std::vector<std::vector<uint32_t>> asks;  // per home: pages to ask it to watch

  void init(uint64_t npages, int nranks, bool on) {
    candidates.clear();
    ready.clear();
    if (!state.assign(on ? npages : 0)) throw std::bad_alloc();
    asks.assign(on ? nranks : 0, {});
  }
};

// At a release: the non-home pages written (sorted); asks their homes to
// watch pages this rank writes for the first time (queued as notices, sent
// by the release's notices_publish).
void migrate_note_released(const std::vector<uint32_t>& pages);
// Before a barrier's synchronization: whether this rank wants a window (it
// has pages that meet the rule).
bool migrate_prepare();
// Inside a barrier, every rank quiescent: take the ready pages, tell everyone.
void migrate_window();
// Notices: another rank asks this home to watch [first, first+n); the home
// of [first, first+n) moved to `to`.
void migrate_watch(uint64_t first, uint64_t n);
void migrate_moved(uint64_t first, uint64_t n, int to);
// Notices to this rank were lost (a full ring): recheck every known home and
// watch every page this rank homes.
void migrate_notices_lost();
// A write fault on a page this rank homes.
void migrate_home_write(uint64_t page);
void migrate_forget(uint64_t page);  // the page starts a new life (allocation)

}  // namespace loom
