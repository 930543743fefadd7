// Homes and the directory (directory.hpp has the layout).
#include "protocol/directory.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "protocol/protocol.hpp"

namespace loom {
namespace {

int home_in_word(uint64_t v) { return (v & ~kHomeMarks) == 0 ? -1 : (int)((v & ~kHomeMarks) - 1); }

}  // namespace

uint64_t dir_rank(uint64_t p) { return p % (uint64_t)rt.nranks; }
uint64_t dir_entry_bytes() { return 8 * (1 + (uint64_t)rank_planes()); }
uint64_t dir_off(uint64_t p) { return rt.meta.dir + (p / (uint64_t)rt.nranks) * dir_entry_bytes(); }
uint64_t dir_writers_off(uint64_t p, int plane) { return dir_off(p) + 8 + 8 * (uint64_t)plane; }

int dir_home(uint64_t p) {
  rt.st.s.home_lookups++;
  return home_in_word(rt.tp.load(dir_rank(p), Seg::Meta, dir_off(p)));
}

namespace {

// First touch in address order where some rank is not mapped: a claim is a
// load and a compare-and-swap of the page's entry, whose rank (p mod N) is
// often on another host, where the request waits for that host's protocol
// thread.  A rank whose first touch of p follows its own claim of p - 1 (a
// setup loop) claims the unclaimed pages from p on in one batch instead: a
// load of their entries, the slots zeroed, then their compare-and-swaps
// together (Transport::cas_many).  The run stops at the first page
// another rank holds, that is not a fresh page of p's kind, or that starts
// another block (Barnes-Hut: a run from a rank's part of the bodies into
// the next block took the tree's root cells, whose writes by the other
// rank then became diffs: 1.4x the program); it is the rest of p's unit,
// twice the last run's length when p is where the last run ended, at most
// kClaimUnits units.  Pages it claims are this rank's
// even if another rank touches them first: at most the run's length past
// where the rank's touches end, and migration moves a page that another
// rank alone keeps writing (migrate.hpp).
constexpr uint64_t kClaimUnits = 8;

int claim_run(uint64_t p) {
  // Scratch of the fault path (under the rank lock), never destroyed: see
  // runtime.hpp.
  static std::vector<uint64_t>& got = *new std::vector<uint64_t>();
  static uint64_t first;
  PageTable& pt = rt.pages;
  const uint64_t unit = rt.cfg.unit_pages;
  const uint64_t len = p == pt.claim_next ? std::min(2 * pt.claim_len, kClaimUnits * unit) : unit - p % unit;
  const uint64_t hi = std::min(p + len, rt.npages);
  const uint8_t kind = pt.flags[p] & (kAlloc | kSingle);
  uint64_t end = p;
  while (end < hi && pt.state[end] == kNone && pt.home[end] < 0 && (pt.flags[end] & (kAlloc | kSingle)) == kind &&
         pt.mode[end] == pt.mode[p] && (end == p || !pt.starts_block(end)))
    end++;
  if (end == p) return -2;
  first = p;
  auto at = [](size_t i, int* r, uint64_t* off) {
    *r = (int)dir_rank(first + i);
    *off = dir_off(first + i);
  };
  rt.st.s.home_lookups++;
  got.resize(end - p);
  rt.tp.load_many(end - p, at, got.data());
  uint64_t n = 0;
  while (n < end - p && got[n] == 0) n++;
  if (n < end - p && home_in_word(got[n]) >= 0) pt.home[p + n] = (int16_t)home_in_word(got[n]);
  if (n == 0) return pt.home[p] >= 0 ? pt.home[p] : -2;
  // Zeroed before they are offered (no page of the run is cached here).
  std::memset(slot(p), 0, n * kPage);
  rt.tp.cas_many(n, at, 0, (uint64_t)rt.rank + 1, got.data());
  uint64_t won = n;
  for (uint64_t i = 0; i < n; i++) {
    const int h = home_in_word(got[i]);
    pt.home[p + i] = (int16_t)(h >= 0 ? h : rt.rank);
    if (h >= 0 && won == n) won = i;
  }
  pt.claim_first = p;
  pt.claim_next = p + won;
  pt.claim_len = len;
  return pt.home[p];
}

}  // namespace

int proto_home(uint64_t p, bool claim) {
  int h = rt.pages.home[p];
  // A known home is current: a page moves only inside a barrier, and every
  // rank hears of it before leaving (migrate.hpp).
  if (h >= 0) return h;
  if (claim && p > 0 && rt.pages.home[p - 1] == rt.rank && !rt.tp.all_direct()) {
    h = claim_run(p);
    if (h != -2) return h;
  }
  rt.st.s.home_lookups++;
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

namespace {

// Page by page, a cold window across hosts waited one round trip for every
// entry another host keeps (4 of a window's 8 at 2 ranks: ~30 us each at
// unlimited links); batched, the entries of all ranks are asked at once.
//
// A lookup that goes to another host also asks the same ranks for the
// entries of the unknown pages around the window (kLearnSpan windows,
// aligned): such a load waits for the other host, often for its protocol
// thread to get a core back, while more words in the same messages cost
// next to nothing.  (LU across two emulated hosts: a far lookup nearly
// every fault, 47-64 a rank and 6-17 ms in all, became 3-5 and 1.5-2.5
// ms; BENCHMARKS.md, "Homes learnt a span at a time".)  No rank the
// window does not ask is asked, so no message is added.
constexpr uint64_t kLearnSpan = 64;

void learn_homes(const uint64_t* lo, const uint64_t* hi, size_t n, uint64_t at_least) {
  // Scratch of the fault path (under the rank lock), never destroyed: see
  // runtime.hpp.
  static std::vector<uint64_t>& want = *new std::vector<uint64_t>();
  static std::vector<uint64_t>& got = *new std::vector<uint64_t>();
  static std::vector<uint8_t>& asked = *new std::vector<uint8_t>();
  PageTable& pt = rt.pages;
  auto unknown = [&](uint64_t q) { return pt.home[q] < 0 && (pt.flags[q] & kAlloc); };
  want.clear();
  for (size_t i = 0; i < n; i++)
    for (uint64_t q = lo[i]; q < hi[i]; q++)
      if (unknown(q)) want.push_back(q);
  if (want.empty()) return;
  const size_t window = want.size();
  const uint64_t span = rt.cfg.unit_pages * kLearnSpan, s = lo[0] / span;
  bool far = false;
  if (n == 1 && !rt.tp.all_direct())
    for (size_t i = 0; i < window && !far; i++) far = !rt.tp.is_direct((int)dir_rank(want[i]));
  if (far && pt.span_learnt.size() <= s) pt.span_learnt.resize(rt.npages / span + 1, 0);
  // Once a span between acquires: its pages that no rank had claimed stay
  // unknown, and every window's lookup would ask them again (loom_bench
  // pagefetch_sparse across hosts: 1.4x the fault; BENCHMARKS.md).
  if (far && pt.span_learnt[s] != pt.acquires + 1) {
    pt.span_learnt[s] = pt.acquires + 1;
    asked.assign((size_t)rt.nranks, 0);
    for (size_t i = 0; i < window; i++) asked[dir_rank(want[i])] = 1;
    const uint64_t slo = s * span, shi = std::min(slo + span, rt.npages);
    for (uint64_t q = slo; q < shi; q++)
      if ((q < lo[0] || q >= hi[0]) && asked[dir_rank(q)] && unknown(q)) want.push_back(q);
  }
  if (window < at_least && want.size() == window) return;
  rt.st.s.home_lookups++;
  got.resize(want.size());
  rt.tp.load_many(
      want.size(),
      [](size_t i, int* r, uint64_t* off) {
        *r = (int)dir_rank(want[i]);
        *off = dir_off(want[i]);
      },
      got.data());
  for (size_t i = 0; i < want.size(); i++) {
    const int h = home_in_word(got[i]);
    if (h >= 0) pt.home[want[i]] = (int16_t)h;
  }
}

}  // namespace

uint64_t proto_claimed_run(uint64_t p) {
  PageTable& pt = rt.pages;
  if (p != pt.claim_first || p >= pt.claim_next) return 0;
  pt.claim_first = pt.claim_next;
  return pt.claim_next - p;
}

void proto_learn_homes(uint64_t lo, uint64_t hi, uint64_t at_least) { learn_homes(&lo, &hi, 1, at_least); }

void proto_learn_homes_of(const uint64_t* lo, const uint64_t* hi, size_t n) { learn_homes(lo, hi, n, 1); }

bool proto_claim_zeroed(uint64_t p) {
  uint64_t v = rt.tp.cas(dir_rank(p), Seg::Meta, dir_off(p), 0, (uint64_t)rt.rank + 1) & ~kHomeMarks;
  if (v == 0) v = (uint64_t)rt.rank + 1;
  rt.pages.home[p] = (int16_t)(v - 1);
  return v - 1 == (uint64_t)rt.rank;
}

}  // namespace loom
