// Home migration (LOOM_MIGRATE=1), at barriers only.  Between the release
// and the acquire of a barrier every rank is quiescent (all diffs are at the
// homes, nobody writes), so a page homed elsewhere that this rank wrote in
// kMigrateAfter intervals can change home safely: CAS the directory's home
// word to this rank with a sticky MIGRATED mark (a page moves at most once,
// so pages two ranks keep writing do not ping-pong), copy the now final home
// copy into this rank's slot, and post the page to the old home's "lost
// homes" mailbox, which it reads at the barrier's acquire.  A second raw
// barrier closes the window (api.cpp).  With migration on, a rank re-reads
// the directory before fetching a page instead of trusting a home it cached
// (the forwarding rule, directory.cpp).  Only pages of protocols whose
// metadata does not live at the home move (PageProtocol::migrates).
// Thread safety: the application thread only.
#pragma once
#include <cstdint>
#include <vector>

namespace loom {

// One stray write, such as a boundary set once, must not move a page.
constexpr uint8_t kMigrateAfter = 2;  // barrier intervals a rank writes a page before it takes the home
constexpr uint64_t kLostMax = 4096;   // lost-home notices a mailbox holds before the owner rechecks all

struct Migration {
  uint64_t lost_consumed = 0;            // lost-home notices processed
  std::vector<uint32_t> candidates;      // pages released since the last barrier
  std::vector<uint8_t> count;            // barrier intervals in which this rank wrote the page

  void init(uint64_t npages, bool on) {
    lost_consumed = 0;
    candidates.clear();
    count.assign(on ? npages : 0, 0);
  }
};

void migrate_note_released(const std::vector<uint32_t>& pages);  // at a release
void migrate_window();        // inside a barrier, every rank quiescent
void migrate_process_lost();  // at an acquire: homes other ranks took from this one
// With migration, a cached home may be stale (the page moved at a barrier):
// the directory says where this rank's writes must go.  Returns true (and
// updates *home) when the home changed.
bool migrate_refresh_home(uint64_t page, int* home);
void migrate_forget(uint64_t page);  // the page starts a new life (allocation)

}  // namespace loom
