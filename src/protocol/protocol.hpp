// The coherence protocols: release consistency with multiple writers over
// the transport's one-sided operations.
//
// What every protocol shares is the driver, protocol/core.cpp: page states
// and the page table, the fault entry, fetch windows, twins and byte-exact
// diffs put straight into the homes, and the order of the steps of a
// release and an acquire.  What differs sits behind a table of operations,
// PageProtocol, chosen per page: a page is served by the protocol of its
// block (PageTable::mode, a loom_protocol_t, indexes kProtocolOf in
// protocols.cpp), so one program can mix protocols.
//
//   core.cpp       the driver (this header's proto_* functions)
//   hlrc.cpp       home-based lazy RC: writer sets in the directory decide
//                  which copies an acquire drops
//   erc.cpp        eager RC, invalidate and update: copy-sets at the homes,
//                  home writes trapped, notices to the holders at a release
//   directory.cpp  homes (first touch, policies) and directory entries
//   notices.cpp    notice rings between ranks (ERC, and loom_update under
//                  every protocol)
//   migrate.cpp    home migration at barriers (LOOM_MIGRATE)
//   protocols.cpp  the table: loom_protocol_t -> PageProtocol
//
// Adding a protocol: a loom_protocol_t value (include/loom/loom.h and the
// LOOM_PROTOCOL names in config.cpp), a file that defines its PageProtocol
// with every operation below filled in, and one entry in kProtocolOf.
// Thread safety: any application thread, holding the rank lock (threads.hpp);
// the fault handler takes it for proto_fault.
#pragma once
#include <cstdint>
#include <vector>

#include "protocol/directory.hpp"
#include "protocol/notices.hpp"
#include "runtime.hpp"
#include "vm.hpp"

namespace loom {

// ---- the driver, called by the API and the fault handler -----------------

Fault proto_fault(uint64_t page, int is_write);  // vm.hpp: NotLoom, Handled or Allowed
void proto_make_readable(uint64_t page);        // loom_prepare(LOOM_READ)
void proto_make_writable(uint64_t page);        // loom_prepare(LOOM_WRITE)
void proto_release();  // this rank's writes reach their homes; holders are told
// Drop or refresh copies others may have written.  With `prefetch` (a
// barrier whose ranks agreed to it, and that holds them in a second barrier
// until every rank has prefetched) hot pages are fetched again at once
// instead of dropped.
// `kind` says what the acquire acquires from (intervals.hpp): a lock's
// hand-over value `info`, a full barrier, or everyone.
void proto_acquire(bool prefetch = false, IvlAcquire kind = IvlAcquire::All, uint64_t info = 0);
// The acquire and the release restricted to pages [first, first+n)
// (loom_acquire_range, loom_release_range): copies of other pages are kept,
// other dirty pages stay dirty.
void proto_acquire_range(uint64_t first, uint64_t n);
void proto_release_range(uint64_t first, uint64_t n);
// Collective, right after a full barrier (loom_spawn, where the serial
// part's writes end): forget who wrote which HLRC page.  Every copy kept by
// that barrier's acquire is current, and a rank that writes a page again
// registers again (home pages written in place go back to read-only), so
// the setup rank 0 did alone stops making every later acquire drop the
// pages it wrote once.
void proto_forget_writers();
// The page is no longer hot: its prefetch hints are forgotten.
void proto_forget_hints(uint64_t page);
// Whether this rank has hot pages a barrier may prefetch (pages on other
// hosts it read again after an acquire dropped them).
bool proto_wants_prefetch();
// The barrier's page push (core.cpp), the prefetch of barriers across hosts
// with at most kPushRanks ranks (proto_push_used): before the barrier's
// agreement, ask the homes of the hot pages due at its acquire for them
// (asks[h] = 1 for each home asked, else 0) and post their receives; after
// it, send the pages the `asked` requests to this rank name; then wait for
// every message of the exchange.  The acquire installs the pages it drops.
// With at most 16 ranks (proto_push_keeps) a home keeps each rank's last
// asks, and an ask of the same runs again is not sent: kept[h] = its slot
// + 1 instead, carried by the agreement; the home is told kept[r] for each
// asker r.  In a job of 2 ranks kept[h] = -(slot + 1) says the asker took
// the pages the home sent ahead with its row (pushes ahead, core.cpp).
constexpr int kPushRanks = 256;
bool proto_push_used();
bool proto_push_keeps();
void proto_push_ask(int* asks, int* kept);
void proto_push_serve(int asked, const int* kept);
void proto_push_stop();  // before the transport stops (the posted receive of asks)
// In a job of 2 ranks (else null): the pages this barrier sends and may
// receive with the rows, for sync_barrier_or_asks (pushes ahead, core.cpp).
struct RowPages;
RowPages* proto_push_row_pages();
// Around a Loom atomic on page (performed at the home).
void proto_before_atomic(uint64_t page);
void proto_after_atomic(uint64_t page);  // a modifying atomic completed
// Drop this rank's cached copies of [first, first+n) (not its home pages,
// which stay in place) and mark the pages allocated or not, on this rank
// only.  Dirty pages must have been released.
void proto_forget_copies(uint64_t first, uint64_t n, bool allocated);
// A loom_alloc block [first, first+n) was freed (here, or by another rank:
// notices.cpp): this rank forgets its copies, homes and facts of the pages,
// so that the range's next block reads as zero and is homed by first touch.
void proto_forget_block(uint64_t first, uint64_t n);
// loom_free of a loom_alloc block, under the heap lock before the block
// leaves the table: the directory forgets the pages' homes and writers,
// and every other rank is told to forget them (proto_forget_block).
void proto_free_block(uint64_t first, uint64_t n);
// Forget every local and directory fact about pages [first, first+n) and
// give them homes by `policy` and `protocol` (collective: every rank calls).
// LOOM_TRACE_HOMES, after a barrier: this rank's lazy home pages become
// inaccessible, so that its next access to each faults and is traced.
void proto_watch_homes();
// `placed` (or nullptr): a home per page of the range, -1 where the policy decides (LOOM_PLACEMENT).
void proto_reset_range(uint64_t first, uint64_t n, bool allocated, loom_home_policy_t policy, int explicit_home,
                       loom_protocol_t protocol, const int16_t* placed = nullptr);

// ---- the table of a protocol ---------------------------------------------

// An acquire's decision about each cached copy (core.cpp acts on it: a
// dropped copy this rank is writing is merged with the home's instead).
struct AcquireVerdicts {
  std::vector<uint32_t> keep, drop, refresh;
};

struct PageProtocol {
  const char* name;
  // Copies are kept coherent by notices: when notices to this rank were
  // lost (a full ring), every such copy is dropped.
  bool needs_notices;
  // LOOM_MIGRATE may move the home of its pages.
  bool migrates;
  // A rank registers in the directory entry's writer set (its plane's
  // word, my_bit) at its first write of a page and marks it kIWriter, with
  // kOtherWritten where another rank's bit was set: a claim of a unit at a
  // write fault does that for the unit's pages (directory.cpp).
  bool writer_sets;
  // Before this rank fetches the run of pages [first, first+n) from `home`
  // (at a fault, or to refresh copies at least one of which is absent).
  void (*before_fetch)(int home, uint64_t first, uint64_t n);
  // A copy of `page` was brought up to date from its home at an acquire;
  // by_notice: a notice asked for it.
  void (*refreshed)(uint64_t page, bool by_notice);
  // The first write of an interval to `page`, before the driver twins it or
  // makes it writable.  May learn that the home moved: then it updates
  // *home (and the copy, if it had to drop it).
  void (*before_write)(uint64_t page, int* home);
  // That write is to a page this rank homes.  A protocol with work to do
  // for it at the next release sets PageTable::release_work.
  void (*home_write)(uint64_t page);
  // At a release, after the diffs are complete at the homes: `written` are
  // this protocol's non-home pages the rank wrote (sorted).  Queue notices
  // here (notice_queue); the driver publishes them.
  void (*release)(const std::vector<uint32_t>& written);
  // At an acquire: sort this protocol's cached copies (valid, not homed
  // here) into keep, drop and refresh.
  void (*acquire)(const std::vector<uint32_t>& cached, AcquireVerdicts* out);
  // A notice about a page this rank homes arrived.
  void (*home_notice)(uint64_t page, NoticeKind kind);
  // Around an atomic on `page` (after the driver dropped a stale copy).
  void (*before_atomic)(uint64_t page, int* home);
  void (*after_atomic)(uint64_t page);
  // Forget the protocol's metadata about pages [first, first+n), which start
  // a new life (collective, between two barriers; called for every protocol,
  // since the pages' old protocol may differ from the new one).
  void (*forget_range)(uint64_t first, uint64_t n);
  // The protocol's own page invariants (debug-full build).
  void (*check_page)(uint64_t page);
};

// Every operation is provided (a protocol with nothing to do at a step says
// so with a function that does nothing): checked at compile time.
constexpr bool protocol_complete(const PageProtocol& p) {
  return p.name && p.before_fetch && p.refreshed && p.before_write && p.home_write && p.release && p.acquire &&
         p.home_notice && p.before_atomic && p.after_atomic && p.forget_range && p.check_page;
}

extern const PageProtocol kHlrc, kErc;
extern const PageProtocol* const kProtocolOf[];  // by loom_protocol_t
// The distinct tables of kProtocolOf (erc-invalidate and erc-update share
// one), in order; a release and an acquire call each once.
const std::vector<const PageProtocol*>& protocol_families();
// By loom_protocol_t: the index of its table in protocol_families().
const uint8_t* protocol_family_of();

inline const PageProtocol& page_protocol(uint64_t p) { return *kProtocolOf[rt.pages.mode[p]]; }

// ---- driver services the protocols use -----------------------------------

// Sets of ranks (writer sets, copy-sets) are rank_planes() words: plane w
// holds ranks 64w .. 64w+63, rank r is bit r % 64 of plane r / 64.  With at
// most 64 ranks a set is one word, as it always was.
inline int rank_planes() { return (rt.nranks + 63) / 64; }
inline int plane_of(int r) { return r / 64; }
inline uint64_t bit_of(int r) { return 1ull << (r % 64); }
inline int my_plane() { return plane_of(rt.rank); }
inline uint64_t my_bit() { return bit_of(rt.rank); }
// HLRC: this rank's bit is now in page p's writer set, whose plane held
// `old` before the OR (a cache of "another rank writes it" beside it).
inline void note_writer(uint64_t p, uint64_t old) {
  rt.pages.registered = true;  // told at the next full barrier (hlrc.cpp, acquire)
  rt.ivl.registered = true;    // and in the next interval record (intervals.cpp)
  rt.pages.flags[p] |= kIWriter;
  if (old & ~my_bit()) rt.pages.flags[p] |= kOtherWritten;
}
// Rank r's bit in plane w of a set: 0 if r is not in plane w (or r < 0).
inline uint64_t bit_in_plane(int r, int w) { return r >= 0 && plane_of(r) == w ? bit_of(r) : 0; }
// Plane w of page p's copy-set word at its home (Meta; the eager protocols'
// holders, and exact invalidation's fetchers of hlrc home pages).
inline uint64_t cs_off(uint64_t p, int plane = 0) { return rt.meta.copyset + ((uint64_t)plane * rt.npages + p) * 8; }
// Whether a set (rank_planes() words) names a rank other than a and b.
inline bool names_other(const uint64_t* set, int a, int b = -1) {
  for (int w = 0; w < rank_planes(); w++)
    if (set[w] & ~bit_in_plane(a, w) & ~bit_in_plane(b, w)) return true;
  return false;
}
// The rank sets of n items in one batched load: plane w of item i is at
// where(i, w); (*sets)[i * rank_planes() + w] receives it.
void load_rank_sets(size_t n, void (*where)(size_t i, int plane, int* rank, uint64_t* off),
                    std::vector<uint64_t>* sets);
// This rank's slot of page p in its Data segment (home copy or cached copy).
inline uint8_t* slot(uint64_t p) { return rt.tp.self_data() + p * kPage; }
void list_cached(uint64_t page);
// A copy this rank is writing (twinned) that others wrote too: bring in the
// home's bytes where this rank did not write; the twin becomes the home's
// page, so this rank's diff stays its own writes.
void merge_from_home(uint64_t page);
// Drop the read-only copies in `pages` (sorted here).
void drop_pages(std::vector<uint32_t>& pages);
// Bring the copies of sorted `pages` (non-home, read-only or absent) up to
// date from their homes, one get per run with one home and protocol.
void refresh_pages(const std::vector<uint32_t>& pages, bool by_notice);

// Apply f(first, count) to maximal runs of consecutive page numbers in a
// sorted list.
template <class F>
void for_runs(const std::vector<uint32_t>& pages, F&& f) {
  size_t i = 0;
  while (i < pages.size()) {
    size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + 1) j++;
    f(pages[i], j - i);
    i = j;
  }
}

}  // namespace loom
