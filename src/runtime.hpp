// The state of one Loom process: one Runtime per process (the global `rt`),
// created by loom_init.  It is a composition of groups, each declared next
// to the code that owns it; this header only puts them together.
//
// Layers, lower never calling upper (docs/ARCHITECTURE.md has the map):
//   status, config, diff, stats   services with no state of their own
//   transport/                    reaching other ranks' segments
//   vm                            the global range, protections, the fault signal
//   protocol/                     page states, faults, release, acquire
//   sync, clock                   barriers, locks, the global clock over transport atomics
//   heap, small_alloc             allocation of global memory
//   api                           the C API
// Thread safety: any application thread, under the rank lock (threads.hpp).
#pragma once
#include <sched.h>

#include <cstdint>

#include "checkpoint.hpp"
#include "config.hpp"
#include "loom/loom.h"
#include "protocol/erc.hpp"
#include "protocol/adapt.hpp"
#include "protocol/intervals.hpp"
#include "protocol/migrate.hpp"
#include "protocol/notices.hpp"
#include "protocol/page_table.hpp"
#include "small_alloc.hpp"
#include "spin.hpp"
#include "stats.hpp"
#include "status.hpp"
#include "sync.hpp"
#include "threads.hpp"
#include "transport/transport.hpp"
#include "watchdog.hpp"

namespace loom {

// The rank limit: queue entries in a lock's tail word are 16 bits, and a
// small-block chunk's heap tag names its owner in 12 bits (small_alloc.cpp).
// Sets of ranks (writer sets, copy-sets) are as many 64-bit planes as the
// rank count needs (protocol.hpp, rank_planes).
constexpr int kMaxRanks = 4096;

// Layout of the Meta segment (identical on every rank; api.cpp computes it).
struct MetaLayout {
  uint64_t barrier;    // the barrier area: 64 flags written by dissemination partners
                       // (two banks of 32), single words (kPongTimeWord ..
                       // kTurnWord below), then N pair counters (group
                       // barriers), one per peer, and N clock pings (on rank 0)
  uint64_t tails;      // lock queue tails for the locks this rank hosts
  uint64_t qnodes;     // this rank's queue node {next, locked} for every lock
  uint64_t links;      // for the locks this rank hosts, each rank's successor in the queue
                       // (locks served at their home, sync.cpp; N words a lock)
  uint64_t dir;        // directory entries {home+1, writers} of pages p % N == rank
  uint64_t heap;       // the heap table (used on rank 0)
  uint64_t copyset;    // eager protocols: per page, the ranks holding a copy (meaningful at the home)
  uint64_t rings;      // notice rings, one per writer rank: ring_words(N) words each
  uint64_t small;      // this rank's small-block chunks (small_alloc.hpp): frees counter, slots
  uint64_t ivl;        // this rank's interval records (intervals.cpp)
  uint64_t know;       // group barriers across hosts: what each peer knew at its arrive, 2 x N words
                       // a peer (sync.cpp); 0 bytes above kKnowRanksMax ranks
  uint64_t size;
};
// Words of the barrier area.
constexpr uint64_t kPongTimeWord = 64;     // clock.cpp: the clock pong {time, seq}
constexpr uint64_t kPongSeqWord = 65;
constexpr uint64_t kHangWord = 66;         // watchdog.cpp
constexpr uint64_t kLockCounterWord = 67;  // on rank 0: loom_lock_alloc's counter
constexpr uint64_t kTurnWord = 68;         // on rank 0: spawn.cpp's ordered first locks
constexpr uint64_t kSpawnBellWord = 69;    // on a worker: spawn.cpp's doorbell (rank 0 rings it after a command)
constexpr uint64_t kAbortWord = 70;        // on rank 0: watchdog.cpp, the one rank that aborts the job
constexpr uint64_t kPairWord0 = 72;        // then N pair counters, then N clock pings
inline uint64_t barrier_area_words(int nranks) { return kPairWord0 + 2 * (uint64_t)nranks; }
inline uint64_t pair_word(int peer) { return kPairWord0 + (uint64_t)peer; }
inline uint64_t ping_word(int nranks, int peer) { return kPairWord0 + (uint64_t)nranks + (uint64_t)peer; }
// A group barrier's arrive hands each other member its knowledge (a head
// per rank, intervals.cpp) in jobs of at most this many ranks: 2 N^2 words
// of Meta, 1 MiB at 256 ranks.  Above it the wait loads every rank's head.
constexpr int kKnowRanksMax = 256;
inline uint64_t know_area_bytes(int nranks) {
  return nranks <= kKnowRanksMax ? 2 * (uint64_t)nranks * (uint64_t)nranks * 8 : 0;
}

// Function-local scratch containers in Loom are allocated once and never
// destroyed (`static T& x = *new T;`): Loom may run from an exit handler
// (loom_finalize at exit after loom_start_serial, or a program's own
// atexit), after the C++ runtime has destroyed the statics constructed
// after that handler was registered.
struct Runtime {
  // The process (api.cpp, loom_init).
  loom_config_t cfg{};
  bool active = false;
  bool finalized = false;
  bool we_init_mpi = false;
  int rank = 0, nranks = 1;
  MetaLayout meta{};
  uint32_t locks_total = 0;   // user locks + internal ones
  uint32_t heap_lock = 0;     // internal lock id guarding the heap table
  uint8_t* base = nullptr;    // the global range, same address on every rank (vm.cpp)
  uint64_t size = 0;
  uint64_t npages = 0;
  bool shared = false;        // every rank on one host, each page mapped from its home (core.cpp, share_fault)

  Transport tp;          // transport/
  PageTable pages;       // protocol/page_table.hpp, owned by protocol/core.cpp
  ErcState erc;          // protocol/erc.cpp
  NoticeRings rings;     // protocol/notices.cpp
  Migration mig;         // protocol/migrate.cpp
  Adaptation adapt;      // protocol/adapt.cpp
  Intervals ivl;         // protocol/intervals.cpp
  SyncState sync;        // sync.cpp (and clock.cpp's sequence)
  Stats st;              // stats.hpp, bumped by every layer
  SmallHeap small;       // small_alloc.cpp (this rank's chunks)
  CheckpointState ckpt;  // checkpoint.cpp (collective blocks in order, restart replay)
};

extern Runtime rt;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// The application thread polls done() until it holds, serving the requests
// other ranks sent this one between polls (each(served, polls) after each
// poll: whether one was served, the polls so far): LOOM_SPIN polls that
// keep the core (at most LOOM_SPIN x 50 ns: spin.hpp), then a yield on
// every poll, or naps where the cores are taken (IdlePace), so that runs
// with more ranks than cores make progress.  Loom's own waits
// (spin_until) and the program's blocking MPI calls (intercept.cpp) wait
// so.
template <class F, class G>
inline void poll_serving(F&& done, G&& each) {
  rt.tp.app_waits(true);
  SpinPhase phase(rt.cfg.spin);
  IdlePace pace(rt.tp.cores_taken());
  for (int polls = 0; !done();) {
    const bool served = rt.tp.serve_while_waiting();
    if (phase.keep()) cpu_relax();
    else pace.idle([] { rt.tp.heed_reads(); });
    each(served, ++polls);
  }
  rt.tp.app_waits(false);
}

// Wait until done() holds (poll_serving).  The waiting time is accounted
// as polling; the watchdog looks in every 256 polls (watchdog.hpp).
template <class F>
inline void spin_until(F&& done) {
  if (done()) return;
  double t0 = stat_now();
  const double started = now();
  poll_serving(done, [started](bool, int polls) {
    if ((polls & 255) == 0) watchdog_poll(started);
  });
  rt.st.s.t_poll += stat_now() - t0;
}

// spin_until for a caller that holds the rank lock (threads.hpp), which
// gives the lock up between polls so that the rank's other threads fault
// and call Loom meanwhile; done() runs under the lock, which is held again
// on return.
template <class F>
inline void spin_until_unlocked(F&& done) {
  if (done()) return;
  const int depth = rank_lock_release_all();
  double t0 = stat_now();
  rt.tp.app_waits(true);
  const double started = now();
  SpinPhase phase(rt.cfg.spin);
  IdlePace pace(rt.tp.cores_taken());
  for (int spins = 0;;) {
    ++spins;
    if (phase.keep()) cpu_relax();
    else pace.idle([] { rt.tp.heed_reads(); });
    // A poll touches no page: it leaves the fetches other threads make
    // without the lock alone, and the wait's end dooms them (threads.hpp).
    rank_lock_retake_quiet(depth);
    rt.tp.serve_while_waiting();
    if (done()) break;
    if ((spins & 255) == 0) watchdog_poll(started);
    rank_lock_release_all();
  }
  if (depth > 0) fetch_doom();
  rt.tp.app_waits(false);
  rt.st.s.t_poll += stat_now() - t0;
}

}  // namespace loom
