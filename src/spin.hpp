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
#include <time.h>

#include <cstdint>

namespace loom {

class SpinPhase {
 public:
  static constexpr int64_t kPollNs = 50;  // what LOOM_SPIN's polls are counted in
  explicit SpinPhase(int spin) : left_(spin), until_(spin > 0 ? mono() + kPollNs * spin : 0) {}
  // Whether this poll may keep the core (else the caller yields it).
  bool keep() {
    if (left_ <= 0) return false;
    --left_;
    if (mono() <= until_) return true;  // (a read of the clock: ~20 ns, from the vDSO)
    left_ = 0;
    return false;
  }

 private:
  static int64_t mono() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
  }
  int left_;
  int64_t until_;
};

}  // namespace loom
