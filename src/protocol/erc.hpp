// Eager release consistency's per-rank state (erc.cpp has the protocol).
#pragma once
#include <cstdint>
#include <vector>

namespace loom {

struct ErcState {
  std::vector<uint32_t> home_dirty;  // home pages written (trapped) since the last release
  void init() { home_dirty.clear(); }
};

}  // namespace loom
