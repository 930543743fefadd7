// Application threads of one rank: the rank lock, per-thread statistics and
// the all-threads barrier (threads.hpp).
#include "threads.hpp"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <vector>

#include "runtime.hpp"

namespace loom {
namespace {

// Initial-exec TLS: the fault handler reads it without a call into the
// dynamic loader.
struct ThreadState {
  int tid = 0;
  int index = 0;           // 1 + this thread's number in its rank, in the order threads first took the lock
  bool internal = false;   // one of Loom's own threads
  bool counting = false;   // keeps its own share (a second thread has taken the lock)
  bool quiet = false;      // takes the rank lock quietly (QuietHold, rank_lock_retake_quiet)
  uint64_t stats_gen = 0;  // the rank's reset generation `mine` counts from
  loom_stats_t at_take{};  // the rank's counters when this thread took the lock
  loom_stats_t mine{};     // this thread's share
  // Loom lock operations this thread made without the rank lock
  // (stats_side_lock): its block, made at its first.
  struct SideStats* side = nullptr;
};
__attribute__((tls_model("initial-exec"))) thread_local ThreadState t_self;

// 0 free, 1 held, 2 held and a thread may sleep on it (the classic futex
// mutex); the owner and depth make it recursive.
std::atomic<int> g_word{0};
std::atomic<int> g_owner{0};
int g_depth = 0;  // read and written by the owner only
std::atomic<uint64_t> g_stats_gen{1};
// Until a second thread takes the rank lock, the rank's counters are the one
// thread's, and nothing is kept per thread (a single-threaded program pays
// one load per take and give).  When the second comes, the first thread's
// share so far is the rank's counters then.
int g_first_tid = 0;
int g_threads_seen = 0;  // under the rank lock
std::atomic<bool> g_multi{false};
// stats_side_lock's counts, kept apart from rt.st so that no thread's share
// of rt.st includes them: a block per thread, written by that thread alone
// (plain stores to atomics: no locked instruction on a Loom lock's path),
// summed by rank_stats.  A block counts from the reset generation `gen`
// (its thread zeroes it at its first operation after a reset; until then
// the sum leaves it out).  A thread's exit folds its block into the
// retired totals, and the block serves the next new thread (blocks are
// never freed: as many as threads ever ran at once).
struct SideStats {
  std::atomic<uint64_t> gen{0};
  std::atomic<uint64_t> locks{0}, unlocks{0}, kept{0}, lock_ns{0}, unlock_ns{0};
};
std::mutex g_side_mu;
std::vector<SideStats*>& g_side_blocks = *new std::vector<SideStats*>();  // never destroyed: see runtime.hpp
std::vector<SideStats*>& g_side_free = *new std::vector<SideStats*>();    // never destroyed: see runtime.hpp
std::atomic<uint64_t> g_side_locks{0}, g_side_unlocks{0}, g_side_lock_ns{0}, g_side_unlock_ns{0}, g_side_kept{0};
pthread_key_t g_side_key;
loom_stats_t g_first_share{};
uint64_t g_first_gen = 0;
// Fetches made without the rank lock (threads.hpp): how many are out (from
// fetch_out to fetch_back), how many of their gets have not landed, the
// generation a take that dooms them moves, whether this hold doomed them
// (under the lock), and the count of fetches back that waiting faults
// sleep on.
std::atomic<int> g_fetches_out{0}, g_gets_flying{0};
std::atomic<uint64_t> g_fetch_gen{0};
bool g_hold_doomed = false;
std::atomic<int> g_fetch_seq{0}, g_fetch_sleepers{0};

long futex(std::atomic<int>* w, int op, int val) {
  return syscall(SYS_futex, reinterpret_cast<int*>(w), op | FUTEX_PRIVATE_FLAG, val, nullptr, nullptr, 0);
}

// The counters a thread is credited with: what it did, not the rank's
// gauges (pages by protocol, Meta size), which loom_stats_get fills.
#define LOOM_THREAD_U64(X)                                                                                     \
  X(read_faults) X(write_faults) X(pages_fetched) X(bytes_fetched) X(twins) X(diffs) X(diff_bytes)            \
  X(invalidations) X(barriers) X(locks) X(unlocks) X(atomics) X(migrations) X(notices) X(updates) X(prefetched) \
  X(prefetch_used) X(switched) X(scoped_acquires) X(scoped_fallbacks) X(locks_kept) X(pages_mapped)             \
  X(home_lookups) X(reads_told) X(pages_ahead) X(pages_strided) X(writer_loads) X(served_in_mpi)
#define LOOM_THREAD_F64(X) X(t_fault) X(t_barrier) X(t_lock) X(t_unlock) X(t_diff) X(t_poll) X(t_update) X(t_rank_wait)
#define LOOM_COUNT(f) +1
static_assert(sizeof(loom_stats_t) == 8 * (0 LOOM_THREAD_U64(LOOM_COUNT) LOOM_THREAD_F64(LOOM_COUNT) + 3),
              "a field of loom_stats_t is missing from the per-thread lists (or from the 3 gauges)");

void fresh_if_reset() {
  const uint64_t g = g_stats_gen.load(std::memory_order_acquire);
  if (t_self.stats_gen != g) {
    t_self.mine = loom_stats_t{};
    t_self.stats_gen = g;
  }
}

// At the outermost take and give of the lock: what the rank's counters
// gained meanwhile is this thread's.
void on_take() {
  if (!t_self.index) t_self.index = ++g_threads_seen;
  if (!g_first_tid) g_first_tid = t_self.tid;
  if (!g_multi.load(std::memory_order_relaxed)) {
    if (t_self.tid == g_first_tid) return;
    g_first_share = rt.st.s;
    g_first_gen = g_stats_gen.load(std::memory_order_relaxed);
    g_multi.store(true, std::memory_order_relaxed);
  }
  if (!t_self.counting) {
    t_self.counting = true;
    t_self.mine = t_self.tid == g_first_tid ? g_first_share : loom_stats_t{};
    t_self.stats_gen = t_self.tid == g_first_tid ? g_first_gen : g_stats_gen.load(std::memory_order_relaxed);
  }
  fresh_if_reset();
  t_self.at_take = rt.st.s;
}
void on_give() {
  if (!t_self.counting) return;
  fresh_if_reset();
  const loom_stats_t& now = rt.st.s;
  const loom_stats_t& was = t_self.at_take;
  loom_stats_t& m = t_self.mine;
  // A reset while this thread held the lock zeroed the rank's counters:
  // a counter below its value at the take counts from zero.
#define LOOM_ADD(f) m.f += now.f >= was.f ? now.f - was.f : now.f;
  LOOM_THREAD_U64(LOOM_ADD)
  LOOM_THREAD_F64(LOOM_ADD)
#undef LOOM_ADD
}

// Returns the seconds it waited (0 when the lock was free: no clock read).
double take_word() {
  int c = 0;
  if (g_word.compare_exchange_strong(c, 1, std::memory_order_acquire)) return 0;
  const double t0 = stat_now();
  for (int spins = 0; spins < 100; spins++) {  // a fault is a few microseconds: spin a little first
    cpu_relax();
    c = 0;
    if (g_word.load(std::memory_order_relaxed) == 0 && g_word.compare_exchange_strong(c, 1, std::memory_order_acquire))
      return stat_now() - t0;
  }
  if (c != 2) c = g_word.exchange(2, std::memory_order_acquire);
  while (c != 0) {
    futex(&g_word, FUTEX_WAIT, 2);
    c = g_word.exchange(2, std::memory_order_acquire);
  }
  return stat_now() - t0;
}

void give_word() {
  if (g_word.exchange(0, std::memory_order_release) == 2) futex(&g_word, FUTEX_WAKE, 1);
}

}  // namespace

void futex_wait_int(int* w, int val) { syscall(SYS_futex, w, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, val, nullptr, nullptr, 0); }
void futex_wake_int(int* w) { syscall(SYS_futex, w, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, nullptr, nullptr, 0); }

int thread_tid() {
  if (!t_self.tid) t_self.tid = (int)syscall(SYS_gettid);
  return t_self.tid;
}

void thread_mark_internal() { t_self.internal = true; }
bool thread_is_internal() { return t_self.internal; }

int thread_index() { return t_self.index ? t_self.index - 1 : 0; }

bool rank_lock_mine() { return g_owner.load(std::memory_order_relaxed) == thread_tid(); }

void rank_lock() {
  const int me = thread_tid();
  if (g_owner.load(std::memory_order_relaxed) == me) {
    g_depth++;
    return;
  }
  const double waited = take_word();
  g_owner.store(me, std::memory_order_relaxed);
  g_depth = 1;
  on_take();
  rt.st.s.t_rank_wait += waited;  // after on_take: this thread's share
  if (!t_self.quiet) fetch_doom();
}

void rank_unlock() {
  LOOM_ASSERT(rank_lock_mine() && g_depth > 0);
  if (--g_depth > 0) return;
  g_hold_doomed = false;
  on_give();
  g_owner.store(0, std::memory_order_relaxed);
  give_word();
}

int rank_lock_release_all() {
  if (!rank_lock_mine()) return 0;
  const int depth = g_depth;
  g_depth = 1;
  rank_unlock();
  return depth;
}

void rank_lock_retake(int depth) {
  if (depth <= 0) return;
  rank_lock();
  g_depth = depth;
}

void rank_lock_retake_quiet(int depth) {
  if (depth <= 0) return;
  const bool was = t_self.quiet;
  t_self.quiet = true;
  rank_lock_retake(depth);
  t_self.quiet = was;
}

int rank_lock_depth() { return rank_lock_mine() ? g_depth : 0; }

bool threads_several() { return g_multi.load(std::memory_order_relaxed); }

QuietHold::QuietHold() : was(t_self.quiet) {
  t_self.quiet = true;
  rank_lock();
}
QuietHold::~QuietHold() {
  rank_unlock();
  t_self.quiet = was;
}

uint64_t fetch_out() {
  g_fetches_out.fetch_add(1, std::memory_order_relaxed);
  g_gets_flying.fetch_add(1, std::memory_order_relaxed);
  return g_fetch_gen.load(std::memory_order_relaxed);
}

void fetch_landed() { g_gets_flying.fetch_sub(1, std::memory_order_release); }

bool fetch_back(uint64_t gen) {
  g_fetches_out.fetch_sub(1, std::memory_order_relaxed);
  g_fetch_seq.fetch_add(1);  // seq_cst with the sleeper's count and load (fetch_wait)
  if (g_fetch_sleepers.load() > 0) futex(&g_fetch_seq, FUTEX_WAKE, INT_MAX);
  return gen == g_fetch_gen.load(std::memory_order_relaxed);
}

void fetch_doom() {
  if (g_hold_doomed || g_fetches_out.load(std::memory_order_acquire) == 0) return;
  // A get out is a memcpy from a mapped peer (Transport::concurrent_get):
  // it lands without the lock.  Spin a little, then give the core away.
  for (int spins = 0; g_gets_flying.load(std::memory_order_acquire) > 0; spins++) {
    if (spins < 100) cpu_relax();
    else sched_yield();
  }
  g_fetch_gen.fetch_add(1, std::memory_order_relaxed);
  g_hold_doomed = true;
}

bool fetch_marks_live() { return !g_hold_doomed && g_fetches_out.load(std::memory_order_relaxed) > 0; }

uint32_t fetch_seq() { return (uint32_t)g_fetch_seq.load(std::memory_order_acquire); }

void fetch_wait(uint32_t seq) {
  for (int spins = 0; spins < 100; spins++) {
    if ((uint32_t)g_fetch_seq.load(std::memory_order_acquire) != seq) return;
    cpu_relax();
  }
  g_fetch_sleepers.fetch_add(1);
  while ((uint32_t)g_fetch_seq.load() == seq) futex(&g_fetch_seq, FUTEX_WAIT, (int)seq);
  g_fetch_sleepers.fetch_sub(1, std::memory_order_relaxed);
}

namespace {

void bump(std::atomic<uint64_t>& c, uint64_t by) { c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed); }

// A thread's exit: its counts (if of this generation) to the retired totals.
void side_retire(void* v) {
  SideStats* b = static_cast<SideStats*>(v);
  std::lock_guard<std::mutex> g(g_side_mu);
  if (b->gen.load(std::memory_order_acquire) == g_stats_gen.load(std::memory_order_acquire)) {
    g_side_locks.fetch_add(b->locks.load(std::memory_order_relaxed));
    g_side_unlocks.fetch_add(b->unlocks.load(std::memory_order_relaxed));
    g_side_kept.fetch_add(b->kept.load(std::memory_order_relaxed));
    g_side_lock_ns.fetch_add(b->lock_ns.load(std::memory_order_relaxed));
    g_side_unlock_ns.fetch_add(b->unlock_ns.load(std::memory_order_relaxed));
  }
  b->gen.store(0, std::memory_order_release);  // counted nowhere now
  g_side_free.push_back(b);
}

// This thread's block, zeroed if a reset came since it last counted.
SideStats& side_block() {
  SideStats* b = t_self.side;
  if (!b) {
    static std::once_flag once;
    std::call_once(once, [] { pthread_key_create(&g_side_key, side_retire); });
    std::lock_guard<std::mutex> g(g_side_mu);
    if (!g_side_free.empty()) {
      b = g_side_free.back();
      g_side_free.pop_back();
    } else {
      b = new SideStats();  // never freed: reused after its thread exits
      g_side_blocks.push_back(b);
    }
    t_self.side = b;
    pthread_setspecific(g_side_key, b);
  }
  const uint64_t g = g_stats_gen.load(std::memory_order_acquire);
  if (b->gen.load(std::memory_order_relaxed) != g) {
    for (auto* c : {&b->locks, &b->unlocks, &b->kept, &b->lock_ns, &b->unlock_ns}) c->store(0, std::memory_order_relaxed);
    b->gen.store(g, std::memory_order_release);
  }
  return *b;
}

}  // namespace

void stats_side_lock(bool unlock, double secs, bool kept) {
  SideStats& b = side_block();
  if (kept) bump(b.kept, 1);
  const uint64_t ns = secs > 0 ? (uint64_t)(secs * 1e9) : 0;
  bump(unlock ? b.unlocks : b.locks, 1);
  if (ns) bump(unlock ? b.unlock_ns : b.lock_ns, ns);
}

void rank_stats(loom_stats_t* out) {
  *out = rt.st.s;
  uint64_t locks = g_side_locks.load(), unlocks = g_side_unlocks.load(), kept = g_side_kept.load();
  uint64_t lock_ns = g_side_lock_ns.load(), unlock_ns = g_side_unlock_ns.load();
  {
    std::lock_guard<std::mutex> g(g_side_mu);
    const uint64_t gen = g_stats_gen.load(std::memory_order_acquire);
    for (const SideStats* b : g_side_blocks) {
      if (b->gen.load(std::memory_order_acquire) != gen) continue;
      locks += b->locks.load(std::memory_order_relaxed);
      unlocks += b->unlocks.load(std::memory_order_relaxed);
      kept += b->kept.load(std::memory_order_relaxed);
      lock_ns += b->lock_ns.load(std::memory_order_relaxed);
      unlock_ns += b->unlock_ns.load(std::memory_order_relaxed);
    }
  }
  out->locks += locks;
  out->locks_kept += kept;
  out->unlocks += unlocks;
  out->t_lock += (double)lock_ns * 1e-9;
  out->t_unlock += (double)unlock_ns * 1e-9;
}

void thread_stats(loom_stats_t* out) {
  if (!t_self.counting) {  // the only thread so far to take the rank lock
    *out = rt.st.s;
  } else {
    // Under the lock (the caller holds it): bring this thread's share up to now.
    on_give();
    on_take();
    *out = t_self.mine;
  }
  if (!t_self.side) return;
  const SideStats& b = side_block();
  out->locks += b.locks.load(std::memory_order_relaxed);
  out->locks_kept += b.kept.load(std::memory_order_relaxed);
  out->unlocks += b.unlocks.load(std::memory_order_relaxed);
  out->t_lock += (double)b.lock_ns.load(std::memory_order_relaxed) * 1e-9;
  out->t_unlock += (double)b.unlock_ns.load(std::memory_order_relaxed) * 1e-9;
}

void thread_stats_reset() {
  std::lock_guard<std::mutex> g(g_side_mu);  // (a thread's exit folds its block under it)
  g_stats_gen.fetch_add(1, std::memory_order_acq_rel);
  g_side_locks.store(0);
  g_side_kept.store(0);
  g_side_unlocks.store(0);
  g_side_lock_ns.store(0);
  g_side_unlock_ns.store(0);
  if (!t_self.counting) return;
  fresh_if_reset();
  t_self.at_take = rt.st.s;
}

namespace {

// The all-threads barrier's round: arrivals count up to the round's thread
// count; the last arrival runs the rank's barrier, stores the status and
// bumps the generation the others sleep on.
std::atomic<int> g_arrived{0};
std::atomic<int> g_round_n{0};
std::atomic<int> g_gen{0};
std::atomic<int> g_mismatch{0};
loom_status_t g_round_status = LOOM_OK;
char g_round_msg[512];

}  // namespace

loom_status_t thread_barrier(int nthreads, loom_status_t (*rank_barrier)()) {
  const int gen = g_gen.load(std::memory_order_acquire);
  int expect = 0;
  if (!g_round_n.compare_exchange_strong(expect, nthreads, std::memory_order_acq_rel) && expect != nthreads)
    g_mismatch.store(expect, std::memory_order_relaxed);
  const int n = g_round_n.load(std::memory_order_acquire);
  if (g_arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == n) {
    // The last of the round: the others sleep until the generation moves.
    const int other = g_mismatch.exchange(0, std::memory_order_relaxed);
    loom_status_t s;
    if (other)
      s = fail(LOOM_ERR_MISMATCH,
               "loom_thread_barrier: threads of rank %d passed different thread counts in one round (%d and %d)",
               rt.rank, n, nthreads != n ? nthreads : other)
              .code();
    else
      s = rank_barrier();
    g_round_status = s;
    if (s != LOOM_OK) std::snprintf(g_round_msg, sizeof g_round_msg, "%s", loom_last_error());
    g_arrived.store(0, std::memory_order_relaxed);
    g_round_n.store(0, std::memory_order_relaxed);
    g_gen.fetch_add(1, std::memory_order_release);
    futex(&g_gen, FUTEX_WAKE, INT_MAX);
    return s;
  }
  for (int spins = 0; g_gen.load(std::memory_order_acquire) == gen; spins++) {
    if (spins < rt.cfg.spin) cpu_relax();
    else futex(&g_gen, FUTEX_WAIT, gen);
  }
  const loom_status_t s = g_round_status;
  if (s != LOOM_OK) (void)fail(s, "%s (loom_thread_barrier: another thread of rank %d ran the rank's barrier)", g_round_msg,
                         rt.rank);
  return s;
}

}  // namespace loom
