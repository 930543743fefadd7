// Eager release consistency's per-rank state (erc.cpp has the protocol).
#pragma once
#include <cstdint>
#include <vector>

namespace loom {

// A home page nobody else holds goes untracked (written in place, its
// writes not trapped): this rank's bit set in its copy-set if the copy-set
// is still `seen`.  False, with nothing changed, if a rank joined since, or
// if there are more than 64 ranks (erc.cpp).
bool erc_go_untracked(uint64_t page, uint64_t seen);
// This rank holds no copy of page (not its home) and takes itself out of
// the page's copy-set at the home if no other rank of its plane is there
// (one CAS): notices for it stop, and the home may write the page
// untracked.  Its next fetch joins again before it reads (before_fetch).
void erc_leave(uint64_t page);

struct ErcState {
  std::vector<uint32_t> home_dirty;  // home pages written (trapped) since the last release
  void init() { home_dirty.clear(); }
};

}  // namespace loom
