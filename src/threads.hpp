// Application threads of one rank (threads.cpp).
//
// Any thread of a rank may touch Loom memory and call Loom.  The threads
// share the rank's page table, cached copies and protocol state, and take
// turns at them under one lock per process, the rank lock: the fault
// handler holds it for a fault on Loom memory (giving it up for a get from
// a mapped peer: "Fetches made without the rank lock" below), and every API
// call for its memory actions.  So a page is fetched once however many
// threads fault on it (the others wait for that fetch, then find the page
// valid and retry the access), and a release or an acquire runs alone.
//
// The rank lock is recursive (a protocol step that touches Loom memory
// through a wrapped call may fault again) and futex-based: a thread that
// waits for it sleeps.  Waits for other ranks that may take long and that
// other threads' progress can end (the hand-over of a Loom lock) are made
// without it (spin_until_unlocked); a barrier holds it, so that the rank is
// quiescent while its release and acquire run (ArgoDSM does the same).
//
// Statistics: the rank's counters (rt.st) are bumped under the rank lock;
// each thread also keeps what happened while it held the lock, read with
// loom_thread_stats_get.  Loom lock operations that need no rank lock (a
// lock kept among the rank's threads) count apart (stats_side_lock).
// Thread safety: every function here may be called from any thread.
#pragma once
#include <cstdint>

#include "loom/loom.h"

namespace loom {

int thread_tid();         // this thread's kernel id (cached)
// Loom's own threads (the async protocol thread, the rma progress thread)
// say so when they start.  They never take the rank lock: their MPI calls
// may run a wrapped recv into Loom memory for an operation an application
// thread posted (and prepared), while that thread holds the rank lock and
// waits for the MPI library's lock they hold.
void thread_mark_internal();
bool thread_is_internal();
// This thread's number in its rank: 0, 1, ... in the order the threads
// first took the rank lock (the thread of loom_init's first calls is 0).
int thread_index();
void rank_lock();         // recursive
void rank_unlock();
bool rank_lock_mine();    // held by this thread
// Give the lock up completely (every level this thread holds) and return
// the depth held (0: not held), to take it back with rank_lock_retake.
int rank_lock_release_all();
void rank_lock_retake(int depth);

// Take it back for a wait's poll that touches no page (spin_until_unlocked):
// it dooms no fetch made without the lock (below).
void rank_lock_retake_quiet(int depth);
int rank_lock_depth();    // the levels this thread holds (0: not held)
// More than one thread has taken the rank lock so far.
bool threads_several();

// Fetches made without the rank lock (core.cpp, the fault path): a fault's
// get runs while the lock is free, so that several threads' fetches of
// different pages overlap.  The fault handler and loom_unlock take the
// lock quietly (QuietHold); every other outermost take of the lock (an API
// call, a barrier, an acquire, the hand-over wait's end) first waits for
// the gets out now to land and then dooms them (fetch_doom): their pages
// stay as they were, and their faults run again.  So nothing that changes
// pages under the lock runs while a get writes a slot, and no fetch
// publishes bytes older than an acquire or a refresh that ran meanwhile.
//   fetch_out      under the lock, before giving it up: returns the fetch's generation
//   fetch_landed   without the lock: the get is complete
//   fetch_back     under the lock again: true if the fetch may publish
//   fetch_doom     under the lock: wait for every get out to land, doom them
//                  (a no-op when none is out, or this hold doomed them)
//   fetch_marks_live  under the lock: pages marked as fetched out are
//                  fetched now (false once this hold doomed them)
//   fetch_seq, fetch_wait  a fault on a page another thread fetches waits
//                  (without the lock) until some fetch comes back
uint64_t fetch_out();
void fetch_landed();
bool fetch_back(uint64_t gen);
void fetch_doom();
bool fetch_marks_live();
uint32_t fetch_seq();
void fetch_wait(uint32_t seq);
// A hold of the rank lock whose take dooms no fetch: the fault handler's,
// and loom_unlock's (a release changes only pages this rank wrote, never
// one a fetch is bringing in).
struct QuietHold {
  QuietHold();
  ~QuietHold();
  QuietHold(const QuietHold&) = delete;
  QuietHold& operator=(const QuietHold&) = delete;
  bool was;
};

// Sleep while *w == val (a futex; may return early), and wake every sleeper.
void futex_wait_int(int* w, int val);
void futex_wake_int(int* w);

struct RankHold {
  RankHold() { rank_lock(); }
  ~RankHold() { rank_unlock(); }
  RankHold(const RankHold&) = delete;
  RankHold& operator=(const RankHold&) = delete;
};

// The calling thread's statistics since the rank's last loom_stats_reset
// (what happened while this thread held the rank lock).
void thread_stats(loom_stats_t* out);
// loom_stats_reset: every thread's statistics restart (lazily, at each
// thread's next use).
void thread_stats_reset();
// A Loom lock or unlock that ran without the rank lock (a lock kept among
// this rank's threads, api.cpp) counts here: in this thread's statistics
// and in the rank's, apart from rt.st.
void stats_side_lock(bool unlock, double secs, bool kept = false);
// The rank's statistics: rt.st.s and the lock operations counted apart.
void rank_stats(loom_stats_t* out);

// The all-threads barrier (loom_thread_barrier): nthreads threads of this
// rank meet; the last to arrive runs `rank_barrier` (the rank's Loom
// barrier) while the others sleep, and every thread returns its status.
// A count that differs from the one the first thread of the round passed
// fails with LOOM_ERR_MISMATCH in every thread of the round.
loom_status_t thread_barrier(int nthreads, loom_status_t (*rank_barrier)());

}  // namespace loom
