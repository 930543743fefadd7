// Homes and the directory (directory.hpp has the layout).
#include "protocol/directory.hpp"

#include <cstring>

#include "protocol/protocol.hpp"

namespace loom {
namespace {

int home_in_word(uint64_t v) { return (v & ~kHomeMarks) == 0 ? -1 : (int)((v & ~kHomeMarks) - 1); }

}  // namespace

uint64_t dir_rank(uint64_t p) { return p % (uint64_t)rt.nranks; }
uint64_t dir_entry_bytes() { return 8 * (1 + (uint64_t)rank_planes()); }
uint64_t dir_off(uint64_t p) { return rt.meta.dir + (p / (uint64_t)rt.nranks) * dir_entry_bytes(); }
uint64_t dir_writers_off(uint64_t p, int plane) { return dir_off(p) + 8 + 8 * (uint64_t)plane; }

int dir_home(uint64_t p) { return home_in_word(rt.tp.load(dir_rank(p), Seg::Meta, dir_off(p))); }

int proto_home(uint64_t p, bool claim) {
  int h = rt.pages.home[p];
  // A known home is current: a page moves only inside a barrier, and every
  // rank hears of it before leaving (migrate.hpp).
  if (h >= 0) return h;
  uint64_t v = rt.tp.load(dir_rank(p), Seg::Meta, dir_off(p)) & ~kHomeMarks;
  if (v == 0 && claim) {
    // The slot holds nothing valid (the page is not cached here), so it can
    // be zeroed before it is offered as the home copy.
    if (rt.pages.state[p] == kNone) std::memset(slot(p), 0, kPage);
    proto_claim_zeroed(p);
    return rt.pages.home[p];
  }
  if (v == 0) return -1;
  rt.pages.home[p] = (int16_t)(v - 1);
  return (int)(v - 1);
}

bool proto_claim_zeroed(uint64_t p) {
  uint64_t v = rt.tp.cas(dir_rank(p), Seg::Meta, dir_off(p), 0, (uint64_t)rt.rank + 1) & ~kHomeMarks;
  if (v == 0) v = (uint64_t)rt.rank + 1;
  rt.pages.home[p] = (int16_t)(v - 1);
  return v - 1 == (uint64_t)rt.rank;
}

}  // namespace loom
