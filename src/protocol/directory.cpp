// Homes and the directory (directory.hpp has the layout).
#include "protocol/directory.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "protocol/protocol.hpp"
#include "trace.hpp"

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

// First touch in address order where some rank is not mapped.  A claim is
// a load and a compare-and-swap of the page's entry, and under HLRC the
// first write ORs this rank's bit into its writer set: three round trips
// where the entry's rank (p mod N) is on another host, each waiting for
// that host's protocol thread (51-64 us a page at 2 hosts x 1).  A rank
// whose first touch of p follows its own claim of p - 1 (a setup loop)
// claims the rest of p's unit at once instead (a rank sharing pages on one
// host claims its unit at any first touch: core.cpp, share_claim_unit): the unit's entries are
// already loaded (with the previous unit's claim) or loaded now, the
// unclaimed pages' slots are zeroed, and one batch (Transport::words)
// carries their compare-and-swaps, at a write fault their writer-set ORs,
// and the load of the next unit's entries: one round trip a unit.  The
// unit stops at the first page another rank holds, that is not a fresh
// page of p's kind, or that starts another block.  Its pages are this
// rank's even if another rank touches one first: at most LOOM_UNIT_PAGES -
// 1 pages past where this rank's touches end.
// (Runs that grew to 8 units took whole column blocks of Linpack's
// block-cyclic matrix from the rank that first-touched them next: 335-1302
// migrations a run; and one that went on into the next block took
// Barnes-Hut's root cells.)

// Where [lo, hi) ends as a unit claim: the contiguous pages from lo that
// are allocated like lo, not cached, with no home known, served by lo's
// protocol and not the start of another block.
uint64_t claim_end(uint64_t lo, uint64_t hi) {
  const PageTable& pt = rt.pages;
  const uint8_t kind = pt.flags[lo] & (kAlloc | kSingle);
  uint64_t end = lo;
  while (end < hi && pt.state[end] == kNone && pt.home[end] < 0 && (pt.flags[end] & (kAlloc | kSingle)) == kind &&
         pt.mode[end] == pt.mode[lo] && (end == lo || !pt.starts_block(end)))
    end++;
  return end;
}

uint64_t g_first;  // the words' pages from g_first (claim_unit, under the rank lock)
void home_word(size_t i, int* r, uint64_t* off) {
  *r = (int)dir_rank(g_first + i);
  *off = dir_off(g_first + i);
}
void writer_word(size_t i, int* r, uint64_t* off) {
  *r = (int)dir_rank(g_first + i);
  *off = dir_writers_off(g_first + i, my_plane());
}
uint64_t g_next;
void next_word(size_t i, int* r, uint64_t* off) {
  *r = (int)dir_rank(g_next + i);
  *off = dir_off(g_next + i);
}

// The runs a read fault's claim opened read-only, unregistered, since the
// last acquire or allocation: a program that reads a fresh array whole
// before it writes it (a first pass finds it zero) writes the first run
// long after the last was claimed.  Kept in order of their first page
// (claims come in address order: appended).
bool read_runs_current() {
  const PageTable& pt = rt.pages;
  return pt.ro_gen == pt.alloc_gen && pt.ro_acq == pt.acquires;
}

void note_read_run(uint64_t first, uint64_t n) {
  PageTable& pt = rt.pages;
  if (!read_runs_current()) {
    pt.ro_runs.clear();
    pt.ro_gen = pt.alloc_gen, pt.ro_acq = pt.acquires;
  }
  auto& v = pt.ro_runs;
  size_t at = v.size();
  while (at >= 2 && v[at - 2] > first) at -= 2;  // (out of order: rare, and a short walk back)
  const uint64_t run[2] = {first, n};
  v.insert(v.begin() + (ptrdiff_t)at, run, run + 2);
}

// The claim of p's unit from p; -2 where it does not apply (the caller
// claims p alone).
int claim_unit(uint64_t p, bool write) {
  // Scratch of the fault path (under the rank lock), never destroyed: see
  // runtime.hpp.
  static std::vector<uint64_t>& got = *new std::vector<uint64_t>();
  static std::vector<uint64_t>& swapped = *new std::vector<uint64_t>();
  static std::vector<uint64_t>& ored = *new std::vector<uint64_t>();
  static std::vector<uint64_t>& next = *new std::vector<uint64_t>();
  PageTable& pt = rt.pages;
  const uint64_t unit = rt.cfg.unit_pages, hi = std::min(p - p % unit + unit, rt.npages);
  const uint64_t end = claim_end(p, hi);
  if (end == p) return -2;
  g_first = p;
  if (pt.ahead_gen == pt.alloc_gen && pt.ahead_first <= p && end <= pt.ahead_first + pt.ahead.size()) {
    got.assign(pt.ahead.begin() + (ptrdiff_t)(p - pt.ahead_first), pt.ahead.begin() + (ptrdiff_t)(end - pt.ahead_first));
  } else {
    rt.st.s.home_lookups++;
    got.resize(end - p);
    rt.tp.load_many(end - p, home_word, got.data());
  }
  pt.ahead_gen = ~0u;
  // Claimable: the pages up to the first entry that names a rank (that
  // one, and what follows, the usual way: its word may be stale).
  uint64_t n = 0;
  while (n < end - p && got[n] == 0) n++;
  if (n == 0) return -2;
  // Zeroed before they are offered (no page of the unit is cached here).
  std::memset(slot(p), 0, n * kPage);
  g_next = hi;
  const uint64_t nn = hi < rt.npages && (pt.flags[hi] & kAlloc) ? std::min(hi + unit, rt.npages) - hi : 0;
  const bool reg = write && page_protocol(p).writer_sets;
  swapped.resize(n);
  ored.resize(n);
  next.resize(nn);
  const WordGroup g[3] = {{WordOp::Cas, n, home_word, 0, (uint64_t)rt.rank + 1, swapped.data()},
                          {WordOp::Load, nn, next_word, 0, 0, next.data()},
                          {WordOp::Or, reg ? n : 0, writer_word, my_bit(), 0, ored.data()}};
  rt.st.s.home_lookups++;
  rt.tp.words(g, 3);
  for (uint64_t i = 0; i < n; i++) {
    const int h = home_in_word(swapped[i]);
    pt.home[p + i] = (int16_t)(h >= 0 ? h : rt.rank);
    if (reg) note_writer(p + i, ored[i]);
  }
  // The claim opens the run from p it won at once (core.cpp, make_writable
  // and make_readable): a rank that sets its data up in address order
  // touches them next, and a fault a page cost it more than the claim's
  // round trip did.  A write fault's, registered above, read-write; a read
  // fault's read-only, remembered so that a write to one registers the
  // rest of the run with it (proto_register_run).  Not a write fault's
  // without registration (ERC traps each home write), and not while the
  // trace is on: its fault events stay one a page.
  pt.opened_first = p;
  pt.opened_n = 0;
  if ((reg || !write) && !trace_on())
    while (pt.opened_n < n && pt.home[p + pt.opened_n] == rt.rank) pt.opened_n++;
  if (!write && pt.opened_n) note_read_run(p, pt.opened_n);
  pt.ahead.assign(next.begin(), next.end());
  pt.ahead_first = hi;
  pt.ahead_gen = pt.alloc_gen;
  return pt.home[p];
}

}  // namespace

bool proto_claim_ready(uint64_t p) {
  const PageTable& pt = rt.pages;
  return p > 0 && pt.home[p - 1] == rt.rank && !rt.tp.all_direct() && pt.ahead_gen == pt.alloc_gen &&
         pt.ahead_first <= p && p < pt.ahead_first + pt.ahead.size() && pt.ahead[p - pt.ahead_first] == 0;
}

uint64_t proto_register_run(uint64_t p) {
  static std::vector<uint64_t>& ored = *new std::vector<uint64_t>();  // (fault path scratch: see runtime.hpp)
  PageTable& pt = rt.pages;
  if (pt.ro_runs.empty() || !read_runs_current() || !page_protocol(p).writer_sets || trace_on()) return 0;
  // The run that holds p: the last whose first page is at most p.
  auto& v = pt.ro_runs;
  size_t lo = 0, hi = v.size() / 2;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (v[2 * mid] <= p) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0 || p >= v[2 * (lo - 1)] + v[2 * (lo - 1) + 1]) return 0;
  uint64_t& n = v[2 * (lo - 1) + 1];
  const uint64_t lim = v[2 * (lo - 1)] + n;
  uint64_t end = p;
  while (end < lim && pt.state[end] == kRO && pt.home[end] == rt.rank && !(pt.flags[end] & kIWriter) &&
         pt.mode[end] == pt.mode[p])
    end++;
  n = p - v[2 * (lo - 1)];  // (pages before p are left to their own writes)
  if (end - p < 2) return 0;
  g_first = p;
  ored.resize(end - p);
  const WordGroup g = {WordOp::Or, end - p, writer_word, my_bit(), 0, ored.data()};
  rt.tp.words(&g, 1);
  for (uint64_t i = 0; i < end - p; i++) note_writer(p + i, ored[i]);
  return end - p;
}

int proto_home(uint64_t p, bool claim, bool write) {
  int h = rt.pages.home[p];
  // A known home is current: a page moves only inside a barrier, and every
  // rank hears of it before leaving (migrate.hpp).
  if (h >= 0) return h;
  if (claim && p > 0 && rt.pages.home[p - 1] == rt.rank && !rt.tp.all_direct()) {
    h = claim_unit(p, write);
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
  // Each entry whole: the home word and the writer set's planes, in the
  // same messages.  A writer set only grows until the writers are
  // forgotten (proto_forget_writers clears the marks with it), so one that
  // names another rank now still will at this rank's next acquire, which
  // then drops the copy without loading the set again: that load waits
  // for the entry's rank, often computing on another host (LU across 2
  // emulated hosts: the acquire that ends the barrier before the interior
  // updates, 0.4-0.55 ms, for the diagonal block's 8 pages).
  static size_t words;
  words = 1 + (size_t)rank_planes();
  got.resize(want.size() * words);
  rt.tp.load_many(
      want.size() * words,
      [](size_t k, int* r, uint64_t* off) {
        const uint64_t q = want[k / words];
        const size_t w = k % words;
        *r = (int)dir_rank(q);
        *off = w == 0 ? dir_off(q) : dir_writers_off(q, (int)w - 1);
      },
      got.data());
  for (size_t i = 0; i < want.size(); i++) {
    const uint64_t q = want[i];
    const int h = home_in_word(got[i * words]);
    if (h < 0) continue;
    pt.home[q] = (int16_t)h;
    if (h != rt.rank && page_protocol(q).writer_sets && names_other(&got[i * words + 1], rt.rank))
      pt.flags[q] |= kOtherWritten;
  }
}

}  // namespace

void proto_learn_homes(uint64_t lo, uint64_t hi, uint64_t at_least) { learn_homes(&lo, &hi, 1, at_least); }

void proto_learn_homes_of(const uint64_t* lo, const uint64_t* hi, size_t n) { learn_homes(lo, hi, n, 1); }

bool proto_claim_zeroed(uint64_t p) {
  uint64_t v = rt.tp.cas(dir_rank(p), Seg::Meta, dir_off(p), 0, (uint64_t)rt.rank + 1) & ~kHomeMarks;
  if (v == 0) v = (uint64_t)rt.rank + 1;
  rt.pages.home[p] = (int16_t)(v - 1);
  return v - 1 == (uint64_t)rt.rank;
}

}  // namespace loom
