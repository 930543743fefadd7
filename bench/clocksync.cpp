// The pseudo-global clock (the SCC paper's method) and collectives measured
// two ways, as its figures 9-12 compare:
//   barrier-aligned  MPI_Barrier, then every rank times the operation on its
//                    own clock; the figure is the slowest rank's duration;
//   window-based     rank 0 announces a start time on the global clock a
//                    little in the future; every rank waits for it, runs the
//                    operation, and notes its end on the global clock; the
//                    figure is the latest end minus the agreed start.
// A slow barrier distorts the first method; the second needs the clock.
#include <algorithm>
#include <cmath>
#include <vector>

#include "bench.hpp"

namespace bench {

void run_clock(const Options& o, Report& rep) {
  loom_start();
  const int rounds = o.tiny ? 20 : 200;
  loom_clock_t c;
  OK(loom_clock_sync(rounds, &c));
  // Per-rank error bounds, and the spread of the offsets found by repeated
  // syncs (a second look at the precision).
  std::vector<double> offs;
  Summary sb = measure(o, [&] {
    loom_clock_t k;
    OK(loom_clock_sync(rounds, &k));
    offs.push_back(k.offset);
    return k.bound * 1e6;
  });
  Result rb{"clock_offset_error_bound", {{"rounds", (double)rounds}}, "us", sb, {}, {}, {}};
  double lo = *std::min_element(offs.begin(), offs.end()), hi = *std::max_element(offs.begin(), offs.end());
  rb.extra["offset_spread_us_max_over_ranks"] = max_all((hi - lo) * 1e6);
  rep.add(rb);
  // Run something for a while, then re-check: drift.
  double t_end = loom_wtime() + (o.tiny ? 0.05 : 1.0);
  for (int go = 1; go;) {  // rank 0's clock decides, so all ranks stop together
    MPI_Barrier(MPI_COMM_WORLD);
    go = loom_wtime() < t_end;
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  loom_clock_t k;
  OK(loom_clock_check(rounds, &k));
  Summary sd = summarize({std::fabs(k.drift) * 1e6});
  sd.median = max_all(std::fabs(k.drift) * 1e6);  // ppm, worst rank
  sd.min = sd.max = sd.lo = sd.hi = sd.median;
  Result rd{"clock_drift_after_run", {}, "us/s", sd, {}, {}, {}};
  // What the two offset estimates' error bounds allow as apparent drift.
  rd.extra["drift_resolution_us_per_s"] = max_all((c.bound + k.bound) / (o.tiny ? 0.05 : 1.0) * 1e6);
  rep.add(rd);
  rep.note("clock", "offsets by min-round-trip ping-pong against rank 0; bound = round trip / 2 + clock resolution");
  loom_stop(&rep);
}

namespace {

enum Coll { kBarrier, kBcast, kReduce, kAllreduce, kLoomBarrier };
const char* coll_name(Coll c) {
  switch (c) {
    case kBarrier: return "MPI_Barrier";
    case kBcast: return "MPI_Bcast";
    case kReduce: return "MPI_Reduce";
    case kAllreduce: return "MPI_Allreduce";
    case kLoomBarrier: return "loom_barrier";
  }
  return "?";
}

void run_op(Coll c, double* in, double* out) {
  switch (c) {
    case kBarrier: MPI_Barrier(MPI_COMM_WORLD); break;
    case kBcast: MPI_Bcast(in, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); break;
    case kReduce: MPI_Reduce(in, out, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case kAllreduce: MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case kLoomBarrier: OK(loom_barrier()); break;
  }
}

}  // namespace

void run_collectives(const Options& o, Report& rep) {
  loom_start();
  loom_clock_t c;
  OK(loom_clock_sync(o.tiny ? 20 : 200, &c));
  const int per = o.tiny ? 20 : 200;  // operations per sample
  double in = 1, out = 0;
  for (Coll op : {kBarrier, kBcast, kReduce, kAllreduce, kLoomBarrier}) {
    std::string name = coll_name(op);
    // Barrier-aligned: each op timed alone between MPI barriers; a sample is
    // the median of `per` such ops (the slowest rank's duration each).
    std::vector<double> one((size_t)per);
    auto median_of = [&]() { return summarize(one).median; };
    Summary sa = measure(o, [&] {
      for (int i = 0; i < per; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = loom_wtime();
        run_op(op, &in, &out);
        double d = loom_wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        one[(size_t)i] = d * 1e6;
      }
      return median_of();
    });
    // Window-based: start at an agreed global time, end = latest global end.
    Summary sw = measure(o, [&] {
      for (int i = 0; i < per; i++) {
        double start = 0;
        if (rank() == 0) start = loom_global_time() + 200e-6;
        MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        while (loom_global_time() < start) {
        }
        run_op(op, &in, &out);
        double end = loom_global_time(), last = 0;
        MPI_Allreduce(&end, &last, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        one[(size_t)i] = (last - start) * 1e6;
      }
      return median_of();
    }, Reduce::Rank0);
    rep.add(Result{"collective_barrier_aligned", {{"bytes", op == kBarrier || op == kLoomBarrier ? 0.0 : 8.0}}, "us",
                   sa, {{"op_" + name, 1}}, {}, {}});
    Result rw{"collective_window_based", {{"bytes", op == kBarrier || op == kLoomBarrier ? 0.0 : 8.0}}, "us", sw,
              {{"op_" + name, 1}}, {}, {}};
    rw.extra["clock_worst_bound_us"] = c.worst_bound * 1e6;
    rep.add(rw);
  }
  rep.note("window", "start 200 us ahead on the global clock; time = latest end - start (includes the clock error); "
                     "a sample is the median of single operations");
  loom_stop(&rep);
}

}  // namespace bench
