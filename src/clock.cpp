// A pseudo-global clock (the SCC paper's idea, estimated the SKaMPI way):
// every rank estimates the offset of its clock from rank 0's by ping-pongs
// with rank 0, keeps the exchange with the smallest round trip, and takes
// offset = t_ref - (t_send + t_recv) / 2 with error bound = round trip / 2.
// loom_global_time() is then the local clock plus the offset.  A later
// loom_clock_check() measures the offset again without changing it and
// reports the drift per second.
//
// Ranks are measured one after the other (rank 0 talks to one rank at a
// time), so the exchanges do not disturb each other.  Two-sided MPI on a
// private communicator: the clock is set up outside any protocol step.
//
// For tests, LOOM_CLOCK_SKEW_NS adds rank * skew to this rank's clock, so a
// known offset can be injected on one host (where the ranks share a clock).
#include <mpi.h>

#include <cmath>
#include <ctime>

#include "runtime.hpp"

namespace loom {
namespace {

struct ClockState {
  bool synced = false;
  double offset = 0, bound = 0, at = 0;
};
ClockState g_clock;

double local_clock() { return now() + (double)rt.rank * (double)rt.cfg.clock_skew_ns * 1e-9; }

// Offset of this rank's clock from rank 0's and its error bound (collective).
void measure(int rounds, double* offset, double* bound) {
  MPI_Comm comm = rt.tp.comm();
  const int tag = 0x10c;
  double best_rtt = 1e30, best_off = 0;
  for (int peer = 1; peer < rt.nranks; peer++) {
    if (rt.rank == 0) {
      for (int k = 0; k < rounds; k++) {
        double dummy;
        MPI_Recv(&dummy, 1, MPI_DOUBLE, peer, tag, comm, MPI_STATUS_IGNORE);
        double t = local_clock();
        MPI_Send(&t, 1, MPI_DOUBLE, peer, tag, comm);
      }
    } else if (rt.rank == peer) {
      for (int k = 0; k < rounds; k++) {
        double t0 = local_clock(), tref = 0;
        MPI_Send(&t0, 1, MPI_DOUBLE, 0, tag, comm);
        MPI_Recv(&tref, 1, MPI_DOUBLE, 0, tag, comm, MPI_STATUS_IGNORE);
        double t2 = local_clock();
        if (t2 - t0 < best_rtt) {
          best_rtt = t2 - t0;
          best_off = tref - 0.5 * (t0 + t2);
        }
      }
    }
  }
  if (rt.rank == 0) {
    best_rtt = 0;
    best_off = 0;
  }
  *offset = best_off;
  // Half the round trip bounds the error of the midpoint assumption; add
  // the clock's resolution.
  timespec res;
  clock_getres(CLOCK_MONOTONIC, &res);
  *bound = rt.rank == 0 ? 0 : 0.5 * best_rtt + (double)res.tv_nsec * 1e-9;
  MPI_Barrier(comm);
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
