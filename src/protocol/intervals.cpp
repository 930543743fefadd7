// Exact lock-scoped invalidation (intervals.hpp has the design).
//
// A rank's ring, in its Meta at rt.meta.ivl: word 0 the newest record's tag,
// word 1 the run entries written so far (raised before they are written),
// word 2 the count of first fetches of this rank's home pages by others,
// then kIvlRecords slots of {tag, first run, end run, newest partial record,
// inline runs, vector timestamp[N], kIvlInline runs}, then kIvlRuns run
// entries (first page << 24 | pages) for records with more runs than fit in
// their slot.  A tag is epoch << 32 | count; a slot is zeroed before it is
// rewritten, and a reader checks the oldest tag it read once more after
// reading, so a torn or overwritten record is seen and not used.  Reading
// one record of a rank with a few runs, the common case at a lock, is one
// get and one load.
#include "protocol/intervals.hpp"

#include <algorithm>
#include <cstring>

#include "protocol/protocol.hpp"
#include "vm.hpp"

namespace loom {
namespace {

constexpr uint64_t kIvlInline = 6;  // runs kept in the slot itself
constexpr uint64_t kHead = 5;       // words before the vector timestamp
// Word 4 of a slot: its inline runs, and this bit where its rank registered
// a writer of a page in the interval (hlrc.cpp, unchanged).
constexpr uint64_t kSlotRegistered = 1ull << 62;
uint64_t slot_words() { return kHead + (uint64_t)rt.nranks + kIvlInline; }
uint64_t slot_off(uint64_t count) { return rt.meta.ivl + (8 + (count % kIvlRecords) * slot_words()) * 8; }
uint64_t runs_off() { return rt.meta.ivl + (8 + kIvlRecords * slot_words()) * 8; }
uint64_t tag_of(uint32_t epoch, uint32_t count) { return (uint64_t)epoch << 32 | count; }

void mark(uint64_t first, uint64_t n) {
  Intervals& v = rt.ivl;
  for (uint64_t p = first; p < first + n && p < rt.npages; p++) {
    if (v.state[p] & kIvlStale) continue;
    v.state[p] |= kIvlStale;
    v.marked.push_back((uint32_t)p);
  }
}

void clear_marks() {
  Intervals& v = rt.ivl;
  for (uint32_t p : v.marked) v.state[p] &= (uint8_t)~kIvlStale;
  v.marked.clear();
}

// Acquire from everyone: the writer-set rule (hlrc.cpp), after learning
// every rank's newest record, all of which that rule covers (a rank is in a
// page's writer set from its first write on, before any record names it).
void acquire_all() {
  Intervals& v = rt.ivl;
  clear_marks();
  v.scoped = false;
  static std::vector<uint64_t>& heads = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  heads.resize(rt.nranks);
  if (v.given) {
    std::copy(v.given, v.given + rt.nranks, heads.begin());
    v.given = nullptr;
  } else {
    rt.tp.load_many(
        (size_t)rt.nranks, [](size_t i, int* r, uint64_t* off) {
          *r = (int)i;
          *off = rt.meta.ivl;
        },
        heads.data());
  }
  for (int m = 0; m < rt.nranks; m++) {
    if (m == rt.rank || heads[m] >> 32 != v.epoch) continue;
    const uint32_t c = (uint32_t)heads[m];
    if (c > v.known[m]) {
      v.known[m] = c;
      v.known_grew = true;
    }
  }
}

// The pages of rank m's records a..b (this epoch) into the marks, and the
// vector timestamp of record b into *vc; false if any of them is gone or was
// made after a partial acquire.
bool read_records(int m, uint32_t a, uint32_t b, std::vector<uint32_t>* vc) {
  Intervals& v = rt.ivl;
  Transport& tp = rt.tp;
  if (a > b || b - a >= kIvlRecords) return false;
  const uint64_t S = slot_words(), count = (uint64_t)b - a + 1, at = a % kIvlRecords;
  const uint64_t n1 = std::min<uint64_t>(count, kIvlRecords - at);
  static std::vector<uint64_t>& slots = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  slots.resize(count * S);
  tp.get(m, Seg::Meta, slot_off(a), slots.data(), n1 * S * 8);
  if (n1 < count) tp.get(m, Seg::Meta, slot_off(0), slots.data() + n1 * S, (count - n1) * S * 8);
  for (uint64_t i = 0; i < count; i++)
    if (slots[i * S] != tag_of(v.epoch, a + (uint32_t)i)) return false;
  const uint64_t* last = &slots[(count - 1) * S];
  if (last[3] >= a) return false;  // a partial acquire, or a record too large, in a..b
  const uint64_t lo = slots[1], hi = last[2];
  if (hi < lo || hi - lo > kIvlRuns) return false;
  v.buf.resize(hi - lo);
  if (hi > lo) {
    const uint64_t r = lo % kIvlRuns, k1 = std::min(hi - lo, kIvlRuns - r);
    tp.get(m, Seg::Meta, runs_off() + r * 8, v.buf.data(), k1 * 8);
    if (k1 < hi - lo) tp.get(m, Seg::Meta, runs_off(), v.buf.data() + k1, (hi - lo - k1) * 8);
    // The writer raises word 1 before it overwrites entries.
    if (tp.load(m, Seg::Meta, rt.meta.ivl + 8) - lo > kIvlRuns) return false;
  }
  // The oldest slot read is the first a writer would rewrite.
  if (tp.load(m, Seg::Meta, slot_off(a)) != tag_of(v.epoch, a)) return false;
  for (uint64_t i = 0; i < count; i++) {
    const uint64_t* s = &slots[i * S];
    const uint64_t* runs = s + kHead + rt.nranks;
    if (s[4] & kSlotRegistered) v.acquired_regs = true;
    for (uint64_t k = 0; k < std::min(s[4] & ~kSlotRegistered, kIvlInline); k++) mark(runs[k] >> 24, runs[k] & 0xffffff);
  }
  for (uint64_t e : v.buf) mark(e >> 24, e & 0xffffff);
  if (vc)
    for (int q = 0; q < rt.nranks; q++) (*vc)[q] = (uint32_t)last[kHead + q];
  return true;
}

// Acquire from record c of rank j (c > what this rank knows of j): false
// if it cannot be done exactly.
bool acquire_from(int j, uint32_t c) {
  Intervals& v = rt.ivl;
  static std::vector<uint32_t>& vc = *new std::vector<uint32_t>();  // never destroyed: see runtime.hpp
  vc.resize(rt.nranks);
  if (!read_records(j, v.known[j] + 1, c, &vc)) return false;
  v.known[j] = c;
  v.known_grew = true;
  for (int m = 0; m < rt.nranks; m++) {
    if (m == rt.rank || m == j || vc[m] <= v.known[m]) continue;
    if (!read_records(m, v.known[m] + 1, vc[m], nullptr)) return false;
    v.known[m] = vc[m];
  }
  return true;
}

// A home page written since the last record that another rank fetched:
// named in this record and back to read-only (a trap), so that its next
// write is seen.  Or named in every record until the next barrier, without
// traps: in the first kIvlEarly records of an epoch (a rank that releases a
// lock once or twice between barriers would otherwise trap, at each of those
// releases, every page it writes in place between the barriers: 3-D FFT
// took 5,000 faults for 6 locks), and once the page trapped kIvlTraps times
// in the epoch: on one host a holder refetches it for ~1 us where a trap
// costs ~5; across two emulated hosts Barnes-Hut's homes trapped 20,000
// times per rank, and its run took 1.5x the writer-set rule's, while naming
// those pages instead cost it no more refetches than that rule.
void name_written(uint32_t p, bool early, std::vector<uint32_t>* trap) {
  Intervals& v = rt.ivl;
  v.pending.push_back(p);
  if (early) {
    v.state[p] |= kIvlAlways;
    v.always.push_back(p);
    return;
  }
  uint16_t& t = v.trap[p];
  const uint16_t traps = (t & 0xff) == (v.epoch & 0xff) ? (uint16_t)std::min(255, (t >> 8) + 1) : 1;
  t = (uint16_t)(traps << 8 | (v.epoch & 0xff));
  if (traps >= kIvlTraps) {
    v.state[p] |= kIvlAlways;
    v.always.push_back(p);
  } else {
    v.state[p] &= (uint8_t)~kIvlHomeRw;
    trap->push_back(p);
  }
}

bool home_rw_page(uint32_t p) {
  const PageTable& pt = rt.pages;
  if (pt.home[p] == rt.rank && pt.mode[p] == LOOM_PROTOCOL_HLRC && pt.state[p] == kRW) return true;
  rt.ivl.state[p] &= (uint8_t)~(kIvlHomeRw | kIvlAlways);
  return false;
}

// The home pages this record names.
void collect_home_writes() {
  Intervals& v = rt.ivl;
  PageTable& pt = rt.pages;
  if (v.home_rw.empty() && v.flagged_rw.empty() && v.always.empty() && v.protected_rw.empty()) return;
  // Written, then made read-only by another part of the protocol before
  // this record: named (the loops below drop such pages, no longer
  // writable, from their lists).  Another rank may have fetched the page
  // before the write: without this, its copy would stay stale.
  for (uint32_t p : v.protected_rw)
    if (pt.home[p] == rt.rank && pt.mode[p] == LOOM_PROTOCOL_HLRC) v.pending.push_back(p);
  v.protected_rw.clear();
  // A fetcher sets its bit in the page's copy-set word, then raises this
  // rank's flag count, then reads the page; this rank wrote the page, then
  // reads the count: with a full fence on both sides one sees the other.
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  const uint64_t g = rt.tp.load(rt.rank, Seg::Meta, rt.meta.ivl + 16);
  static std::vector<uint32_t>& trap = *new std::vector<uint32_t>();  // never destroyed: see runtime.hpp
  trap.clear();
  const bool early = v.count < kIvlEarly;  // the record made now is one of the epoch's first
  for (uint32_t p : v.flagged_rw)
    if (home_rw_page(p)) name_written(p, early, &trap);
  v.flagged_rw.clear();
  size_t kept = 0;
  for (uint32_t p : v.always)
    if (home_rw_page(p)) {
      v.pending.push_back(p);
      if (v.count == kIvlEarly && (v.trap[p] & 0xff) != (v.epoch & 0xff)) {  // named early: trapped from now on
        v.state[p] &= (uint8_t)~(kIvlAlways | kIvlHomeRw);
        trap.push_back(p);
      } else {
        v.always[kept++] = p;
      }
    }
  v.always.resize(kept);
  // Pages written in place that no rank had fetched when last looked at:
  // those written since the last record are looked at now, the others
  // again only when some rank fetched a page for the first time since.
  const size_t from = g != v.flags_seen ? 0 : std::min(v.home_rw_checked, v.home_rw.size());
  v.flags_seen = g;
  if (from < v.home_rw.size()) {
    kept = from;
    for (size_t i = from; i < v.home_rw.size(); i++)
      if (home_rw_page(v.home_rw[i])) v.home_rw[kept++] = v.home_rw[i];
    v.home_rw.resize(kept);
    const size_t n = kept - from;
    // The copy-sets, plane by plane: sets[w * n + i] is plane w of page i's.
    const int W = rank_planes();
    static std::vector<uint64_t>& sets = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
    sets.resize(n * (size_t)W);
    static size_t s_from, s_n;
    s_from = from;
    s_n = n;
    if (rt.tp.all_direct()) {
      if (n)
        rt.tp.load_many(
            n * (size_t)W, [](size_t k, int* r, uint64_t* off) {
              *r = rt.rank;
              *off = cs_off(rt.ivl.home_rw[s_from + k % s_n], (int)(k / s_n));
            },
            sets.data());
    } else if (n) {
      // Through MPI (the atomicity rule): one get per run of pages, not one
      // operation per page.  The words only gain bits, so a get that races
      // with an OR reads each byte old or new, and a bit set before it is seen.
      std::sort(v.home_rw.begin() + (ptrdiff_t)from, v.home_rw.end());
      static std::vector<uint32_t>& part = *new std::vector<uint32_t>();  // never destroyed: see runtime.hpp
      part.assign(v.home_rw.begin() + (ptrdiff_t)from, v.home_rw.end());
      for (int w = 0; w < W; w++) {
        size_t i = 0;
        for_runs(part, [&](uint64_t first, uint64_t k) {
          rt.tp.get(rt.rank, Seg::Meta, cs_off(first, w), &sets[(size_t)w * n + i], k * 8);
          i += k;
        });
      }
    }
    kept = from;
    for (size_t i = 0; i < n; i++) {
      const uint32_t p = v.home_rw[from + i];
      bool fetched = false;
      for (int w = 0; w < W && !fetched; w++) fetched = (sets[(size_t)w * n + i] & ~bit_in_plane(rt.rank, w)) != 0;
      if (fetched) {
        v.state[p] |= kIvlFetched;
        name_written(p, early, &trap);
        if (v.state[p] & kIvlAlways) continue;  // listed on always
      } else {
        v.home_rw[kept++] = p;
      }
    }
    v.home_rw.resize(kept);
  }
  v.home_rw_checked = v.home_rw.size();
  if (trap.empty()) return;
  std::sort(trap.begin(), trap.end());
  for_runs(trap, [&](uint64_t first, uint64_t n) {
    vm_protect(first, n, kRO);
    std::memset(&pt.state[first], kRO, n);
  });
}

}  // namespace

uint64_t ivl_meta_bytes(int nranks) { return (8 + kIvlRecords * (kHead + (uint64_t)nranks + kIvlInline) + kIvlRuns) * 8; }

bool ivl_fetch_joins(int h) { return rt.ivl.on && h != rt.rank && rt.ivl.locks_seen; }

void ivl_before_fetch(int h, uint64_t first, uint64_t n) {
  Intervals& v = rt.ivl;
  // Before this rank's first lock acquire its copies need no tracking: a
  // program that synchronizes by barriers alone pays no join (across hosts,
  // a round trip per first fetch).  An untracked copy is judged by the
  // writer sets at a lock's acquire too.
  if (!v.on || h == rt.rank || !v.locks_seen) return;
  bool all = true;
  for (uint64_t q = first; q < first + n; q++) all &= (v.state[q] & kIvlFlagged) != 0;
  if (all) return;
  // Complete at the home before the get (or_range returns once applied).
  // A fault's window is at most 1024 pages; a refresh may be longer.
  // The home looks at its unfetched pages again when its count moves: the
  // count is raised in the same request, after the ORs.
  for (uint64_t at = first; at < first + n; at += 1024) {
    const uint64_t k = std::min<uint64_t>(1024, first + n - at);
    rt.tp.or_range(h, Seg::Meta, cs_off(at, my_plane()), k, my_bit(), nullptr, rt.meta.ivl + 16);
  }
  for (uint64_t q = first; q < first + n; q++) v.state[q] |= kIvlFlagged;
}

void ivl_home_protected(uint64_t p) {
  Intervals& v = rt.ivl;
  if (v.on && (v.state[p] & kIvlHomeRw)) v.protected_rw.push_back((uint32_t)p);
}

void ivl_home_write(uint64_t p) {
  Intervals& v = rt.ivl;
  if (!v.on || (v.state[p] & kIvlHomeRw)) return;
  v.state[p] |= kIvlHomeRw;
  (v.state[p] & kIvlFetched ? v.flagged_rw : v.home_rw).push_back((uint32_t)p);
}

void ivl_written(const std::vector<uint32_t>& pages) {
  if (rt.ivl.on) rt.ivl.pending.insert(rt.ivl.pending.end(), pages.begin(), pages.end());
}

void ivl_atomic(uint64_t p) {
  if (rt.ivl.on) rt.ivl.pending.push_back((uint32_t)p);
}

bool ivl_scoped() { return rt.ivl.scoped; }
bool ivl_stale(uint64_t p) { return (rt.ivl.state[p] & kIvlStale) != 0; }
bool ivl_tracked(uint64_t p) { return (rt.ivl.state[p] & kIvlFlagged) != 0; }
bool ivl_no_registrations() { return rt.ivl.scoped && !rt.ivl.acquired_regs; }

void ivl_record() {
  Intervals& v = rt.ivl;
  if (!v.on) return;
  if (v.in_barrier) {  // the barrier's acquire covers this interval
    v.pending.clear();
    v.protected_rw.clear();
    v.registered = false;  // (its agreement tells of it: api.cpp, barrier)
    return;
  }
  collect_home_writes();
  // Knowledge alone is passed on only where a third rank may need it: with
  // two ranks the other one knows its own intervals.
  // A registration makes a record even where nothing else would: a home
  // page written in place is named only where another rank fetched it
  // tracked, and a copy fetched untracked goes by the writer set.
  if (v.pending.empty() && !v.registered && ((!v.known_grew && !v.partial) || rt.nranks == 2)) return;
  std::vector<uint32_t>& pg = v.pending;
  std::sort(pg.begin(), pg.end());
  pg.erase(std::unique(pg.begin(), pg.end()), pg.end());
  static std::vector<uint64_t>& runs = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  runs.clear();
  for_runs(pg, [](uint64_t first, uint64_t n) {
    for (; n;) {
      const uint64_t k = std::min<uint64_t>(n, 0xffffff);
      runs.push_back(first << 24 | k);
      first += k;
      n -= k;
    }
  });
  pg.clear();
  const uint32_t c = ++v.count;
  v.known[rt.rank] = c;
  if (v.partial || runs.size() > kIvlRuns) {
    v.last_partial = c;  // acquiring through this record falls back to the writer-set rule
    runs.clear();
  }
  const bool inline_runs = runs.size() <= kIvlInline;
  // Through the transport, as other ranks read it (on MPI, this rank's own
  // words too: the atomicity rule).
  Transport& tp = rt.tp;
  tp.store(rt.rank, Seg::Meta, slot_off(c), 0);
  const uint64_t lo = v.runs_written, hi = inline_runs ? lo : lo + runs.size();
  if (!inline_runs) {
    v.runs_written = hi;
    tp.store(rt.rank, Seg::Meta, rt.meta.ivl + 8, hi);  // before the entries are overwritten
    const uint64_t at = lo % kIvlRuns, n1 = std::min<uint64_t>(runs.size(), kIvlRuns - at);
    tp.put(rt.rank, Seg::Meta, runs_off() + at * 8, runs.data(), n1 * 8);
    if (n1 < runs.size()) tp.put(rt.rank, Seg::Meta, runs_off(), runs.data() + n1, (runs.size() - n1) * 8);
  }
  static std::vector<uint64_t>& body = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  body.assign({lo, hi, v.last_partial, (inline_runs ? runs.size() : 0) | (v.registered ? kSlotRegistered : 0)});
  body.insert(body.end(), v.known.begin(), v.known.end());
  if (inline_runs) body.insert(body.end(), runs.begin(), runs.end());
  tp.put(rt.rank, Seg::Meta, slot_off(c) + 8, body.data(), body.size() * 8);
  tp.flush();
  tp.store(rt.rank, Seg::Meta, slot_off(c), tag_of(v.epoch, c));
  tp.store(rt.rank, Seg::Meta, rt.meta.ivl, tag_of(v.epoch, c));
  v.known_grew = v.partial = v.registered = false;
}

uint64_t ivl_release_info() {
  const Intervals& v = rt.ivl;
  if (!v.on || v.count == 0) return 0;
  return (uint64_t)(v.epoch & 0xff) << 40 | (uint64_t)(rt.rank + 1) << 24 | std::min(v.count, kIvlCountLost);
}

uint64_t ivl_head() { return rt.ivl.on ? rt.tp.load(rt.rank, Seg::Meta, rt.meta.ivl) : 0; }
void ivl_heads_given(const uint64_t* heads) {
  if (rt.ivl.on) rt.ivl.given = heads;
}
void ivl_knowledge(uint64_t* out) {
  const Intervals& v = rt.ivl;
  for (int m = 0; m < rt.nranks; m++) out[m] = m == rt.rank ? ivl_head() : tag_of(v.epoch, v.known[m]);
}

void ivl_begin_acquire(IvlAcquire kind, uint64_t info) {
  Intervals& v = rt.ivl;
  if (!v.on) return;
  clear_marks();
  v.scoped = false;
  v.acquired_regs = false;
  if (kind == IvlAcquire::Barrier) {
    // A new epoch: every record so far is covered by this acquire.
    v.epoch++;
    v.count = v.last_partial = 0;
    std::fill(v.known.begin(), v.known.end(), 0);
    v.known_grew = v.partial = false;
    v.pending.clear();
    v.protected_rw.clear();
    for (uint32_t p : v.always) {  // trapped again from the next record
      v.state[p] &= (uint8_t)~kIvlAlways;
      v.flagged_rw.push_back(p);
    }
    v.always.clear();
    rt.tp.store(rt.rank, Seg::Meta, rt.meta.ivl, tag_of(v.epoch, 0));
    return;
  }
  if (kind == IvlAcquire::All) {
    acquire_all();
    return;
  }
  rt.st.s.scoped_acquires++;
  v.scoped = true;
  v.locks_seen = true;
  const int j = (int)((info >> 24) & 0xffff) - 1;
  const uint32_t c = (uint32_t)(info & 0xffffff);
  if (info == 0 || j < 0 || j == rt.rank || ((info >> 40) & 0xff) != (v.epoch & 0xff)) return;
  if (c != kIvlCountLost && c <= v.known[j])
    return;  // nothing this rank has not acquired (a release before the last barrier included)
  if (j >= rt.nranks || c == kIvlCountLost || !acquire_from(j, c)) {
    rt.st.s.scoped_fallbacks++;
    v.acquired_regs = true;
    acquire_all();
  }
}

void ivl_end_acquire() {
  Intervals& v = rt.ivl;
  if (!v.on) return;
  v.given = nullptr;
  clear_marks();
  v.scoped = false;
}

void ivl_partial_acquire() {
  if (rt.ivl.on) rt.ivl.partial = true;
}

void ivl_forget(uint64_t p) {
  if (rt.ivl.on) rt.ivl.state.put(p, rt.ivl.state[p] & (uint8_t)~(kIvlFlagged | kIvlFetched));
}

void ivl_moved_in(uint64_t p) {
  if (!rt.ivl.on) return;
  for (int w = 0; w < rank_planes(); w++) {
    const int in_plane = std::min(64, rt.nranks - 64 * w);
    const uint64_t everyone = in_plane == 64 ? ~0ull : (1ull << in_plane) - 1;
    rt.tp.fetch_or(rt.rank, Seg::Meta, cs_off(p, w), everyone & ~bit_in_plane(rt.rank, w));
  }
  rt.ivl.state[p] |= kIvlFetched;
}

}  // namespace loom
