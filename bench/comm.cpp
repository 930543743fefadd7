// MPI-level communication benchmarks between rank 0 and rank 1 (the other
// ranks idle): ping-pong latency with a histogram, uni- and bidirectional
// bandwidth, one-sided put/get/compare-and-swap/fetch-and-add latency and
// put/get bandwidth, and barrier time versus rank count (MPI_Barrier on the
// first k ranks next to Loom's barrier over the same k ranks).
#include <algorithm>
#include <cstring>
#include <vector>

#include "bench.hpp"

namespace bench {
namespace {

std::vector<size_t> sizes(const Options& o) {
  std::vector<size_t> v;
  for (size_t s = 1; s <= o.max_bytes; s *= 2) v.push_back(s);
  if (o.tiny) v = {1, 4096};
  return v;
}

int iters_for(const Options& o, size_t bytes) {
  if (o.iters) return o.iters;
  size_t it = (64u << 20) / std::max<size_t>(bytes, 1);
  return (int)std::clamp<size_t>(it, 10, 1000);
}

// A sweep's iterations at the next size, cut so that a sample takes about
// o.sample_s at most: `step_s` is what one iteration is expected to take,
// from the rate the previous size ran at (0: no estimate yet).  64 MiB a
// sample is a few tens of milliseconds on a fast link, but at 100 Mbit/s a
// 256 KiB ping-pong sample was 11 s, and a calibration over such a link
// took over 20 minutes.  Every rank computes the same: the rates come from
// the reduced summaries.  (--iters N is used as given.)
int capped(const Options& o, int it, double step_s, int least = 2) {
  if (o.iters || o.sample_s <= 0 || !(step_s > 0)) return it;
  const double fit = o.sample_s / step_s;
  return fit >= it ? it : std::max(least, (int)fit);
}

}  // namespace

void run_pingpong(const Options& o, Report& rep) {
  const int me = rank();
  std::vector<char> buf(o.max_bytes);
  double us_per_byte = 0;  // the previous size's one-way time per byte
  for (size_t b : sizes(o)) {
    const int it = capped(o, iters_for(o, b), 2e-6 * us_per_byte * (double)b);
    Summary s = measure(o, [&] {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int i = 0; i < it; i++) {
        if (me == 0) {
          MPI_Send(buf.data(), (int)b, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
          MPI_Recv(buf.data(), (int)b, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (me == 1) {
          MPI_Recv(buf.data(), (int)b, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf.data(), (int)b, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
      }
      return (MPI_Wtime() - t0) / (2.0 * it) * 1e6;
    }, Reduce::Rank0);
    us_per_byte = s.median / (double)b;
    rep.add(Result{"pingpong_latency", {{"bytes", (double)b}}, "us", s, {}, {}, {}});
  }
  // The distribution of single round trips at 1 byte: 1000 messages, each
  // timed alone (half round trip), as the SCI paper's latency histogram.
  const int N = o.tiny ? 100 : 1000;
  std::vector<double> one(N);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < N; i++) {
    double t0 = MPI_Wtime();
    if (me == 0) {
      MPI_Send(buf.data(), 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
      MPI_Recv(buf.data(), 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (me == 1) {
      MPI_Recv(buf.data(), 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
    one[(size_t)i] = (MPI_Wtime() - t0) / 2 * 1e6;
  }
  Result h{"pingpong_latency_single", {{"bytes", 1}, {"messages", (double)N}}, "us", summarize(one), {}, {}, {}};
  h.hist = histogram(one, 40);
  h.extra["mean"] = [&] {
    double m = 0;
    for (double x : one) m += x;
    return m / N;
  }();
  MPI_Bcast(&h.s, sizeof h.s, MPI_BYTE, 0, MPI_COMM_WORLD);
  rep.add(h);

  // The same round trips while Loom runs, through its MPI wrappers (which,
  // where other ranks reach this one by requests, poll the call and serve
  // them meanwhile: LOOM_MPI_SERVES) and around them (PMPI_Send and
  // PMPI_Recv, the library's own blocking calls), in alternating blocks of
  // `it` round trips so that both see the same noise.  Half a round trip
  // in us, rank 0's, the median over the blocks of each.
  loom_start_default();
  for (size_t b : {(size_t)8, (size_t)4096, (size_t)65536}) {
    if (b > o.max_bytes) break;
    const int it = o.tiny ? 20 : capped(o, 200, 2e-6 * us_per_byte * (double)b), blocks = o.tiny ? 3 : 15;
    std::vector<double> wrapped, direct;
    for (int k = 0; k < 2 * blocks; k++) {
      const bool pmpi = (k % 2) != (k / 2 % 2);  // ABBA: neither goes first every time
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int i = 0; i < it; i++) {
        void* p = buf.data();
        if (me == 0) {
          if (pmpi) {
            PMPI_Send(p, (int)b, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
            PMPI_Recv(p, (int)b, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          } else {
            MPI_Send(p, (int)b, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
            MPI_Recv(p, (int)b, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          }
        } else if (me == 1) {
          if (pmpi) {
            PMPI_Recv(p, (int)b, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            PMPI_Send(p, (int)b, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
          } else {
            MPI_Recv(p, (int)b, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(p, (int)b, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
          }
        }
      }
      double us = (MPI_Wtime() - t0) / (2.0 * it) * 1e6;
      MPI_Bcast(&us, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      (pmpi ? direct : wrapped).push_back(us);
    }
    Summary sw = summarize(wrapped), sd = summarize(direct);
    Result rw{"pingpong_in_loom", {{"bytes", (double)b}}, "us", sw, {}, {}, {}};
    rw.extra["pmpi_us"] = sd.median;
    rw.extra["ratio_to_pmpi"] = sw.median / sd.median;
    rep.add(rw);
    rep.add(Result{"pingpong_in_loom_pmpi", {{"bytes", (double)b}}, "us", sd, {}, {}, {}});
  }
  loom_stop(nullptr);
}

void run_bw(const Options& o, Report& rep) {
  const int me = rank(), W = 64;
  std::vector<char> sbuf(o.max_bytes * (size_t)(o.tiny ? 1 : 1)), rbuf(o.max_bytes);
  std::vector<MPI_Request> rq(2 * W);
  for (int bidir = 0; bidir <= 1; bidir++) {
    double mbps = 0;  // the previous size's rate
    for (size_t b : sizes(o)) {
      const int it = capped(o, std::max(2, iters_for(o, b) / W),
                            mbps > 0 ? (bidir ? 2.0 : 1.0) * (double)b * W / (mbps * 1e6) : 0, 1);
      Summary s = measure(o, [&] {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < it; i++) {
          if (me > 1) continue;
          int peer = 1 - me, n = 0;
          // All messages of a window share one buffer: the bandwidth, not the
          // memory system, is measured (as OSU does).
          if (me == 1 || bidir)
            for (int w = 0; w < W; w++) MPI_Irecv(rbuf.data(), (int)b, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &rq[n++]);
          if (me == 0 || bidir)
            for (int w = 0; w < W; w++) MPI_Isend(sbuf.data(), (int)b, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &rq[n++]);
          MPI_Waitall(n, rq.data(), MPI_STATUSES_IGNORE);
          char ack = 0;
          if (me == 1) MPI_Send(&ack, 1, MPI_BYTE, 0, 4, MPI_COMM_WORLD);
          else MPI_Recv(&ack, 1, MPI_BYTE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        double t = MPI_Wtime() - t0;
        return (bidir ? 2.0 : 1.0) * (double)b * W * it / t / 1e6;
      }, Reduce::Rank0);
      mbps = s.median;
      rep.add(Result{bidir ? "bandwidth_bidirectional" : "bandwidth_unidirectional", {{"bytes", (double)b}}, "MB/s", s,
                     {}, {}, {}});
    }
  }
}

void run_rma(const Options& o, Report& rep) {
  const int me = rank();
  void* base = nullptr;
  MPI_Win w;
  MPI_Win_allocate((MPI_Aint)o.max_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
  std::memset(base, 0, o.max_bytes);
  MPI_Win_lock_all(0, w);
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<char> buf(o.max_bytes);
  const int it = o.iters ? o.iters : (o.tiny ? 50 : 2000);
  struct Op {
    const char* name;
    int kind;
  } ops[] = {{"rma_put_latency", 0}, {"rma_get_latency", 1}, {"rma_cas_latency", 2}, {"rma_fadd_latency", 3}};
  for (const Op& op : ops) {
    Summary s = measure(o, [&] {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if (me == 1) {
        uint64_t v = 1, c = 0, res = 0;
        for (int i = 0; i < it; i++) {
          switch (op.kind) {
            case 0: MPI_Put(&v, 8, MPI_BYTE, 0, 0, 8, MPI_BYTE, w); break;
            case 1: MPI_Get(&res, 8, MPI_BYTE, 0, 0, 8, MPI_BYTE, w); break;
            case 2: MPI_Compare_and_swap(&v, &c, &res, MPI_UINT64_T, 0, 8, w); std::swap(v, c); break;
            case 3: MPI_Fetch_and_op(&v, &res, MPI_UINT64_T, 0, 16, MPI_SUM, w); break;
          }
          MPI_Win_flush(0, w);
        }
      }
      return (MPI_Wtime() - t0) / it * 1e6;
    }, Reduce::Rank1);
    rep.add(Result{op.name, {{"bytes", 8}}, "us", s, {}, {}, {}});
  }
  for (int get = 0; get <= 1; get++) {
    double mbps = 0;  // the previous size's rate
    for (size_t b : sizes(o)) {
      const int n = capped(o, std::max(2, iters_for(o, b) / 8), mbps > 0 ? (double)b / (mbps * 1e6) : 0);
      Summary s = measure(o, [&] {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (me == 1) {
          for (int i = 0; i < n; i++) {
            if (get) MPI_Get(buf.data(), (int)b, MPI_BYTE, 0, 0, (int)b, MPI_BYTE, w);
            else MPI_Put(buf.data(), (int)b, MPI_BYTE, 0, 0, (int)b, MPI_BYTE, w);
          }
          MPI_Win_flush(0, w);
        }
        return (double)b * n / (MPI_Wtime() - t0) / 1e6;
      }, Reduce::Rank1);
      mbps = s.median;
      rep.add(Result{get ? "rma_get_bandwidth" : "rma_put_bandwidth", {{"bytes", (double)b}}, "MB/s", s, {}, {}, {}});
    }
  }
  MPI_Win_unlock_all(w);
  MPI_Win_free(&w);
}

void run_barrier(const Options& o, Report& rep) {
  const int me = rank(), N = nranks();
  const int it = o.iters ? o.iters : (o.tiny ? 50 : 2000);
  loom_start();
  std::vector<int> members;
  for (int k = 2; k <= N; k++) {
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, me < k ? 0 : MPI_UNDEFINED, me, &sub);
    members.clear();
    for (int i = 0; i < k; i++) members.push_back(i);
    Summary sm = measure(o, [&] {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if (me < k)
        for (int i = 0; i < it; i++) MPI_Barrier(sub);
      return me < k ? (MPI_Wtime() - t0) / it * 1e6 : 0.0;
    });
    Summary sl = measure(o, [&] {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if (me < k) {
        if (k == N)
          for (int i = 0; i < it; i++) OK(loom_barrier());
        else
          for (int i = 0; i < it; i++) OK(loom_barrier_subset(members.data(), k));
      }
      return me < k ? (MPI_Wtime() - t0) / it * 1e6 : 0.0;
    });
    Summary sf = measure(o, [&] {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if (me < k)
        for (int i = 0; i < it; i++) {
          OK(loom_barrier_arrive(members.data(), k));
          OK(loom_barrier_wait());
        }
      return me < k ? (MPI_Wtime() - t0) / it * 1e6 : 0.0;
    });
    Result rm{"barrier_mpi", {{"ranks", (double)k}}, "us", sm, {}, {}, {}};
    Result rl{k == N ? "barrier_loom" : "barrier_loom_subset", {{"ranks", (double)k}}, "us", sl, {}, {}, {}};
    rl.extra["ratio_to_mpi"] = sl.median / sm.median;
    Result rf{"barrier_loom_split_phase", {{"ranks", (double)k}}, "us", sf, {}, {}, {}};
    rf.extra["ratio_to_mpi"] = sf.median / sm.median;
    rep.add(rm);
    rep.add(rl);
    rep.add(rf);
    if (sub != MPI_COMM_NULL) MPI_Comm_free(&sub);
  }
  loom_stop(&rep);
}

}  // namespace bench
