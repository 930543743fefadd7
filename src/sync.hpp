// Synchronization without memory actions: the dissemination barrier, group
// (split-phase and subset) barriers and MCS queue locks, all over transport
// atomics on the Meta segment (sync.cpp); the API wraps them in the
// protocol's release and acquire.  The clock's ping-pong sequence lives here
// too: it is the same kind of state, a count of exchanges with peers.
// Thread safety: under the rank lock (threads.hpp), except that a lock's
// hand-over is waited for without it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom {

struct SyncState {
  // held[lock]: the thread of this rank (kernel id) that holds the lock or
  // waits in its queue, 0 none; one thread per rank at a time (api.cpp).
  std::vector<int> held;
  std::vector<int> local_waiters;    // threads of this rank waiting for held[lock] to be 0
  std::vector<int> wanting;          // threads of this rank in loom_lock for the lock, not yet holding it
  // in_queue[lock]: this rank holds the lock in its MCS queue (released to
  // the queue at the unlock that does not hand it to a sibling thread);
  // siblings[lock]: hand-overs between this rank's threads since the rank
  // took it from the queue.  Read and written by the thread in held[lock].
  std::vector<uint8_t> in_queue;
  std::vector<uint32_t> siblings;
  // Kept locks (sync.cpp): kept[lock] is the keep word (read and written by
  // this rank's threads and its serving thread, atomically); kept_ids the
  // locks kept since the last barrier, listed[lock] set while one is in it
  // (both under the rank lock).
  std::vector<uint64_t> kept;
  std::vector<uint32_t> kept_ids;
  std::vector<uint8_t> listed;
  // A keep is wasted when a kick gives the lock up before this rank took it
  // again (a lock that goes from rank to rank): the next cool[lock] unlocks
  // keep nothing, 2, 4, ... 64 after wasted keeps in a row (backoff[lock]
  // the exponent), 0 again after a keep that served (useful[lock]).  Read
  // and written by this rank's threads and its serving thread (atomics).
  std::vector<uint8_t> useful, backoff;
  std::vector<uint8_t> cool;
  uint64_t barrier_epoch = 0;
  std::vector<uint64_t> pair_count;  // group barriers entered with each peer
  std::vector<int> pending_group;    // ranks of an arrived, not yet waited, split barrier
  bool barrier_pending = false;
  uint64_t clock_seq = 0;            // clock.cpp: ping-pong sequence numbers used so far
  // Host locks (sync.cpp): in force, and each lock's word as mapped
  // here (found at its first use, atomically: any thread may).
  bool host_locks = false;
  std::vector<uint32_t*> host_words;

  void init(int nranks, uint32_t locks) {
    held.assign(locks, 0);
    local_waiters.assign(locks, 0);
    wanting.assign(locks, 0);
    in_queue.assign(locks, 0);
    siblings.assign(locks, 0);
    kept.assign(locks, 0);
    kept_ids.clear();
    listed.assign(locks, 0);
    useful.assign(locks, 0);
    backoff.assign(locks, 0);
    cool.assign(locks, 0);
    barrier_epoch = 0;
    pair_count.assign(nranks, 0);
    pending_group.clear();
    barrier_pending = false;
    host_locks = false;
    host_words.assign(locks, nullptr);
  }
};

void sync_barrier_raw();           // dissemination barrier, no memory actions
// A barrier that also returns the OR of the bits (< 256) every rank passed:
// one MPI_Iallreduce when a peer is reached through MPI, else the
// dissemination barrier carrying the bits (no extra round).
unsigned sync_barrier_or(unsigned mine);
// sync_barrier_or across hosts (some peer reached through MPI) that also
// sums, for every rank r, asks[r] over the ranks: the messages r is sent
// before the barrier (the barrier's page push, protocol/core.cpp); this
// rank's sum into *asked.  One MPI_Iallreduce of nranks + 8 ints.
// kept (or null): this rank's row of kept asks (kept[h] for each home h,
// proto_push_keeps), carried as nranks more ints a rank; *kept_in gets
// kept[me] of every rank's row.  In a job of 2 ranks the words travel as
// rows instead, each rank's to the other (sync.cpp, agree_by_rows);
// sync_agree_stop waits for the last of those sends before the transport
// stops.
// Pages that ride with the rows of a job of 2 ranks (the pushes ahead,
// protocol/core.cpp): the runs of this rank's Data sent after its words;
// recv_full says whether the other rank's message carried pages after its
// words (into the buffer sync_rows_prepost named; it may send its words
// alone).
struct RowPages {
  const uint64_t *send_off = nullptr, *send_len = nullptr;
  size_t send_n = 0;
  bool recv_full = false;
};
// At the end of a barrier in a job of 2 ranks: post the receive of the
// other rank's row at the next one, with `bytes` of pages after it into
// `into` (0: its words alone), so that it never arrives unexpected (MPICH
// over TCP took up to 30-50 us to post a receive of 27 KiB that had come).
bool sync_rows_prepost(uint8_t* into, size_t bytes);  // false: none posted
// Whether this job's full barrier agrees by rows (2 ranks, the push used):
// its release then leaves its diffs' acknowledgement for later
// (Transport::flush_late), and each row carries the put batches its rank
// has sent the other, which the other applies before the agreement ends.
bool sync_barrier_by_rows();
unsigned sync_barrier_or_asks(unsigned mine, const int* asks, int* asked, const int* kept = nullptr,
                              int* kept_in = nullptr, RowPages* pages = nullptr);
void sync_agree_stop();
// MCS queue lock, no memory actions.  Locks carry a hand-over value
// (< 2^kIvlInfoBits, intervals.hpp) from each holder to the next: lock returns what
// the last holder passed to unlock (0 if none).
uint64_t sync_lock_raw(uint32_t id);
// A rank waits behind this rank in the lock's queue (it has linked itself
// to this rank's node).  Only while this rank holds the lock.
bool sync_lock_successor(uint32_t id);
// The lock if no rank holds or waits for it (at most two CASes of the
// queue's tail); false otherwise, with the queue unchanged (the rank the
// tail names is kicked: it may keep the lock unheld).
bool sync_trylock_raw(uint32_t id, uint64_t* info);
void sync_unlock_raw(uint32_t id, uint64_t info = 0);
// Kept locks (homes reached by requests; sync.cpp has the scheme).  At an
// unlock that holds the rank lock, after the data release: keep the lock
// with the hand-over value `info` instead of leaving the queue (true), or
// not (false: leave it with sync_unlock_raw).
bool sync_keep(uint32_t id, uint64_t info);
// With held[id] this thread's, before anything else: take the lock again if
// this rank keeps it (true: no message, no acquire); otherwise false, with
// in_queue[id] cleared if the lock was given up meanwhile.
bool sync_take_kept(uint32_t id);
// This rank keeps the lock (or it was given up and in_queue is stale).
bool sync_lock_kept(uint32_t id);
// Give up every kept lock (a barrier's first step; under the rank lock).
void sync_give_up_kept();
// The kick handler (the serving thread): a rank queued behind this one in
// lock id, or its trylock found this rank the tail.
void sync_kicked(uint64_t id);
// Host locks (sync.cpp): with every rank on one host sharing pages
// (rt.shared), a Loom lock is a futex word in its home's Meta, taken by
// every thread of every rank alike, with no memory actions and no rank
// lock.  SyncState::host_locks: they are in force (sync_host_locks_start,
// at init, the same on every rank).  sync_host_lock returns the seconds it
// waited (0 when the lock was free: a take that did not wait is not timed).
void sync_host_locks_start();
double sync_host_lock(uint32_t id);
bool sync_host_trylock(uint32_t id);
void sync_host_unlock(uint32_t id);
// Group barrier in two phases (split-phase / fuzzy, and over any subset):
// arrive signals every other member, wait waits for every other member's
// signal.  Works for any subsets because each pair of ranks counts the group
// barriers they share; members must enter shared barriers in the same order.
void sync_group_arrive(const int* ranks, int n);
void sync_group_wait(const int* ranks, int n);

}  // namespace loom
