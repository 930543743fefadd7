// The page table: what this rank knows about each page of the global range
// (its state, facts learned about it, its home, the protocol of its block)
// and the two lists the protocol walks at synchronization points.  The
// protocol driver (protocol/core.cpp) owns it; the heap marks pages of
// blocks other ranks allocated, and the API reads it for loom_prepare and
// the atomics.
//
// Invariants (checked in the debug-full build at every release and acquire):
//  1. state[p] != kNone implies flags[p] & kAlloc.
//  2. state[p] == kRW and home[p] != rank implies p is on the dirty list and
//     its twin holds the page as it was at the first write of this interval.
//  3. A page on the dirty list is never the calling rank's home page.
//  4. flags[p] & kListed iff p is on the cached list (exactly once).
//  5. The protection of page p at base + p*PAGE is NONE, READ or READ|WRITE
//     exactly as state[p] says.
// Each protocol adds its own (PageProtocol::check_page).
// Thread safety: under the rank lock (threads.hpp; the fault handler takes it).
#pragma once
#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>
#include <vector>

#include "protocol/page_arrays.hpp"

namespace loom {

constexpr uint64_t kPage = 4096;

enum PageState : uint8_t { kNone = 0, kRO = 1, kRW = 2 };
enum PageFlag : uint8_t {
  kAlloc = 1,         // inside an allocated block
  kOtherWritten = 2,  // HLRC, sticky: another rank is in the page's writer set
  kIWriter = 4,       // HLRC, sticky: this rank is registered in the writer set
  kListed = 8,        // on the cached list
  kSingle = 16,       // in a block from loom_alloc (may be freed by any rank)
  kHomeDirty = 32,    // ERC: a home page written since the last release (on ErcState::home_dirty)
  kInstalled = 64,    // a copy a notice brought up to date (HLRC, ERC's untracked copies: refreshed, not
                      // dropped, by the next acquire)
  // ERC: on a home page, "nobody else holds it: the home writes it
  // untrapped" (its own bit set in the copy-set); on another rank's copy,
  // "fetched while its home wrote untrapped: drop it at every acquire".
  kUntracked = 128,
};

// Hints for the barrier prefetch of hot pages (core.cpp, prefetch_hot):
// facts about how this rank reads a page, not about its validity.
enum PageHint : uint8_t {
  kOpened = 1,      // its last push was installed readable on trust (core.cpp, install_pushed): when
                    // the program read it is not known
  kHot = 2,         // fetched again after each drop at gaps that repeat: the barrier that
                    // starts its predicted read interval fetches it (core.cpp, note_fetched)
  kPrefetched = 4,  // fetched by the last barrier and not read since: valid until the next
                    // acquire, still protected (PROT_NONE, state kNone) so that a read tells us
  kHotListed = 8,   // on hot_pages (kept when the other hints are forgotten, so that it is listed once)
  kFetching = 16,   // in a window a thread fetches without the rank lock (core.cpp, fetch_unlocked):
                    // a fault on it waits for that fetch; kept when the other hints are forgotten
  kLate = 32,       // its last prefetch went unread: read one acquire later than its gaps say
                    // (once; a second prefetch unread makes it cold: core.cpp, retire_prefetched)
  kTrust = 64 | 128,  // two bits, a count: pushes of the page still to be installed readable
                      // before one is installed protected again, to see that it is still read
                      // (core.cpp, install_pushed; set to kTrustFull when a protected one is read)
};
constexpr int kTrustShift = 6;
constexpr uint8_t kTrustFull = 3;  // of every 4 pushes of a page the program reads, 3 open at once

// The longest gap (acquires between two fetches of a page after drops)
// the barrier prefetch learns.
constexpr uint32_t kMaxReadGap = 64;

// The address space the per-page tables take on each rank: 1 state,
// 1 flags, 2 home, 1 mode, 1 hint, 4 dropped_at, 4 fetched_at, 2 gaps,
// 4 heap_checked, 4 clean_at (page_arrays.hpp: resident only where
// written), and 4 each for the dirty and cached lists (reserved to full
// size at init, so that the fault path never grows them; resident as they
// fill), 1 for migration's state (migrate.hpp; not with LOOM_MIGRATE=0), 2
// for the adaptive protocol's (adapt.hpp; not with LOOM_ADAPT=0) and 3 for
// exact invalidation's (intervals.hpp; not with LOOM_EXACT=0).  The Meta
// segment adds 8 (copy-sets) + 16/N (directory) per page, also resident
// only where touched.  A block's allocation writes the entries it changes.
constexpr uint64_t kPageTableBytesPerPage = 42;  // with migration, adaptation and exact invalidation on

struct PageTable {
  uint8_t* twins = nullptr;            // twin of page p at twins + p*PAGE (api.cpp maps it)
  ZeroArray<uint8_t> state, flags;     // PageState, PageFlag bits
  FillArray<int16_t> home;             // -1 unknown
  FillArray<uint8_t> mode;             // the block's loom_protocol_t: which PageProtocol serves p
  ZeroArray<uint8_t> hint;             // PageHint bits
  ZeroArray<uint32_t> dropped_at;      // the acquire that last dropped this rank's copy (0: none since its fetch)
  ZeroArray<uint32_t> fetched_at;      // 1 + the acquire count when this rank last fetched the page from a
                                       // home it does not map, or read its prefetched copy (0: never, forgotten)
  ZeroArray<uint8_t> gap1, gap2;       // acquires between its last two such fetches after drops, and
                                       // between the two before (0: unknown; core.cpp, note_fetched)
  ZeroArray<uint64_t> foreign;         // bit p: the view of page p maps its home's memfd, not this rank's
                                       // (LOOM_HOST_SHARE; core.cpp, share_fault); 1 bit a page
  ZeroArray<uint64_t> starts;          // bit p: page p is the first of a block allocated here (a claim of
                                       // a unit stops there: directory.cpp, claim_unit; core.cpp,
                                       // share_claim_unit); 1 bit a page
  uint32_t acquires = 0;               // acquires so far (the first is 1)
  ZeroArray<uint32_t> clean_at;        // HLRC: 1 + barriers_seen when this rank last read the page's writer set
                                       // and it named no other rank (0: never; hlrc.cpp, acquire)
  uint32_t barriers_seen = 0;          // full barriers (loom_barrier) this rank has agreed in
  uint32_t writers_grew_at = 0;        // the last of them whose agreement said some rank registered a writer
  bool registered = false;             // this rank registered a writer since its last full barrier's agreement
  bool writers_known = false;          // the acquire running is a full barrier's, after that agreement
  std::vector<uint32_t> span_learnt;   // per span of pages: 1 + the acquire count when a lookup last learnt
                                       // its homes around a window (directory.cpp, learn_homes; sized there)
  uint32_t alloc_gen = 0;              // allocations and frees seen here (mark_block, core.cpp's resets)
  uint64_t ahead_first = 0;            // the directory words of pages [ahead_first, + ahead.size()),
  std::vector<uint64_t> ahead;         // loaded with this rank's last claim of a unit for the next
  uint32_t ahead_gen = ~0u;            // (directory.cpp, claim_unit), at alloc_gen ahead_gen
  uint64_t opened_first = 0;           // a fault's claim of a unit: pages [opened_first, + opened_n) are
  uint64_t opened_n = 0;               // this rank's (a write fault's: registered as written), to open now
  std::vector<uint64_t> ro_runs;       // read faults' claims of units opened pages [first, + n) read-only,
  uint32_t ro_gen = 0, ro_acq = 0;     // unregistered: (first, n) pairs in order of first, all at alloc_gen
                                       // ro_gen and acquires ro_acq (directory.cpp, proto_register_run)
  FillArray<uint32_t> heap_checked;    // heap-table version of a kSingle page's last check (~0: none)
  std::vector<uint32_t> dirty;         // pages with a twin (non-home, RW)
  std::vector<uint32_t> cached;        // non-home pages that may hold a valid copy
  std::vector<uint32_t> prefetched;    // pages the last barrier prefetched (kPrefetched or read since)
  std::vector<uint32_t> hot_pages;     // kHotListed: pages made hot (those cold since leave at the next look)
  uint64_t hot = 0;                    // pages with kHot
  bool release_work = false;           // a protocol has release work beyond the dirty list

  void init(uint64_t npages, uint8_t protocol) {
    if (!state.assign(npages) || !flags.assign(npages) || !home.assign(npages, -1) ||
        !mode.assign(npages, protocol) || !hint.assign(npages) || !dropped_at.assign(npages) ||
        !fetched_at.assign(npages) || !gap1.assign(npages) || !gap2.assign(npages) ||
        !foreign.assign((npages + 63) / 64) || !starts.assign((npages + 63) / 64) || !clean_at.assign(npages) ||
        !heap_checked.assign(npages, ~0u))
      throw std::bad_alloc();
    acquires = 0;
    barriers_seen = writers_grew_at = 0;
    registered = writers_known = false;
    span_learnt.clear();
    alloc_gen = 0;
    ahead_first = 0;
    ahead.clear();
    ahead_gen = ~0u;
    opened_n = 0;
    ro_runs.clear();
    ro_gen = ro_acq = 0;
    dirty.clear();
    dirty.reserve(npages);
    cached.clear();
    cached.reserve(npages);
    prefetched.clear();
    hot_pages.clear();
    hot = 0;
    release_work = false;
  }
  // Pages [first, first+n) are one block: its first page starts it, no
  // other does.
  void mark_block(uint64_t first, uint64_t n) {
    alloc_gen++;
    for (uint64_t p = first; p < first + n; p++)
      if (starts_block(p)) starts[p / 64] &= ~(1ull << (p % 64));
    if (n) starts[first / 64] |= 1ull << (first % 64);
  }
  bool starts_block(uint64_t p) const { return (starts[p / 64] >> (p % 64)) & 1; }
  // Give the memory back (loom_finalize, or a failed loom_init); the
  // twin area must be unmapped first.
  void clear() { *this = PageTable{}; }
};

}  // namespace loom
