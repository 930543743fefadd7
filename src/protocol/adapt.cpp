// Adaptive protocol per page (adapt.hpp has the rule and the switch).
#include "protocol/adapt.hpp"

#include <algorithm>
#include <cstring>

#include "protocol/protocol.hpp"
#include "vm.hpp"

namespace loom {

namespace {

bool compares(uint64_t p) {
  const PageTable& pt = rt.pages;
  return pt.dropped_at[p] && pt.mode[p] == LOOM_PROTOCOL_HLRC && (rt.adapt.false_drops[p] >> 4) < kTrueDrops;
}

void refetched(uint64_t p, bool unchanged) {
  Adaptation& a = rt.adapt;
  uint8_t& c = a.false_drops[p];
  // The acquire that dropped it, against the one that dropped it the last
  // time it was compared (mod 256): the streak counts refetches that come
  // back soon, at most kMaxGap acquires apart.
  const uint8_t d = (uint8_t)rt.pages.dropped_at[p], gap = (uint8_t)(d - a.last_drop[p]);
  a.last_drop[p] = d;
  if (!unchanged) {
    c = (uint8_t)(((c >> 4) + 1) << 4);  // the streak starts again
    return;
  }
  if (gap > kMaxGap) c &= 0xf0;  // read again only long after: the streak starts again
  if ((c & 15) + 1 < kFalseDrops) {
    c++;
    return;
  }
  c = 0xff;
  a.ready.push_back((uint32_t)p);
}

}  // namespace

uint64_t adapt_save_dropped(uint64_t first, uint64_t n) {
  if (rt.adapt.false_drops.empty()) return 0;
  uint64_t saved = 0;
  for (uint64_t i = 0; i < n; i++)
    if (compares(first + i)) {
      std::memcpy(rt.adapt.saved.data() + i * kPage, slot(first + i), kPage);
      saved++;
    }
  return saved;
}

void adapt_compare_dropped(uint64_t first, uint64_t n) {
  for (uint64_t i = 0; i < n; i++)
    if (compares(first + i))
      refetched(first + i, std::memcmp(rt.adapt.saved.data() + i * kPage, slot(first + i), kPage) == 0);
}

bool adapt_wants_window() { return !rt.adapt.ready.empty(); }

void adapt_window() {
  std::vector<uint32_t>& ready = rt.adapt.ready;
  if (ready.empty()) return;
  std::sort(ready.begin(), ready.end());
  ready.erase(std::unique(ready.begin(), ready.end()), ready.end());
  // The mark in the directory first: a rank whose ring overflowed (the
  // notice lost) finds the switch there (adapt_notices_lost).
  for (uint32_t p : ready) rt.tp.fetch_or(dir_rank(p), Seg::Meta, dir_off(p), kEager);
  for (int r = 0; r < rt.nranks; r++)
    if (r != rt.rank) for_runs(ready, [r](uint64_t first, uint64_t n) { notice_queue_place(r, first, kPlaceEager, n); });
  notices_publish();
}

void adapt_apply_own() {
  std::vector<uint32_t>& ready = rt.adapt.ready;
  for_runs(ready, [](uint64_t first, uint64_t n) { adapt_switch(first, n); });
  ready.clear();
}

void adapt_switch(uint64_t first, uint64_t n) {
  PageTable& pt = rt.pages;
  for (uint64_t p = first; p < first + n && p < rt.npages; p++) {
    if (!(pt.flags[p] & kAlloc) || pt.mode[p] != LOOM_PROTOCOL_HLRC) continue;  // freed since, or switched
    pt.mode[p] = LOOM_PROTOCOL_ERC_INVALIDATE;
    pt.flags[p] &= (uint8_t)~(kOtherWritten | kIWriter | kInstalled | kUntracked | kHomeDirty);
    if (!rt.adapt.false_drops.empty()) rt.adapt.false_drops[p] = 0xff;
    proto_forget_hints(p);  // a prefetched copy would not be in the copy-set
    if (pt.home[p] == rt.rank) {
      // Untracked (written in place, erc.cpp) if nobody holds a copy yet;
      // a rank that left the barrier first may have joined already (its
      // copy is tracked: the home's writes are trapped from now on).
      if (!erc_go_untracked(p, 0) && pt.state[p] == kRW) {
        vm_protect(p, 1, kRO);
        pt.state[p] = kRO;
      }
    } else if (pt.state[p] != kNone) {
      LOOM_ASSERT(pt.state[p] != kRW);  // released before the window
      vm_protect(p, 1, kNone);
      pt.state[p] = kNone;  // unlisted by the next acquire
    }
    if (pt.home[p] == rt.rank) rt.st.s.switched++;
  }
}

void adapt_notices_lost() {
  static std::vector<uint32_t>& lazy = *new std::vector<uint32_t>();  // never destroyed: see runtime.hpp
  static std::vector<uint64_t>& words = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  lazy.clear();
  const PageTable& pt = rt.pages;
  for (uint64_t p = 0; p < rt.npages; p++)
    if ((pt.flags[p] & kAlloc) && pt.mode[p] == LOOM_PROTOCOL_HLRC) lazy.push_back((uint32_t)p);
  if (lazy.empty()) return;
  words.resize(lazy.size());
  rt.tp.load_many(
      lazy.size(), [](size_t i, int* r, uint64_t* off) {
        *r = (int)dir_rank(lazy[i]);
        *off = dir_off(lazy[i]);
      },
      words.data());
  for (size_t i = 0; i < lazy.size(); i++)
    if (words[i] & kEager) adapt_switch(lazy[i], 1);
}

void adapt_forget(uint64_t p) {
  if (!rt.adapt.false_drops.empty()) rt.adapt.false_drops.put(p, 0);
}

void adapt_count_modes(uint64_t* lazy, uint64_t* eager) {
  const PageTable& pt = rt.pages;
  *lazy = *eager = 0;
  for (uint64_t p = 0; p < rt.npages; p++) {
    if (pt.home[p] != rt.rank || !(pt.flags[p] & kAlloc)) continue;
    if (pt.mode[p] == LOOM_PROTOCOL_HLRC) ++*lazy;
    else ++*eager;
  }
}

}  // namespace loom
