// The spin phase of Loom's wait loops: a wait polls without giving the core
// away for a moment, then yields it on every poll, so that runs with more
// ranks than cores make progress (several ranks share a core in the tests
// and on small machines; every emulated host shares this machine's cores).
//
// Why a time budget as well as a count: LOOM_SPIN counts polls of ~50 ns
// (a pause and a load), which is what a wait on a mapped word costs.  A
// poll that calls MPI (a test of a request, the protocol's serving) costs
// 1-2 us over TCP here, so 50 of them kept the core for 60-100 us: at 4
// emulated hosts on 2 cores an empty barrier took 128 us against 62 us
// for MPI_Barrier, 62 us with no spin at all.  So the phase ends after
// LOOM_SPIN polls or LOOM_SPIN x 50 ns, whichever comes first.
#pragma once
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace loom {

// The monotonic clock in ns (a read from the vDSO: ~20 ns).
inline int64_t spin_mono_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

class SpinPhase {
 public:
  static constexpr int64_t kPollNs = 50;  // what LOOM_SPIN's polls are counted in
  explicit SpinPhase(int spin) : left_(spin), until_(spin > 0 ? spin_mono_ns() + kPollNs * spin : 0) {}
  // Whether this poll may keep the core (else the caller yields it).
  bool keep() {
    if (left_ <= 0) return false;
    --left_;
    if (spin_mono_ns() <= until_) return true;  // (a read of the clock: ~20 ns, from the vDSO)
    left_ = 0;
    return false;
  }

 private:
  int left_;
  int64_t until_;
};

// What a wait loop does between polls once its spin phase is over.  On a
// host whose cores are all taken (more ranks share them than there are
// cores: the tests' 3-4 ranks on 2 cores, the emulated hosts of one
// machine), a yield-poll keeps its rank runnable beside ranks that compute,
// and the scheduler gives it its share of their cores: a rank waiting in a
// barrier across hosts took half a core from the two that computed
// (bench/stencil_pairs, 3 ranks, 2 sweeping).  It also comes back late: a
// yield next to a computing thread hands it the core for its slice.  So
// there, a wait that has yielded for kYieldNs naps instead, 10 us doubling
// to kNapMaxNs, with a 1 us timer slack while it naps (the thread's own
// slack again when the wait ends); a thread woken from a nap preempts a
// computing one.  Elsewhere, and in the first kYieldNs of every wait, it
// yields as before.  Why 4 ms and 50 us: after 1 ms, with naps of up to
// 100 us, programs whose ranks all compute (4 on 2 cores) leaned 8-11%
// slower, their waits that long mostly a rank descheduled for a slice
// (1.5-3 ms) and ended late by a nap (docs/results/issue10/idle_naps/).
// A wait whose rank others are reading yields instead of napping:
// idle_read_until says until when (spin_mono_ns) ranks on other hosts
// read this rank's pages.  A page read there is an MPI_Get, which this
// rank's MPI progresses only inside its next MPI call, so while a wait of
// this rank naps each get waits for the nap's end (2 hosts x 2 on 2 cores:
// a fetch per fault from a home in a barrier 62-66 us with yields, 92-97
// us with naps).  No thread of the home can see a get go through, so the
// reader tells it (Transport::get, at most every Transport::kTellReadsNs:
// the async path's kOpReading, which the protocol thread takes as it
// comes, or under rma a word that the wait takes where it would nap); a
// home that gets the word while it waits yields until kReadWindowNs after
// the last one (median 104.7 -> 69.3 us:
// docs/BENCHMARKS.md, "A reader tells the home").
inline std::atomic<int64_t> idle_read_until{0};
constexpr int64_t kReadWindowNs = 1000000;

class IdlePace {
 public:
  static constexpr int64_t kYieldNs = 4000000, kNapMinNs = 10000, kNapMaxNs = 50000;
  explicit IdlePace(bool naps) : naps_(naps) {}
  IdlePace(const IdlePace&) = delete;
  IdlePace& operator=(const IdlePace&) = delete;
  ~IdlePace() {
    if (slack_ >= 0) prctl(PR_SET_TIMERSLACK, (unsigned long)slack_, 0, 0, 0);
  }
  // heed() runs where the wait would nap: it may open a read window
  // (Transport::heed_reads, the rma path's words).
  template <class F>
  void idle(F&& heed) {
    if (!naps_) {
      sched_yield();
      return;
    }
    const int64_t t = spin_mono_ns();
    if (!since_) since_ = t;
    if (t - since_ < kYieldNs || t < idle_read_until.load(std::memory_order_relaxed) ||
        (heed(), t < idle_read_until.load(std::memory_order_relaxed))) {
      sched_yield();
      nap_ = kNapMinNs;
      return;
    }
    if (slack_ < 0) {
      slack_ = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
      if (slack_ >= 0) prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    }
    timespec ts{0, (long)nap_};
    nanosleep(&ts, nullptr);
    nap_ = std::min(2 * nap_, kNapMaxNs);
  }

 private:
  bool naps_;
  int64_t since_ = 0, nap_ = kNapMinNs;
  long slack_ = -1;
};

}  // namespace loom
