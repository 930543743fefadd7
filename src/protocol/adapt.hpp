// Adaptive protocol per page (LOOM_ADAPT=1; off by default: it costs Loom's
// Barnes-Hut 1.6x, whose switched pages their home writes at many releases,
// while it takes SPLASH-3 BARNES from 4.0 to 1.1 s): a lazy (hlrc) page that
// acquires keep dropping for nothing turns eager (erc-invalidate).
//
// HLRC's acquire drops every copy whose writer set names another rank (its
// home writes in place, so there is no exact notice of what changed).  For
// data read under locks that some other rank writes now and then, that
// drops a page at almost every lock acquire though it rarely changed.  The
// driver sees it: when a rank fetches again a page an acquire dropped, it
// compares the page with the copy it dropped (still in its slot).  A page
// found unchanged kFalseDrops times in a row, each drop at most kMaxGap
// acquires after the last (a change or a longer gap starts the count
// again), is switched to erc-invalidate, whose copies stay until a
// writer's notice says the page changed.  Pages that really change between
// acquires (the usual barrier-phased arrays) never reach the count and stay
// lazy, which costs them nothing at a fetch or a release.
//
// The switch happens inside a barrier, where every rank is quiescent (the
// barrier ORs the want bit, as for migration, and runs the window): the
// rank that wants it marks each page EAGER in its directory home word and
// sends every other rank an "eager" notice for each run of pages (a rank
// whose notice ring overflowed finds the marks instead); each rank applies
// it before its acquire: the page's mode
// becomes erc-invalidate everywhere, every copy of it is dropped (the next
// fetch joins the copy-set), and its home, the only holder left, marks it
// untracked (its own bit in the copy-set: it writes in place until a rank
// joins, erc.cpp), or traps its writes if a rank that left the barrier
// first joined already.  A page switches once; blocks allocated with an eager
// protocol are never touched; LOOM_ADAPT=0 keeps every page in the
// protocol of its block.  The statistics count the switches and, at the
// end, the pages this rank homes in each mode.
// Thread safety: under the rank lock (threads.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "protocol/page_arrays.hpp"

namespace loom {

constexpr uint8_t kFalseDrops = 4;   // unchanged refetches in a row before a page turns eager
constexpr uint8_t kTrueDrops = 8;    // changed refetches after which a page is no longer compared
constexpr uint8_t kMaxGap = 16;      // acquires between two drops of a streak at most

struct Adaptation {
  // Per page: unchanged refetches in a row (low 4 bits) and changed ones
  // (high 4 bits); 0xff: switched, or no longer compared.
  ZeroArray<uint8_t> false_drops;
  std::vector<uint32_t> ready;       // pages to switch at this barrier
  ZeroArray<uint8_t> last_drop;     // per page: the acquire (mod 256) whose drop was last compared
  std::vector<uint8_t> saved;        // the dropped copies of one fetch window (sized at init: faults do not allocate)

  void init(uint64_t npages, uint32_t unit_pages, bool on) {
    if (!false_drops.assign(on ? npages : 0) || !last_drop.assign(on ? npages : 0)) throw std::bad_alloc();
    ready.clear();
    saved.assign(on ? (size_t)unit_pages * 4096 : 0, 0);
  }
};

// Fault path, around the get of the fetch window [first, first+n): save the
// dropped copies of the window's lazy pages an acquire dropped (each page
// until it has changed kTrueDrops times: then its drops are real and the
// compare would only cost); returns how many; then compare them with what
// the get brought.
uint64_t adapt_save_dropped(uint64_t first, uint64_t n);
void adapt_compare_dropped(uint64_t first, uint64_t n);
bool adapt_wants_window();  // before a barrier's synchronization
void adapt_window();        // inside it: tell every other rank
void adapt_apply_own();     // after the window, with the others' notices: switch here too
// A rank switched [first, first+n) to erc-invalidate (a notice, or this
// rank's own window).
void adapt_switch(uint64_t first, uint64_t n);
// Notices to this rank were lost (a full ring): switch the lazy pages the
// directory marks eager (the switch must not wait for a notice).
void adapt_notices_lost();
void adapt_forget(uint64_t page);  // the page starts a new life
// Pages this rank homes in the lazy and in the eager protocols.
void adapt_count_modes(uint64_t* lazy, uint64_t* eager);

}  // namespace loom
