// The state of one Loom process and the internal interfaces between its
// parts.  One Runtime per process (the global `rt`), created by loom_init.
//
// Layers, lower never calling upper:
//   status, config, diff          services with no state
//   transport                     reaching other ranks' segments
//   vm                            the global range, protections, the fault signal
//   protocol (HLRC)               page states, faults, release, acquire
//   sync                          barrier and queue locks over transport atomics
//   heap                          allocation of global memory
//   api                           the C API
//
// Invariants of the page table (checked in the debug-full build):
//  1. state[p] != NONE implies flags[p] & kAlloc.
//  2. state[p] == RW and home[p] != rank implies p is on the dirty list and
//     its twin holds the page as it was at the first write of this interval.
//  3. A page on the dirty list is never the calling rank's home page.
//  4. flags[p] & kListed iff p is on the cached list (exactly once).
//  5. The protection of page p at base + p*PAGE is NONE, READ or READ|WRITE
//     exactly as state[p] says.
// Thread safety: one application thread calls Loom (and takes faults).
#pragma once
#include <sched.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <cstdint>
#include <vector>

#include "config.hpp"
#include "loom/loom.h"
#include "status.hpp"
#include "transport/transport.hpp"

namespace loom {

constexpr uint64_t kPage = 4096;
constexpr int kMaxRanks = 64;  // writer sets are 64-bit masks

enum PageState : uint8_t { kNone = 0, kRO = 1, kRW = 2 };
enum PageFlag : uint8_t {
  kAlloc = 1,         // inside an allocated block
  kOtherWritten = 2,  // sticky: another rank is in the page's writer set
  kIWriter = 4,       // sticky: this rank is registered in the writer set
  kListed = 8,        // on the cached list
  kSingle = 16,       // in a block from loom_alloc (may be freed by any rank)
  kHomeDirty = 32,    // eager protocols: a home page written since the last release (on home_dirty)
  kInstalled = 64,    // a lazy page a notice brought up to date (refreshed, not dropped, by the next acquire)
  // Eager protocols: on a home page, "nobody else holds it: the home writes
  // it untrapped" (its own bit set in the copy-set); on another rank's copy,
  // "fetched while its home wrote untrapped: drop it at every acquire".
  kUntracked = 128,
};

// Layout of the Meta segment (identical on every rank).
struct MetaLayout {
  uint64_t barrier;    // 64 flags written by dissemination partners, then
                       // 64 pair counters (group barriers), one per peer,
                       // 64 clock pings (on rank 0), a clock pong {time, seq}
  uint64_t tails;      // lock queue tails for the locks this rank hosts
  uint64_t qnodes;     // this rank's queue node {next, locked} for every lock
  uint64_t dir;        // directory entries {home+1, writers} of pages p % N == rank
  uint64_t heap;       // the heap table (used on rank 0)
  uint64_t lost;       // lost-homes mailbox: count, then kLostMax page+1 entries
  uint64_t copyset;    // eager protocols: per page, the ranks holding a copy (meaningful at the home)
  uint64_t rings;      // notice rings, one per writer rank: kRingWords words each
  uint64_t size;
};
constexpr int kBarrierWords = 256;  // 64 dissemination, 64 pair, 64 clock ping, 2 clock pong
constexpr uint32_t kHeapMax = 16384;  // allocated blocks at once
constexpr uint64_t kLostMax = 4096;
// A notice ring (written by one rank, read by the rank that holds it):
// word 0 head (entries written, low 48 bits; overflow generation above),
// word 1 tail (entries consumed), then kRingEntries entries {page << 2 | kind}.
constexpr uint64_t kRingEntries = 4096;
constexpr uint64_t kRingWords = 8 + kRingEntries;
constexpr uint64_t kRingCountMask = (1ull << 48) - 1;
enum NoticeKind : uint64_t {
  kNoticeInvalidate = 0,  // drop the copy
  kNoticeRefresh = 1,     // bring the copy up to date if held
  kNoticeInstall = 2,     // loom_update: bring it up to date, fetching it if not held
  kNoticeJoined = 3,      // to a home: a rank fetched a page the home writes untrapped
};
constexpr uint8_t kMigrateAfter = 2;  // intervals a rank writes a page before it takes the home   // lost-home notices a rank holds before it rechecks all

struct Stats {
  loom_stats_t s{};
};

struct Protocol;

struct Runtime {
  loom_config_t cfg{};
  bool active = false;
  bool finalized = false;
  bool we_init_mpi = false;
  int rank = 0, nranks = 1;
  Transport tp;
  MetaLayout meta{};
  uint32_t locks_total = 0;   // user locks + internal ones
  uint32_t heap_lock = 0;     // internal lock id guarding the heap table

  uint8_t* base = nullptr;    // the global range, same address on every rank
  uint64_t size = 0;
  uint64_t npages = 0;
  uint8_t* twins = nullptr;   // twin of page p at twins + p*PAGE

  std::vector<uint8_t> state, flags;
  std::vector<int16_t> home;  // -1 unknown
  std::vector<uint32_t> heap_checked;  // heap-table version of a kSingle page's last check
  std::vector<uint32_t> dirty;   // pages with a twin (non-home, RW)
  std::vector<uint32_t> cached;  // non-home pages that may hold a valid copy
  std::vector<uint8_t> held;     // held[lock] = 1 while this rank holds it
  uint64_t barrier_epoch = 0;
  std::vector<uint64_t> pair_count;  // group barriers entered with each peer
  std::vector<int> pending_group;    // ranks of an arrived, not yet waited, split barrier
  bool barrier_pending = false;
  uint64_t clock_seq = 0;            // ping-pong sequence numbers used so far
  uint64_t lost_consumed = 0;        // lost-home notices processed
  std::vector<uint32_t> migrate_candidates;  // pages released since the last barrier
  std::vector<uint8_t> migrate_count;        // barrier intervals in which this rank wrote the page
  std::vector<uint8_t> mode;                 // per page: the block's loom_protocol_t
  std::vector<uint32_t> home_dirty;          // eager: home pages written since the last release
  std::vector<uint32_t> update_pages;        // loom_update: pages to bring up to date everywhere
  std::vector<std::vector<uint64_t>> outbox; // notices for each rank, sent at the end of a release
  std::vector<uint64_t> ring_sent;           // entries written into each rank's ring from this rank
  std::vector<uint64_t> ring_tail;           // that ring's tail as last read
  std::vector<uint64_t> ring_ovf;            // overflow generation this rank gave each ring
  std::vector<uint64_t> ring_seen;           // per writer: {consumed entries, overflow generation seen}
  std::vector<uint64_t> ring_ovf_seen;

  Stats st;
  const Protocol* proto = nullptr;
};

extern Runtime rt;

// vm.cpp
Status vm_reserve(MPI_Comm comm);     // agree on and map the global range
void vm_release();
Status vm_install_handler();
void vm_remove_handler();
void vm_protect(uint64_t first_page, uint64_t npages, PageState s);
// Read-or-write of the faulting access from the signal context: 1 write,
// 0 read, -1 unknown.
double now();  // CLOCK_MONOTONIC seconds
// The clock of the statistics: the time-stamp counter where it is invariant
// (x86-64 with constant_tsc and nonstop_tsc; ~8 ns a read here against ~20 ns
// for clock_gettime, which a lock or barrier reads four times), else now().
extern double g_sec_per_tick;
void stat_clock_init();
inline double stat_now() {
#if defined(__x86_64__)
  if (g_sec_per_tick > 0) return (double)__rdtsc() * g_sec_per_tick;
#endif
  return now();
}

// The coherence protocol, behind one table of operations: the API and the
// fault handler call only these, so another protocol (the eager invalidate
// and update variants) is a second table chosen at init.  HLRC's table is in
// protocol.cpp.
struct Protocol {
  const char* name;
  bool (*fault)(uint64_t page, int is_write);  // false: not Loom's fault
  void (*make_readable)(uint64_t page);        // loom_prepare(LOOM_READ)
  void (*make_writable)(uint64_t page);        // loom_prepare(LOOM_WRITE)
  void (*release)();                           // this rank's writes reach their homes
  void (*acquire)();                           // drop copies others may have written
  void (*before_atomic)(uint64_t page);
  int (*home)(uint64_t page, bool claim);
  void (*forget_copies)(uint64_t first, uint64_t n, bool allocated);
  void (*reset_range)(uint64_t first, uint64_t n, bool allocated, loom_home_policy_t policy, int explicit_home,
                      loom_protocol_t protocol);
  void (*migrate_window)();  // inside a barrier, every rank quiescent (LOOM_MIGRATE)
  void (*after_atomic)(uint64_t page);  // a modifying atomic on the page completed at its home
};
extern const Protocol kHlrc;

// protocol.cpp (home-based lazy release consistency): HLRC's operations
bool proto_fault(uint64_t page, int is_write);  // false: not Loom's fault
void proto_make_readable(uint64_t page);
void proto_make_writable(uint64_t page);
int proto_home(uint64_t page, bool claim);
void proto_release();   // diffs of dirty pages reach their homes
void proto_acquire();   // invalidate copies others may have written
// Drop this rank's cached copies of [first, first+n) (not its home pages,
// which stay in place) and mark the pages allocated or not, on this rank only.
// Dirty pages must have been released.
void proto_forget_copies(uint64_t first, uint64_t n, bool allocated);
// Forget every local and directory fact about pages [first, first+n) and
// give them homes by `policy` (collective: every rank calls).
void proto_migrate_window();
void proto_reset_range(uint64_t first, uint64_t n, bool allocated, loom_home_policy_t policy, int explicit_home,
                       loom_protocol_t protocol);
void proto_after_atomic(uint64_t page);
void proto_before_atomic(uint64_t page);
uint64_t dir_rank(uint64_t page);
uint64_t dir_off(uint64_t page);

// sync.cpp
void sync_barrier_raw();           // dissemination barrier, no memory actions
void sync_lock_raw(uint32_t id);   // MCS queue lock, no memory actions
void sync_unlock_raw(uint32_t id);
// Group barrier in two phases (split-phase / fuzzy, and over any subset):
// arrive signals every other member, wait waits for every other member's
// signal.  Works for any subsets because each pair of ranks counts the group
// barriers they share; members must enter shared barriers in the same order.
void sync_group_arrive(const int* ranks, int n);
void sync_group_wait(const int* ranks, int n);
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Wait until done() holds: spin LOOM_SPIN polls, then yield the core on
// every poll, so that runs with more ranks than cores make progress.  The
// waiting time is accounted as polling.
template <class F>
inline void spin_until(F&& done) {
  if (done()) return;
  double t0 = stat_now();
  for (int spins = 0; !done();) {
    if (++spins > rt.cfg.spin) sched_yield();
    else cpu_relax();
  }
  rt.st.s.t_poll += stat_now() - t0;
}

// heap.cpp
Status heap_alloc(uint64_t npages, uint32_t kind, uint64_t* first_page);
Status heap_free(uint64_t first_page, uint32_t kind, uint64_t* npages);
enum : uint32_t { kHeapSingle = 1, kHeapCollective = 2 };
// Fault path: if page p lies in an allocated block, mark the block's pages
// allocated here and return true.
bool heap_mark_if_allocated(uint64_t p);
Status heap_lookup(uint64_t first_page, uint32_t* kind, uint64_t* npages);
// For a page of a loom_alloc block: is the block still allocated?  Costs one
// load of the table's version when the table has not changed since the
// page's last check.  Clears the page's block flags when it was freed.
bool heap_still_allocated(uint64_t p);

// clock.cpp
Status clock_sync(int rounds, loom_clock_t* out);
Status clock_check(int rounds, loom_clock_t* out);
double clock_global();
double clock_local();

// stats.cpp
void stats_finalize_report();
size_t stats_json(const loom_stats_t& s, char* buf, size_t len);

}  // namespace loom
