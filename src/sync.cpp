// Barrier and locks built on one-sided atomics, with no central spinning.
//
// Barrier: dissemination (ceil(log2 N) rounds).  In round k rank i stores the
// barrier epoch into flag k of rank i+2^k and waits for its own flag k to
// reach the epoch.  Every flag has exactly one writer per round and epochs
// only grow, so "flag >= epoch" is never confused by a partner that is
// already one barrier ahead.  Direct peers: a store and a local load, no
// system call.  When a peer is reached through MPI (another host, or
// LOOM_LOCAL_MAP=0, or the async transport) the barrier is the MPI library's
// own non-blocking barrier instead, waited for like every Loom wait (spin,
// then yield): a dissemination round over MPI atomics is an atomic store
// (a round trip) plus polls of the rank's own flag through MPI, and across
// two emulated hosts that made a barrier with nothing dirty cost 82-95 us
// against MPI_Barrier's 18-20 us.
//
// Locks: MCS queue locks (FIFO, so fair), which hand the next holder the
// release it acquires from (intervals.hpp).  The tail of lock l lives on rank
// l mod N (its home); every rank has a queue node {next, locked} per lock in
// its own Meta segment and spins only on its own `locked`.  Queue entries are
// rank+1 (0 means none).  Where a peer is reached by requests (async, auto
// across hosts) the links live at the home instead (Meta `links`: a word
// per rank per lock it hosts), so that the home can do the queue's work:
// enqueueing is one request (swap the tail, link behind the last), and an
// unlock is a message the unlocker does not wait for — the home empties the
// tail or hands the lock to the linked successor.  Two round trips to the
// home per lock and unlock become one (rma, and every peer mapped, keep the
// classic form: its links are stores to the predecessor's own node).
//
// Kept locks (homes reached by requests only): an unlock that knows of no
// rank behind it does not leave the queue; the rank keeps its place, with
// the hand-over value it would have passed on, and its next loom_lock of
// the lock takes it again with no message (the data release was done at
// the unlock; nothing to acquire from itself).  A rank that queues behind
// it, or whose trylock finds it the tail, kicks it (a message to its
// serving thread): a kept lock is then given up from there, a held or
// awaited one is released for real at its unlock.  A barrier gives up every
// kept lock first, so that a lock unlocked before a barrier is free after
// it.  These are the raw mechanisms; the memory actions (release before,
// acquire after) are in api.cpp.
#include "sync.hpp"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>

#include "protocol/protocol.hpp"
#include "runtime.hpp"

namespace loom {
namespace {

uint64_t tail_off(uint32_t id) { return rt.meta.tails + (uint64_t)(id / (uint32_t)rt.nranks) * 8; }
int tail_rank(uint32_t id) { return (int)(id % (uint32_t)rt.nranks); }
uint64_t next_off(uint32_t id) { return rt.meta.qnodes + (uint64_t)id * 16; }
uint64_t locked_off(uint32_t id) { return next_off(id) + 8; }
// The links of lock id at its home: the word of rank r names r's successor.
uint64_t links_off(uint32_t id) { return rt.meta.links + (uint64_t)(id / (uint32_t)rt.nranks) * rt.nranks * 8; }
// A tail word's low bits: the last queued rank + 1 (kMaxRanks fits).
constexpr int kQueueBits = kLockQueueBits;
constexpr uint64_t kQueueMask = kLockQueueMask;
static_assert(kMaxRanks < (1 << kQueueBits) && kIvlInfoBits + kQueueBits <= 64, "the tail word's fields");

// A lock's keep word (SyncState::kept): kKept | value << kKeepShift while
// this rank keeps the lock unheld; kSucc once a kick said a rank waits
// behind this one (the next unlock leaves the queue); kBusy while a thread
// gives the kept lock up; kGone after the serving thread or a barrier gave
// it up (in_queue is stale: the next taker clears both).
constexpr uint64_t kKept = 1, kSucc = 2, kBusy = 4, kGone = 8;
constexpr int kKeepShift = 4;
constexpr int kCoolMaxExp = 6;  // after wasted keeps in a row, up to 64 unlocks keep nothing
static_assert(kIvlInfoBits + kKeepShift <= 64, "the keep word's fields");

uint64_t* keep_word(uint32_t id) { return id < rt.sync.kept.size() ? &rt.sync.kept[id] : nullptr; }

// Give up a lock this rank keeps: the release its unlock skipped, from the
// serving thread (a kick) or the application thread (a barrier).
void give_up(uint32_t id, uint64_t info, bool serving) {
  const uint64_t me = (uint64_t)rt.rank + 1;
  if (serving)
    rt.tp.lock_release_served(tail_rank(id), tail_off(id), links_off(id), me, info << kQueueBits, locked_off(id),
                              info << 1);
  else
    rt.tp.lock_release(tail_rank(id), tail_off(id), links_off(id), me, info << kQueueBits, locked_off(id), info << 1);
}

// This rank may keep lock id (its home is reached by requests).
bool keepable(uint32_t id) {
  return id < rt.sync.kept.size() && rt.tp.locks_at_home() && rt.tp.lock_home_by_request(tail_rank(id));
}

// Tell the rank a lock's tail named (pred = its rank + 1) that this rank
// queued behind it or wants the lock: it may keep it (not the lock's home,
// which never keeps its own locks).
void kick(uint32_t id, uint64_t pred) {
  const int r = (int)pred - 1;
  if (id < rt.sync.kept.size() && pred && r != rt.rank && r != tail_rank(id)) rt.tp.lock_kick(r, id);
}

// If *w (lock id's keep word, read as v) says kept, take it (kBusy), give
// the lock up and leave kGone: true.  False if v is not kept (v then holds
// the word as read; a failed CAS reads again).  `serving`: from the kick
// handler, where a keep given up before any re-take cools the lock off.
bool give_up_kept(uint32_t id, uint64_t* w, uint64_t& v, bool serving) {
  for (;;) {
    if (!(v & kKept)) return false;
    if (__atomic_compare_exchange_n(w, &v, kBusy, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) break;
  }
  give_up(id, v >> kKeepShift, serving);
  SyncState& sy = rt.sync;
  // A barrier's give-up is no waste; a kick's before any re-take is.
  if (!__atomic_exchange_n(&sy.useful[id], 0, __ATOMIC_RELAXED) && serving) {
    const uint8_t b = (uint8_t)std::min(__atomic_load_n(&sy.backoff[id], __ATOMIC_RELAXED) + 1, kCoolMaxExp);
    __atomic_store_n(&sy.backoff[id], b, __ATOMIC_RELAXED);
    __atomic_store_n(&sy.cool[id], (uint8_t)(1u << b), __ATOMIC_RELAXED);
  }
  __atomic_store_n(w, kGone, __ATOMIC_RELEASE);
  return true;
}

}  // namespace

void sync_kicked(uint64_t id) {
  uint64_t* w = id < rt.sync.kept.size() ? &rt.sync.kept[id] : nullptr;
  if (!w) return;
  uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
  for (;;) {
    if (give_up_kept((uint32_t)id, w, v, true)) return;
    if (v) return;  // a successor known already, or being given up, or gone
    if (__atomic_compare_exchange_n(w, &v, kSucc, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return;
  }
}

bool sync_keep(uint32_t id, uint64_t info) {
  if (!keepable(id)) return false;
  uint64_t* w = keep_word(id);
  SyncState& sy = rt.sync;
  if (const uint8_t c = __atomic_load_n(&sy.cool[id], __ATOMIC_RELAXED)) {
    __atomic_store_n(&sy.cool[id], (uint8_t)(c - 1), __ATOMIC_RELAXED);
    __atomic_store_n(w, 0, __ATOMIC_RELEASE);  // and forget a kSucc: this unlock leaves the queue
    return false;
  }
  uint64_t v = 0;
  if (__atomic_compare_exchange_n(w, &v, kKept | info << kKeepShift, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    if (!rt.sync.listed[id]) {
      rt.sync.listed[id] = 1;
      rt.sync.kept_ids.push_back(id);
    }
    return true;
  }
  __atomic_store_n(w, 0, __ATOMIC_RELEASE);  // kSucc: leave the queue (a later kick may set it again: harmless)
  return false;
}

bool sync_take_kept(uint32_t id) {
  uint64_t* w = keep_word(id);
  if (!w) return false;
  uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
  for (;;) {
    if (v & kKept) {
      if (__atomic_compare_exchange_n(w, &v, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&rt.sync.useful[id], 1, __ATOMIC_RELAXED);
        __atomic_store_n(&rt.sync.backoff[id], 0, __ATOMIC_RELAXED);
        return true;
      }
      continue;
    }
    if (v & kBusy) {  // the serving thread gives it up right now: a send
      sched_yield();
      v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
      continue;
    }
    if (v == kGone) {
      __atomic_store_n(&rt.sync.in_queue[id], 0, __ATOMIC_RELAXED);
      __atomic_store_n(w, 0, __ATOMIC_RELEASE);
    }
    return false;
  }
}

bool sync_lock_kept(uint32_t id) {
  const uint64_t* w = keep_word(id);
  return w && (__atomic_load_n(w, __ATOMIC_ACQUIRE) & (kKept | kBusy | kGone));
}

void sync_give_up_kept() {
  SyncState& sy = rt.sync;
  for (uint32_t id : sy.kept_ids) {
    uint64_t* w = &sy.kept[id];
    uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    for (;;) {
      if (give_up_kept(id, w, v, false) || !(v & kBusy)) break;
      sched_yield();  // the serving thread gives it up: its send completes before the settle
      v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    }
    sy.listed[id] = 0;
  }
  sy.kept_ids.clear();
}

namespace {

// The dissemination barrier over mapped peers, OR-ing `bits` (< 256) across
// the ranks on the way: round k's value is (epoch << 8) | the bits this rank
// has seen so far, and after ceil(log2 N) rounds every rank has heard,
// directly or through others, from every rank.  Epochs alternate between two
// banks of flags (k and 32 + k): a partner may finish this barrier and store
// the next one's value before this rank has read its flag, but it cannot
// reach the one after without this rank, so a bank is never overwritten
// before it is read.
unsigned dissemination(unsigned bits) {
  const int N = rt.nranks;
  Transport& tp = rt.tp;
  const uint64_t e = ++rt.sync.barrier_epoch, bank = (e & 1) * 32;
  uint64_t acc = bits & 0xff;
  for (int k = 0, d = 1; d < N; k++, d <<= 1) {
    const uint64_t off = rt.meta.barrier + (bank + (uint64_t)k) * 8;
    tp.store((rt.rank + d) % N, Seg::Meta, off, e << 8 | acc);
    wait_site("a barrier", -1, (rt.rank - d + N) % N);
    uint64_t v = 0;
    spin_until([&] { return (v = tp.load(rt.rank, Seg::Meta, off)) >= e << 8; });
    acc |= v & 0xff;
  }
  return (unsigned)acc;
}

}  // namespace

void sync_barrier_raw() {
  if (rt.nranks == 1) return;
  Transport& tp = rt.tp;
  if (!tp.all_direct()) {
    sync_give_up_kept();
    tp.settle_lock_releases();
    MPI_Request rq;
    tp.ibarrier(&rq);
    wait_site("a barrier (MPI_Ibarrier)");
    spin_until([&] { return tp.test(&rq); });
    return;
  }
  dissemination(0);
}

unsigned sync_barrier_or(unsigned mine) {
  Transport& tp = rt.tp;
  if (rt.nranks == 1) return mine;
  if (tp.all_direct()) return dissemination(mine);
  sync_give_up_kept();
  tp.settle_lock_releases();
  MPI_Request rq;
  int in = (int)mine, out = 0;
  tp.iallreduce_or(&in, &out, &rq);
  wait_site("a barrier (MPI_Iallreduce)");
  spin_until([&] { return tp.test(&rq); });
  return (unsigned)out;
}

namespace {
// The agreement by rows (sync_barrier_or_asks in a job of 2 ranks): each
// rank sends its words to the other and sums.  The last rank to arrive
// finds the other's words there and needs no more messages; in MPICH's
// MPI_Iallreduce of the same words it still waited 19 us on average (MG
// across 2 emulated hosts on 2 cores), about a round trip.  An empty
// barrier across 2 hosts went from 1.16x MPI_Barrier to 1.00x (medians of
// 9 runs; docs/BENCHMARKS.md, "The barrier's agreement by rows").  With 4
// ranks (N - 1 messages a rank) it cost more than it gave, 16 cores and 2
// alike, so more ranks keep the collective.  A send is waited for only
// when its buffer is used again, two barriers later (a rank is never more
// than one barrier ahead of another, so tags by parity keep the barriers'
// rows apart).
struct Rows {
  std::vector<int> sent_words[2];
  MPI_Request sent[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  std::vector<int> got;
  uint64_t seq = 0;
  MPI_Request pre = MPI_REQUEST_NULL;  // the next row's receive (sync_rows_prepost)
};
Rows& rows_state() {
  static Rows& x = *new Rows();  // never destroyed: see runtime.hpp
  return x;
}
constexpr int kTagRows = 0x4c56;  // and 0x4c57 (by parity)

void agree_by_rows(const std::vector<int>& in, std::vector<int>& out, RowPages* pg) {
  Transport& tp = rt.tp;
  Rows& x = rows_state();
  const int peer = 1 - rt.rank, n = (int)in.size(), par = (int)(x.seq++ & 1);
  spin_until([&] { return tp.test_all(&x.sent[par], 1); });  // (a null request is complete)
  x.sent_words[par] = in;
  x.got.resize((size_t)n);
  MPI_Request recv = x.pre;
  x.pre = MPI_REQUEST_NULL;
  const size_t bytes = (size_t)n * sizeof(int);
  if (recv == MPI_REQUEST_NULL) tp.irecv(peer, kTagRows + par, x.got.data(), bytes, &recv);
  const bool with_pages = pg && pg->send_n;
  if (with_pages)
    tp.isend_words_runs(peer, kTagRows + par, x.sent_words[par].data(), bytes, pg->send_off, pg->send_len, pg->send_n,
                        &x.sent[par]);
  else
    tp.isend(peer, kTagRows + par, x.sent_words[par].data(), bytes, &x.sent[par]);
  wait_site("a barrier (the other rank's words)");
  size_t came = 0;
  spin_until([&] { return tp.test_bytes(&recv, &came); });
  if (came < bytes) fatal("a barrier's row from rank %d: %zu bytes, not %zu", peer, came, bytes);
  if (pg) pg->recv_full = came > bytes;
  // Pages sent are the program's memory: the send ends before the barrier does.
  if (with_pages) spin_until([&] { return tp.test_all(&x.sent[par], 1); });
  out = in;
  for (int i = 0; i < n; i++) out[(size_t)i] += x.got[(size_t)i];
}
}  // namespace

bool sync_rows_prepost(uint8_t* into, size_t bytes) {
  Rows& x = rows_state();
  if (rt.nranks != 2 || x.got.empty() || x.pre != MPI_REQUEST_NULL) return false;
  const int peer = 1 - rt.rank, par = (int)(x.seq & 1);
  const size_t words = x.got.size() * sizeof(int);
  if (bytes) {
    const uint64_t off = 0, len = bytes;
    rt.tp.irecv_words_runs(peer, kTagRows + par, x.got.data(), words, &off, &len, 1, into, &x.pre);
  } else {
    rt.tp.irecv(peer, kTagRows + par, x.got.data(), words, &x.pre);
  }
  return true;
}

void sync_agree_stop() {
  Rows& x = rows_state();
  rt.tp.cancel(&x.pre);
  for (MPI_Request& rq : x.sent) spin_until([&] { return rt.tp.test_all(&rq, 1); });
  x.seq = 0;
}

bool sync_barrier_by_rows() { return rt.nranks == 2 && proto_push_used(); }

namespace {
// The rows' last word: the put batches this rank has sent the other, as
// 30 bits (the sum of two stays an int).  The other waits, before its
// agreement ends, until it has applied as many from this rank (its own
// serving thread, or its wait serving): a barrier's diffs travel without
// the round trip of their acknowledgement before the agreement, and the
// home's pages hold them before it leaves.  The writer's own later reads
// of the home by MPI_Get wait for the acknowledgement first
// (Transport::get); its requests to the home come after the batches in
// order.  With 2 ranks there is no third rank that could read the home
// before it has applied them.
constexpr uint32_t kLateMask = (1u << 30) - 1;

void wait_rows_batches(uint32_t theirs) {
  const int peer = 1 - rt.rank;
  auto applied = [&] { return ((rt.tp.late_applied(peer) - theirs) & kLateMask) < (kLateMask >> 1); };
  if (applied()) return;
  wait_site("a barrier (the other rank's diffs)");
  spin_until(applied);
}
}  // namespace

unsigned sync_barrier_or_asks(unsigned mine, const int* asks, int* asked, const int* kept, int* kept_in,
                              RowPages* pages) {
  Transport& tp = rt.tp;
  LOOM_ASSERT(!tp.all_direct() && mine < 256);
  sync_give_up_kept();
  tp.settle_lock_releases();
  // Word b < 8 counts the ranks that passed bit b; then the ask counts.
  static std::vector<int>& in = *new std::vector<int>();   // never destroyed: see runtime.hpp
  static std::vector<int>& out = *new std::vector<int>();  // (the same)
  // Then, with kept asks, a row of nranks ints a rank: only rank r writes
  // row r, so the sum is each row as its rank wrote it.
  const int N = rt.nranks;
  const int n = 8 + N + (kept ? N * N : 0) + (N == 2 ? 1 : 0);
  in.assign((size_t)n, 0);
  out.assign((size_t)n, 0);
  for (int b = 0; b < 8; b++) in[(size_t)b] = (int)((mine >> b) & 1);
  std::copy(asks, asks + N, in.begin() + 8);
  if (kept) std::copy(kept, kept + N, in.begin() + 8 + N + (ptrdiff_t)rt.rank * N);
  if (N == 2) {
    const int mine_sent = (int)(tp.late_count(1 - rt.rank) & kLateMask);
    in[(size_t)n - 1] = mine_sent;
    agree_by_rows(in, out, pages);
    wait_rows_batches((uint32_t)(out[(size_t)n - 1] - mine_sent));
  } else {
    MPI_Request rq;
    tp.iallreduce_sum(in.data(), out.data(), n, &rq);
    wait_site("a barrier (MPI_Iallreduce)");
    spin_until([&] { return tp.test(&rq); });
  }
  *asked = out[(size_t)(8 + rt.rank)];
  if (kept && kept_in)
    for (int r = 0; r < N; r++) kept_in[r] = out[(size_t)(8 + N + r * N + rt.rank)];
  unsigned any = 0;
  for (int b = 0; b < 8; b++) any |= out[(size_t)b] ? 1u << b : 0u;
  return any;
}

// The tail word is (hand-over value << 16) | (last queued rank + 1): the
// low 16 bits 0 mean free, and then the rest is what the last holder left.  A
// waiter's `locked` word is 1 until its predecessor stores the hand-over
// value << 1 there.
uint64_t sync_lock_raw(uint32_t id) {
  Transport& tp = rt.tp;
  const uint64_t me = (uint64_t)rt.rank + 1;
  const bool at_home = tp.locks_at_home();
  if (!at_home) tp.store(rt.rank, Seg::Meta, next_off(id), 0);
  tp.store(rt.rank, Seg::Meta, locked_off(id), 1);
  const uint64_t old = at_home ? tp.lock_enqueue(tail_rank(id), tail_off(id), links_off(id), me)
                               : tp.swap(tail_rank(id), Seg::Meta, tail_off(id), me);
  const uint64_t pred = old & kQueueMask;
  if (pred == 0) return old >> kQueueBits;
  if (!at_home) tp.store((int)pred - 1, Seg::Meta, next_off(id), me);
  else kick(id, pred);  // it may keep the lock: it must leave the queue
  wait_site(id == rt.heap_lock ? "the heap lock (loom_alloc, loom_free)" : "loom_lock", id == rt.heap_lock ? -1 : id,
            (int)pred - 1);
  uint64_t v = 1;
  auto handed = [&] { return (v = tp.load(rt.rank, Seg::Meta, locked_off(id))) != 1; };
  // A program's lock may be held long, and its holder may wait for what
  // another thread of this rank does: the others keep the rank meanwhile.
  // The heap lock's holder waits for nobody, and heap calls hold the rank.
  if (id == rt.heap_lock) spin_until(handed);
  else spin_until_unlocked(handed);
  return v >> 1;
}

// The lock if it is free: the queue is empty exactly when the tail's low
// 16 bits are 0, so one CAS of the tail from the value read to this rank either
// makes it the holder with no predecessor (its node's next cleared first,
// for a successor to link into) or changes nothing.  A failed attempt leaves
// no queue entry: only this rank's own node, unused while it neither holds
// nor waits, was written.
bool sync_trylock_raw(uint32_t id, uint64_t* info) {
  Transport& tp = rt.tp;
  const uint64_t me = (uint64_t)rt.rank + 1;
  tp.store(rt.rank, Seg::Meta, next_off(id), 0);
  uint64_t seen = 0;
  for (int tries = 0; tries < 2; tries++) {  // the tail as last left, then as read
    if (seen & kQueueMask) {
      // A rank that keeps the lock unheld gives it up on the kick, so
      // that a trylock repeated later succeeds.
      if (tp.locks_at_home()) kick(id, seen & kQueueMask);
      return false;
    }
    const uint64_t was = tp.cas(tail_rank(id), Seg::Meta, tail_off(id), seen, me);
    if (was == seen) {
      *info = seen >> kQueueBits;
      return true;
    }
    seen = was;
  }
  return false;
}

bool sync_lock_successor(uint32_t id) {
  // A lock this rank may keep: every rank that queues behind this one
  // kicks it (the kick may be late: then the answer is no, which only hands
  // the lock to one more sibling).  Others: the link at the home.
  if (rt.tp.locks_at_home()) {
    if (keepable(id)) return (__atomic_load_n(keep_word(id), __ATOMIC_ACQUIRE) & kSucc) != 0;
    return rt.tp.load(tail_rank(id), Seg::Meta, links_off(id) + (uint64_t)rt.rank * 8) != 0;
  }
  return rt.tp.load(rt.rank, Seg::Meta, next_off(id)) != 0;
}

void sync_unlock_raw(uint32_t id, uint64_t info) {
  Transport& tp = rt.tp;
  const uint64_t me = (uint64_t)rt.rank + 1;
  LOOM_ASSERT(info < 1ull << kIvlInfoBits);
  if (tp.locks_at_home()) {
    tp.lock_release(tail_rank(id), tail_off(id), links_off(id), me, info << kQueueBits, locked_off(id), info << 1);
    return;
  }
  uint64_t next = tp.load(rt.rank, Seg::Meta, next_off(id));
  if (next == 0) {
    if (tp.cas(tail_rank(id), Seg::Meta, tail_off(id), me, info << kQueueBits) == me) return;  // no successor
    wait_site("loom_unlock (for the next rank in the lock's queue)", id);
    spin_until([&] { return (next = tp.load(rt.rank, Seg::Meta, next_off(id))) != 0; });
  }
  tp.store((int)next - 1, Seg::Meta, locked_off(id), info << 1);
}

// ---- Host locks (every rank on one host, pages shared) --------------------
//
// With pages shared from their homes (LOOM_HOST_SHARE) a lock carries
// nothing from holder to holder (no interval records) and every rank maps
// every other's Meta, so a Loom lock is what a process-shared mutex is: a
// futex word in its home's Meta, the low half of the lock's tail word (which
// the MCS queue does not use then), 0 free, 1 held, 2 held with sleepers.
// Every thread of every rank takes it alike: no rank lock, no queue, one
// atomic to take it and one to give it.  A waiter spins LOOM_SPIN polls,
// then sleeps in the kernel (FUTEX_WAIT on the shared mapping: the kernel
// keys the word by the memfd's page, the same for every rank), waking every
// 20 ms for the watchdog.  The high half names the holder (rank + 1), for
// the watchdog's report.  Unfair, as a mutex is; the queue's FIFO order
// bought nothing where a hand-over costs a cache line.

namespace {

uint32_t* host_word(uint32_t id) {
  uint32_t** at = &rt.sync.host_words[id];
  uint32_t* w = __atomic_load_n(at, __ATOMIC_RELAXED);
  if (w) return w;
  uint8_t* m = rt.tp.mapped_meta(tail_rank(id));
  LOOM_ASSERT(m);
  w = reinterpret_cast<uint32_t*>(m + tail_off(id));
  __atomic_store_n(at, w, __ATOMIC_RELAXED);
  return w;
}

void host_taken(uint32_t* w) { __atomic_store_n(w + 1, (uint32_t)rt.rank + 1, __ATOMIC_RELAXED); }

}  // namespace

void sync_host_locks_start() {
  bool all = rt.shared;
  for (int r = 0; all && r < rt.nranks; r++) all = rt.tp.mapped_meta(r) != nullptr;
  rt.sync.host_locks = all;
}

double sync_host_lock(uint32_t id) {
  uint32_t* w = host_word(id);
  uint32_t c = 0;
  if (__atomic_compare_exchange_n(w, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
    host_taken(w);
    return 0;
  }
  const double t0 = stat_now(), started = now();
  for (int spins = 0; spins < rt.cfg.spin; spins++) {
    cpu_relax();
    c = 0;
    if (__atomic_load_n(w, __ATOMIC_RELAXED) == 0 &&
        __atomic_compare_exchange_n(w, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
      host_taken(w);
      return stat_now() - t0;
    }
  }
  {
    RankHold hold;  // (the wait site and the watchdog's state are the rank's)
    wait_site("loom_lock", id, (int)__atomic_load_n(w + 1, __ATOMIC_RELAXED) - 1);
  }
  // Marked 2 from here: the holder's unlock wakes a sleeper.  A take by
  // the exchange leaves 2 as well (another may sleep still): the next
  // unlock's wake is then spent on nobody, as a mutex's is.
  while (__atomic_exchange_n(w, 2u, __ATOMIC_ACQUIRE) != 0) {
    const timespec ts{0, 20 * 1000 * 1000};
    syscall(SYS_futex, w, FUTEX_WAIT, 2, &ts, nullptr, 0);
    RankHold hold;
    watchdog_poll(started);
  }
  host_taken(w);
  const double waited = stat_now() - t0;
  RankHold hold;
  rt.st.s.t_poll += waited;
  return waited;
}

bool sync_host_trylock(uint32_t id) {
  uint32_t* w = host_word(id);
  uint32_t c = 0;
  if (!__atomic_compare_exchange_n(w, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return false;
  host_taken(w);
  return true;
}

void sync_host_unlock(uint32_t id) {
  uint32_t* w = host_word(id);
  if (__atomic_exchange_n(w, 0u, __ATOMIC_RELEASE) == 2) syscall(SYS_futex, w, FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

// A split-phase barrier of every rank across hosts is the MPI library's
// non-blocking allgather of each rank's interval head (on a communicator of
// its own, so that the collectives of other Loom calls between arrive and
// wait do not cross it): the wait's acquire then has every rank's head
// without loading them, a round trip to each host, served by ranks that
// may have left the barrier already.  Every member decides alike (the whole
// job listed, and some peer beyond this host's mappings), so a barrier's
// members never mix the two ways.  On one host the signals are plain
// stores and the heads plain loads.
namespace {
MPI_Request split_rq = MPI_REQUEST_NULL;
uint64_t split_head = 0;
// The heads a barrier's wait hands to its acquire (ivl_heads_given): the
// allgather's for a split barrier of every rank across hosts (written by
// the MPI library between arrive and wait), the most of the members'
// knowledge for a subset.  One buffer: a rank has one split barrier
// pending at a time, and a subset's wait fills it only after its own
// arrive, which no allgather is in flight across.
std::vector<uint64_t>& given_heads() {
  static std::vector<uint64_t>& x = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  x.resize((size_t)rt.nranks);
  return x;
}
bool split_by_mpi(int n) { return n == rt.nranks && !rt.tp.all_direct(); }

// A group barrier of a subset across hosts hands each other member this
// rank's knowledge (ivl_knowledge) with its signal (signal_words: in the
// signal's own message on the request path), into the member's slot for
// this rank and the barrier's parity; the member's wait takes the most of
// its members' and acquires that instead of loading every rank's head, a
// round trip to each other host (members or not).  One host whose ranks
// all map each other loads the heads: plain loads.  Above kKnowRanksMax
// ranks there are no slots, and the wait loads the heads too.
bool hands_knowledge() { return rt.ivl.on && !rt.tp.all_direct() && know_area_bytes(rt.nranks) > 0; }
uint64_t know_slot(int from, uint64_t count) {
  return rt.meta.know + ((count & 1) * (uint64_t)rt.nranks + (uint64_t)from) * (uint64_t)rt.nranks * 8;
}
std::vector<uint64_t>& know_mine() {
  static std::vector<uint64_t>& x = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  x.resize((size_t)rt.nranks);
  return x;
}
}  // namespace

void sync_group_arrive(const int* ranks, int n) {
  sync_give_up_kept();
  rt.tp.settle_lock_releases();
  if (split_by_mpi(n)) {
    split_head = ivl_head();  // after the arrive's release and its record
    std::vector<uint64_t>& heads = given_heads();
    std::fill(heads.begin(), heads.end(), 0);
    rt.tp.iallgather_split(&split_head, heads.data(), &split_rq);
    return;
  }
  const bool hand = hands_knowledge();
  if (hand) ivl_knowledge(know_mine().data());
  for (int i = 0; i < n; i++) {
    int j = ranks[i];
    if (j == rt.rank) continue;
    uint64_t c = ++rt.sync.pair_count[j];
    const uint64_t off = rt.meta.barrier + pair_word(rt.rank) * 8;
    if (hand) rt.tp.signal_words(j, off, c, know_slot(rt.rank, c), know_mine().data(), (size_t)rt.nranks);
    else rt.tp.signal(j, off, c);
  }
}

void sync_group_wait(const int* ranks, int n) {
  Transport& tp = rt.tp;
  if (split_by_mpi(n)) {
    wait_site("a split-phase barrier of every rank (MPI_Iallgather)");
    spin_until([&] { return tp.test(&split_rq); });
    ivl_heads_given(given_heads().data());  // for the acquire that follows
    return;
  }
  for (int i = 0; i < n; i++) {
    int j = ranks[i];
    if (j == rt.rank) continue;
    const uint64_t off = rt.meta.barrier + pair_word(j) * 8, want = rt.sync.pair_count[j];
    wait_site("a group barrier (loom_barrier_wait, loom_barrier_subset)", -1, j);
    spin_until([&] { return tp.load(rt.rank, Seg::Meta, off) >= want; });
  }
  if (!hands_knowledge()) return;
  // Every member's knowledge at its arrive (its slot of this barrier's
  // parity: a member that left this barrier can be at its next arrive by
  // now, but not at the one after, which waits for this rank's next
  // arrive), the most of each rank's taken.
  std::vector<uint64_t>& heads = given_heads();
  std::vector<uint64_t>& theirs = know_mine();
  std::fill(heads.begin(), heads.end(), 0);
  for (int i = 0; i < n; i++) {
    const int j = ranks[i];
    if (j == rt.rank) continue;
    tp.get(rt.rank, Seg::Meta, know_slot(j, rt.sync.pair_count[j]), theirs.data(), (size_t)rt.nranks * 8);
    for (int m = 0; m < rt.nranks; m++) heads[m] = std::max(heads[m], theirs[m]);
  }
  ivl_heads_given(heads.data());  // for the acquire that follows
}

}  // namespace loom
