// A pseudo-global clock (the SCC paper's idea, estimated the SKaMPI way):
// every rank estimates the offset of its clock from rank 0's by ping-pongs
// with rank 0, keeps the exchange with the smallest round trip, and takes
// offset = t_ref - (t_send + t_recv) / 2 with error bound = round trip / 2.
// loom_global_time() is then the local clock plus the offset.  A later
// loom_clock_check() measures the offset again without changing it and
// reports the drift per second.
//
// The exchanges use the transport's words (see measure()), outside any
// protocol step.
//
// For tests, LOOM_CLOCK_SKEW_NS adds rank * skew to this rank's clock, so a
// known offset can be injected on one host (where the ranks share a clock).
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <ctime>

#include "clock.hpp"

#include "runtime.hpp"

namespace loom {
namespace {

struct ClockState {
  bool synced = false;
  double offset = 0, bound = 0, at = 0;
};
ClockState g_clock;

double local_clock() { return now() + (double)rt.rank * (double)rt.cfg.clock_skew_ns * 1e-9; }


uint64_t word_off(uint64_t w) { return rt.meta.barrier + w * 8; }

// Offset of this rank's clock from rank 0's and its error bound (collective).
// The ping-pongs go through the transport: on one host a store into the
// peer's memory and a spin on our own, so the round trip is a few hundred
// nanoseconds; across hosts the one-sided MPI path.  Rank 0 answers the
// peers one after the other; a peer whose ping waits in line only sees a
// long round trip, which the minimum discards.
void measure(int rounds, double* offset, double* bound) {
  Transport& tp = rt.tp;
  const uint64_t base = rt.sync.clock_seq;
  rt.sync.clock_seq += (uint64_t)rounds;
  double best_rtt = 1e30, best_off = 0;
  if (rt.rank == 0) {
    for (int peer = 1; peer < rt.nranks; peer++)
      for (int k = 1; k <= rounds; k++) {
        const uint64_t seq = base + (uint64_t)k;
        wait_site("loom_clock_sync / loom_clock_check", -1, peer);
        spin_until([&] { return tp.load(0, Seg::Meta, word_off(ping_word(rt.nranks, peer))) >= seq; });
        double t = local_clock();
        uint64_t bits;
        std::memcpy(&bits, &t, 8);
        tp.store(peer, Seg::Meta, word_off(kPongTimeWord), bits);
        tp.store(peer, Seg::Meta, word_off(kPongSeqWord), seq);
      }
  } else {
    for (int k = 1; k <= rounds; k++) {
      const uint64_t seq = base + (uint64_t)k;
      double t0 = local_clock();
      tp.store(0, Seg::Meta, word_off(ping_word(rt.nranks, rt.rank)), seq);
      wait_site("loom_clock_sync / loom_clock_check", -1, 0);
      spin_until([&] { return tp.load(rt.rank, Seg::Meta, word_off(kPongSeqWord)) >= seq; });
      double t2 = local_clock(), tref;
      uint64_t bits = tp.load(rt.rank, Seg::Meta, word_off(kPongTimeWord));
      std::memcpy(&tref, &bits, 8);
      if (t2 - t0 < best_rtt) {
        best_rtt = t2 - t0;
        best_off = tref - 0.5 * (t0 + t2);
      }
    }
  }
  *offset = rt.rank == 0 ? 0 : best_off;
  // Half the round trip bounds the error of the midpoint assumption; add
  // the clock's resolution.
  timespec res;
  clock_getres(CLOCK_MONOTONIC, &res);
  *bound = rt.rank == 0 ? 0 : 0.5 * best_rtt + (double)res.tv_nsec * 1e-9;
  MPI_Barrier(tp.comm());
}

}  // namespace

double clock_local() { return local_clock(); }

Status clock_sync(int rounds, loom_clock_t* out) {
  if (rounds <= 0 || rounds > 1000000) return fail(LOOM_ERR_INVALID, "loom_clock_sync: rounds %d is not in 1..1000000", rounds);
  double off, bound;
  measure(rounds, &off, &bound);
  g_clock = ClockState{true, off, bound, local_clock()};
  if (out) {
    double worst = 0;
    MPI_Allreduce(&bound, &worst, 1, MPI_DOUBLE, MPI_MAX, rt.tp.comm());
    *out = loom_clock_t{off, bound, worst, 0.0};
  }
  return Status::ok();
}

Status clock_check(int rounds, loom_clock_t* out) {
  if (!g_clock.synced) return fail(LOOM_ERR_BUSY, "loom_clock_check: call loom_clock_sync first");
  if (rounds <= 0 || rounds > 1000000) return fail(LOOM_ERR_INVALID, "loom_clock_check: rounds %d is not in 1..1000000", rounds);
  double off, bound;
  measure(rounds, &off, &bound);
  double dt = local_clock() - g_clock.at;
  double drift = dt > 0 ? (off - g_clock.offset) / dt : 0;
  double worst = 0;
  MPI_Allreduce(&bound, &worst, 1, MPI_DOUBLE, MPI_MAX, rt.tp.comm());
  if (out) *out = loom_clock_t{off, bound, worst, drift};
  return Status::ok();
}

double clock_global() { return local_clock() + g_clock.offset; }

}  // namespace loom
