// Exact lock-scoped invalidation for lazy (hlrc) pages (LOOM_EXACT=1, the
// default): an acquire of a lock drops only the copies of pages written in
// the intervals that happened before it and that this rank has not seen yet,
// as lazy release consistency defines them (TreadMarks' intervals, write
// notices and vector timestamps), instead of every page any other rank ever
// wrote.  One-sided: no handler runs on another rank.
//
//  - Intervals.  Every release that is not a full barrier's ends an interval
//    of this rank if it wrote something or learnt of others' intervals since
//    its last one: a *record* {its number in this barrier epoch, the pages
//    written (runs), the rank's vector timestamp} goes into a ring in the
//    rank's own Meta, where other ranks read it.  A full barrier starts a new
//    epoch (counts back to 0); its acquire keeps HLRC's writer-set rule
//    (every copy of a page another rank writes), which covers everything
//    before it, so records never outlive an epoch and memory is bounded.
//  - Locks hand over (epoch, rank, interval) of the last release: in the
//    MCS tail word when the lock is free, in the queue node when it is passed
//    to a waiter (sync.cpp).  The acquirer reads that record's vector
//    timestamp, and from every rank whose intervals it has not seen the
//    records in between, and drops the pages they name; its own vector
//    timestamp takes the maximum, so knowledge is transitive through chains
//    of locks.
//  - Home pages are written in place, without faults.  A rank fetching an
//    hlrc page from its home first sets its bit in the page's copy-set word
//    at the home and raises the home's fetch count, in one request (once
//    per page and home, ever: sticky; only once the rank has acquired a
//    lock: copies fetched before that are "untracked", and a lock's acquire
//    judges them by the writer-set rule).  Every release ending an interval
//    names the home pages written in place since the last record that
//    another rank fetched: those that trapped since, and those written
//    untrapped, looked at when first written and whenever the fetch count
//    moved.  A named page goes back to read-only, so that its next write
//    faults and is named in the next record; in a rank's first kIvlEarly
//    records of an epoch, and once a page trapped kIvlTraps times in the
//    epoch, it stays writable and is named in every record until the next
//    barrier instead.  The fetcher's OR and count come before its get, the
//    home's write before its look at the count (a full fence): one of the
//    two sees the other, so a tracked copy that went stale is always named.
//    Pages nobody else ever fetched are written without a fault, as before.
//  - Atomics name their page in the next record; a loom_acquire, an ordered
//    atomic's acquire or a group barrier acquires from everyone: the
//    writer-set rule, after reading every rank's newest interval.  A
//    loom_acquire_range acquires only part: the next record says so, and a
//    rank acquiring through it falls back to the writer-set rule.
//  - Whenever a record is missing (the ring wrapped, a record too large, an
//    epoch passed), the acquire falls back to the writer-set rule: never
//    less than correct.
// Thread safety: under the rank lock (threads.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "protocol/page_arrays.hpp"

namespace loom {

// Lock hand-over value: (epoch & 0xff) << 40 | (rank + 1) << 24 | count
// (a record of `rank`); 0: no release to acquire from; count kIvlCountLost:
// the record's number did not fit (the acquirer falls back to the writer-set
// rule).  Fits in 48 bits, beside the 16 bits of a lock's tail (sync.cpp).
// An epoch that aliases (a release 256 barriers old) only makes the acquirer
// read records it need not: whatever it acquires is a release that happened.
constexpr uint64_t kIvlInfoBits = 48;
constexpr uint32_t kIvlCountLost = 0xffffff;

// Records per rank in its ring, and page-run entries.
constexpr uint64_t kIvlRecords = 256;
constexpr uint64_t kIvlRuns = 32768;

enum IvlFlag : uint8_t {
  kIvlFlagged = 1,  // this rank's bit is in the copy-set word at the page's home
  kIvlHomeRw = 2,   // a writable home page on home_rw, flagged_rw or always
  kIvlStale = 4,    // named by a record the acquire under way acquires
  kIvlAlways = 8,   // a home page named in every record, untrapped, until the next barrier (on always)
  kIvlFetched = 16, // a home page another rank fetched (its copy-set word has another bit)
};

// This many traps of one home page in one barrier epoch make it kIvlAlways.
constexpr uint16_t kIvlTraps = 3;
// A rank's first records of each epoch name the home pages others fetched
// that it wrote, untrapped (intervals.cpp, name_written).
constexpr uint32_t kIvlEarly = 4;

enum class IvlAcquire : uint8_t { All, Lock, Barrier };

struct Intervals {
  bool on = false;
  uint32_t epoch = 0;                // full barriers passed
  uint32_t count = 0;                // this rank's records in this epoch
  std::vector<uint32_t> known;       // per rank: its records (this epoch) this rank has acquired
  bool known_grew = false;           // since this rank's last record
  bool partial = false;              // a loom_acquire_range since this rank's last record
  bool in_barrier = false;           // the release of a full barrier: no record
  bool scoped = false;               // the acquire under way drops only kIvlStale pages
  bool locks_seen = false;           // this rank acquired a lock: its fetches join the copy-sets
  bool registered = false;           // this rank registered a writer since its last record (or full barrier)
  bool acquired_regs = false;        // the acquire under way acquired a record that says so, or fell back
  uint32_t last_partial = 0;         // the newest record made after a partial acquire (or too large)
  uint64_t runs_written = 0;         // run entries this rank wrote into its ring, ever
  ZeroArray<uint8_t> state;          // per page: IvlFlag bits
  ZeroArray<uint16_t> trap;          // per home page: traps in the epoch << 8 | that epoch (mod 256)
  std::vector<uint32_t> pending;     // pages for the next record
  std::vector<uint32_t> home_rw;     // hlrc home pages written in place that no other rank had fetched
  std::vector<uint32_t> flagged_rw;  // ... that another rank fetched, written since the last record
  std::vector<uint32_t> always;      // ... named in every record (kIvlAlways)
  std::vector<uint32_t> protected_rw;  // ... made read-only by another part of the protocol since written
  uint64_t flags_seen = 0;           // this rank's flag count when home_rw was last looked at
  size_t home_rw_checked = 0;        // home_rw's first entries, looked at since they were written
  std::vector<uint32_t> marked;      // pages with kIvlStale
  std::vector<uint64_t> buf;         // records and runs read from other ranks
  const uint64_t* given = nullptr;   // every rank's head for the next acquire_all (ivl_heads_given)

  void init(uint64_t npages, int nranks, bool enable) {
    on = enable;
    epoch = count = last_partial = 0;
    runs_written = 0;
    known.assign(nranks, 0);
    known_grew = partial = in_barrier = scoped = locks_seen = registered = acquired_regs = false;
    given = nullptr;
    if (!state.assign(enable ? npages : 0) || !trap.assign(enable ? npages : 0)) throw std::bad_alloc();
    pending.clear();
    home_rw.clear();
    flagged_rw.clear();
    always.clear();
    protected_rw.clear();
    flags_seen = 0;
    home_rw_checked = 0;
    marked.clear();
  }
};

// Meta bytes of one rank's record ring (api.cpp's layout).
uint64_t ivl_meta_bytes(int nranks);

// ---- from the hlrc protocol ----
void ivl_before_fetch(int home, uint64_t first, uint64_t n);  // join the copy-sets
bool ivl_fetch_joins(int home);  // whether ivl_before_fetch may message `home` (a round trip)
void ivl_home_write(uint64_t page);                           // written in place
// A home page written in place goes read-only outside this module (a
// migration watch traps the home's next write): what was written while it
// was writable is named in the next record all the same.
void ivl_home_protected(uint64_t page);
void ivl_written(const std::vector<uint32_t>& pages);         // diffs complete at the homes
void ivl_atomic(uint64_t page);
bool ivl_scoped();                                            // the acquire under way is exact
bool ivl_stale(uint64_t page);                                // ... and names this page
bool ivl_tracked(uint64_t page);  // this rank's copy was fetched after it joined the copy-set
// The lock acquire under way is exact and acquires no record of an interval
// in which its rank registered a writer of a page (HLRC's writer sets): the
// sets this rank last found naming no other rank still name none as far as
// the acquire must see (hlrc.cpp, unchanged).
bool ivl_no_registrations();

// ---- from the driver and the API ----
// End of a release: the record, if this interval has one.
void ivl_record();
// This rank's head (its newest record's tag, as acquire_all reads it of
// every rank), and every rank's heads gathered at a split barrier of every
// rank, for the next acquire to take instead of loading them (heads[] must
// live until then).  A head read at a rank's arrive covers every release
// before that arrive, which is what the barrier acquires.
uint64_t ivl_head();
void ivl_heads_given(const uint64_t* heads);
// This rank's knowledge as heads, one word per rank (tag_of(epoch, count):
// the records of that rank it has acquired; at its own index its head):
// what a group barrier's arrive hands the members (sync.cpp).  Given to
// ivl_heads_given, their maximum is what the barrier acquires: every
// member's releases and all they had acquired, which is all that LRC's
// happens-before puts before the barrier (mr_barriers case 3b).
void ivl_knowledge(uint64_t* out);
// The hand-over value for a lock this rank releases now.
uint64_t ivl_release_info();
// Before proto_acquire: what it acquires from.  Lock: the value the lock
// handed over.
void ivl_begin_acquire(IvlAcquire kind, uint64_t info = 0);
void ivl_end_acquire();    // after it
void ivl_partial_acquire();  // loom_acquire_range
// The page starts a new life (this rank's facts about it are forgotten).
void ivl_forget(uint64_t page);
// This rank became the page's home (migration): every other rank may hold it.
void ivl_moved_in(uint64_t page);

}  // namespace loom
