// Loom-level (DSM) benchmarks.  Each one prints, next to the Loom figure,
// the raw figure it is judged against, measured by this program in the same
// run: a fault trap plus mprotect, an MPI_Get of a page, an MPI
// compare-and-swap round trip, MPI_Barrier, a local memcpy.
#include <signal.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "bench.hpp"
#include "diff.hpp"
#include "transport/transport.hpp"

namespace bench {

void loom_start(uint32_t unit_pages) {
  loom_start_with([&](loom_config_t& c) {
    if (unit_pages) c.unit_pages = unit_pages;
  });
}

void loom_start_default() {
  loom_start_with([](loom_config_t&) {}, false);
}

void loom_start_with(const std::function<void(loom_config_t&)>& change, bool protocol) {
  loom_config_t cfg;
  OK(loom_config_default(&cfg));
  if (protocol && !std::getenv("LOOM_HOST_SHARE")) cfg.host_share = 0;  // (bench.hpp)
  if (protocol && !std::getenv("LOOM_STRIDE")) cfg.stride = 0;          // (bench.hpp)
  change(cfg);
  OK(loom_init(nullptr, nullptr, &cfg));
}

void loom_stop(Report* r) {
  if (r) {
    char buf[4096];
    if (loom_stats_json(buf, sizeof buf) == LOOM_OK) r->set_loom_stats(buf);
  }
  OK(loom_finalize());
}

namespace {

volatile sig_atomic_t g_hits = 0;
volatile int64_t g_inside_ns = 0;  // time spent inside trap(), summed
int64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}
void trap(int, siginfo_t* si, void*) {
  const int64_t t0 = now_ns();
  uintptr_t a = (uintptr_t)si->si_addr & ~(uintptr_t)4095;
  mprotect((void*)a, 4096, PROT_READ | PROT_WRITE);
  g_hits = g_hits + 1;
  g_inside_ns = g_inside_ns + (now_ns() - t0);
}

// One fault trap plus the mprotect that resolves it (per page), with a
// private handler installed while Loom is not.  With `outside`, the part
// of it spent outside the handler (the signal's delivery and return, which
// a traced fault's own record does not hold: its CPU time shows up in the
// trace's computation before the fault) is measured too.
Summary raw_trap(const Options& o, Summary* outside = nullptr) {
  const int P = o.tiny ? 64 : 1024;
  struct sigaction sa, old;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = trap;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, &old);
  char* m = (char*)mmap(nullptr, (size_t)P * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  std::memset(m, 1, (size_t)P * 4096);
  // Every page faults once; returns us a fault, less the handler's time
  // when `less_inside`.
  auto fault_all = [&](bool less_inside) {
    mprotect(m, (size_t)P * 4096, PROT_NONE);
    g_inside_ns = 0;
    double t0 = MPI_Wtime();
    for (int p = 0; p < P; p++) {
      volatile char* c = m + (size_t)p * 4096;
      *c = (char)(*c + 1);
    }
    return ((MPI_Wtime() - t0) * 1e6 - (less_inside ? g_inside_ns * 1e-3 : 0.0)) / P;
  };
  Summary s = measure(o, [&] { return fault_all(false); });
  if (outside) *outside = measure(o, [&] { return fault_all(true); });
  sigaction(SIGSEGV, &old, nullptr);
  munmap(m, (size_t)P * 4096);
  return s;
}

// Rank 1 gets pages 0..P-1 of w from rank 0, 4 KiB each, a flush after
// each: microseconds a get (0 elsewhere).
double gets_from_rank0(MPI_Win w, int P, char* buf) {
  double t0 = MPI_Wtime();
  if (rank() == 1)
    for (int p = 0; p < P; p++) {
      MPI_Get(buf, 4096, MPI_BYTE, 0, (MPI_Aint)p * 4096, 4096, MPI_BYTE, w);
      MPI_Win_flush(0, w);
    }
  return (MPI_Wtime() - t0) / P * 1e6;
}

// One MPI_Get of a 4 KiB page with flush, rank 1 from rank 0, from a
// window MPI allocated, or (created) one over memory the program allocated,
// as Loom's Data window is (MPI chooses how to serve each).
Summary raw_get(const Options& o, bool created = false) {
  const int P = o.tiny ? 64 : 1024;
  void* base = nullptr;
  MPI_Win w;
  std::vector<char> mine;
  if (created) {
    mine.resize((size_t)P * 4096);
    base = mine.data();
    MPI_Win_create(base, (MPI_Aint)P * 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
  } else {
    MPI_Win_allocate((MPI_Aint)P * 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
  }
  std::memset(base, 7, (size_t)P * 4096);
  std::vector<char> buf(4096);
  MPI_Win_lock_all(0, w);
  MPI_Barrier(MPI_COMM_WORLD);
  Summary s = measure(o, [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    return gets_from_rank0(w, P, buf.data());
  }, Reduce::Rank1);
  MPI_Win_unlock_all(w);
  MPI_Win_free(&w);
  return s;
}

// A two-sided request and its 4 KiB reply, rank 1 asking rank 0, which
// serves from a posted receive (as Loom's async path does): what a page
// fetch costs at least on a transport whose home answers requests
// (LOOM_TRANSPORT=async).
Summary raw_rpc(const Options& o) {
  const int P = o.tiny ? 64 : 1024;
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  std::vector<char> page(4096, 7), buf(4096);
  Summary s = measure(o, [&] {
    MPI_Barrier(c);
    double t0 = MPI_Wtime();
    uint64_t q[4] = {0, 0, 0, 0};
    if (rank() == 1) {
      for (int p = 0; p < P; p++) {
        MPI_Request rq[2];
        MPI_Irecv(buf.data(), 4096, MPI_BYTE, 0, 2, c, &rq[0]);
        MPI_Isend(q, sizeof q, MPI_BYTE, 0, 1, c, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
      }
      q[0] = 1;  // done
      MPI_Send(q, sizeof q, MPI_BYTE, 0, 1, c);
    } else if (rank() == 0) {
      for (;;) {
        uint64_t r[4];
        MPI_Request rq;
        MPI_Irecv(r, sizeof r, MPI_BYTE, 1, 1, c, &rq);
        for (int flag = 0; !flag;) MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
        if (r[0]) break;
        MPI_Isend(page.data(), 4096, MPI_BYTE, 1, 2, c, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
      }
    }
    return (MPI_Wtime() - t0) / P * 1e6;
  }, Reduce::Rank1);
  MPI_Comm_free(&c);
  return s;
}

Summary raw_cas(const Options& o) {
  void* base = nullptr;
  MPI_Win w;
  MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
  std::memset(base, 0, 64);
  MPI_Win_lock_all(0, w);
  MPI_Barrier(MPI_COMM_WORLD);
  const int it = o.tiny ? 50 : 2000;
  Summary s = measure(o, [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank() == 1) {
      uint64_t v = 1, c = 0, res = 0;
      for (int i = 0; i < it; i++) {
        MPI_Compare_and_swap(&v, &c, &res, MPI_UINT64_T, 0, 0, w);
        MPI_Win_flush(0, w);
        std::swap(v, c);
      }
    }
    return (MPI_Wtime() - t0) / it * 1e6;
  }, Reduce::Rank1);
  MPI_Win_unlock_all(w);
  MPI_Win_free(&w);
  return s;
}

// Rank 0 writes one word of each of `pages` pages of `a`, barrier, every
// other rank reads one word of each: microseconds per page on that rank.
// *round_us gets the reader's barrier plus reads per page: under an update
// protocol the pages come during the barrier, and the reads do not fault.
double pagefetch_once(char* a, int pages, int round, double* round_us = nullptr) {
  if (rank() == 0)
    for (int p = 0; p < pages; p++) a[(size_t)p * 4096] = (char)(round + p % 7 + 1);
  double tb = loom_wtime();
  OK(loom_barrier());
  double t = 0;
  if (round_us) *round_us = 0;
  if (rank() != 0) {
    long nonzero = 0;
    double t0 = loom_wtime();
    for (int p = 0; p < pages; p++) nonzero += ((volatile char*)a)[(size_t)p * 4096] != 0;
    t = (loom_wtime() - t0) / pages * 1e6;
    if (round_us) *round_us = (loom_wtime() - tb) / pages * 1e6;
    if (nonzero != pages) std::fprintf(stderr, "pagefetch: read %ld of %d pages written\n", nonzero, pages);
  }
  OK(loom_barrier());
  return t;
}

// The summary of rank `root`'s samples, on every rank.
Summary rank_summary(const std::vector<double>& samples, int root) {
  Summary s = summarize(samples);
  double f[7] = {s.median, s.min, s.max, s.lo, s.hi, (double)s.reps, s.converged ? 1.0 : 0.0};
  MPI_Bcast(f, 7, MPI_DOUBLE, root, MPI_COMM_WORLD);
  return Summary{f[0], f[1], f[2], f[3], f[4], (int)f[5], f[6] != 0};
}
Summary rank1_summary(const std::vector<double>& samples) { return rank_summary(samples, 1); }

// Warm rounds: the same block again and again (the home rewrites it, the
// reader's copies are invalidated and fetched anew), as in an iterative
// program; the raw figures are taken on touched memory too.  Returns the
// reads per page; *round_s gets rank 1's barrier plus reads per page (it is
// the reader measured by the warm figure's max).
Summary warm_rounds(const Options& o, int pages, int* round, Summary* round_s) {
  char* a = nullptr;
  OK(loom_alloc_collective((size_t)pages * 4096, (void**)&a));
  std::vector<double> rounds;
  Summary warm = measure(o, [&] {
    double r = 0, t = pagefetch_once(a, pages, ++*round, &r);
    rounds.push_back(r);
    return t;
  });
  OK(loom_free_collective(a));
  *round_s = rank1_summary(rounds);
  return warm;
}

// The fetch per fault beside a raw MPI_Get made at the same time, in the
// same process: blocks of a raw sample (rank 1 gets each of `pages` pages of
// w from rank 0, a flush after each) and a Loom warm round (as
// warm_rounds), the target waiting in loom_barrier in both, so its helper
// threads behave alike.  Why: a 4 KiB get over the emulated hosts' TCP sits
// on one of a few levels about 5 us apart (14.5, 19.5, 25 us here), and MPI
// events between the phases (a window created, a communicator duplicated)
// move it from one to another for the rest of the run; the raw figures
// above are taken before Loom starts, the fetch after, so their ratio can
// span a level change.  Returns the blocks' Loom samples; *get the raw
// ones; *ratio the blocks' Loom / (trap + get).
Summary warm_beside_get(const Options& o, int pages, int* round, MPI_Win w, double trap, Summary* get,
                        Summary* ratio) {
  char* a = nullptr;
  OK(loom_alloc_collective((size_t)pages * 4096, (void**)&a));
  std::vector<char> buf(4096);
  std::vector<double> gets, fetches, ratios;
  const int blocks = o.tiny ? 3 : std::max(o.min_reps, (o.max_reps + 1) / 2);
  for (int b = -1; b < blocks; b++) {  // block -1 warms up
    OK(loom_barrier());
    double g = gets_from_rank0(w, pages, buf.data());
    OK(loom_barrier());
    double f = pagefetch_once(a, pages, ++*round);
    if (b < 0) continue;
    gets.push_back(g);
    fetches.push_back(f);
    ratios.push_back(rank() == 1 ? f / (trap + g) : 0);
  }
  OK(loom_free_collective(a));
  *get = rank1_summary(gets);
  *ratio = rank1_summary(ratios);
  return rank1_summary(fetches);
}

}  // namespace

// A fetch from a home that computes: across hosts its application thread
// is not in Loom to serve the request, so the home's protocol thread does,
// and it has to be woken or scheduled beside the computation
// (src/transport/async.cpp).  Both ranks compute between the fetches, as
// in a program; rank 1 reads one fresh page of rank 0's after each stretch
// of computation, one page per fault, the stretches kBusyGaps in turn.
// Microseconds per fetch, on rank 1: all of them, and by the stretch
// before them (*by_gap).  The pagefetch rows have the home waiting in a
// barrier instead, where its application thread serves.
constexpr double kBusyGaps[3] = {30e-6, 300e-6, 3e-3};
constexpr int kBusyWindow = 128;  // pages a fault of pagefetch_busy_home_random_window

// Computation: spin until MPI_Wtime() reaches t.
static void spin_until(double t) {
  while (MPI_Wtime() < t) {
  }
}

// The busy home's set-up: Loom with `unit` pages a fault and no prefetch,
// and `fetches` such windows homed on rank 0.
static char* busy_home_start(int fetches, int unit = 1) {
  loom_start_with([&](loom_config_t& k) {
    k.unit_pages = (uint32_t)unit;
    k.prefetch = 0;
  });
  char* a = nullptr;
  OK(loom_alloc_collective((size_t)fetches * unit * 4096, (void**)&a));
  return a;
}

Summary pagefetch_busy_home(const Options& o, Summary by_gap[3]) {
  const int fetches = o.tiny ? 6 : 24, rounds = o.tiny ? 1 : 3;
  char* a = busy_home_start(fetches);
  std::vector<double> got, gap_got[3];
  for (int r = 0; r < rounds; r++) {
    if (rank() == 0)
      for (int p = 0; p < fetches; p++) a[(size_t)p * 4096] = (char)(r + p % 5 + 1);
    OK(loom_barrier());
    const double t0 = MPI_Wtime();
    if (rank() == 0) {
      // Longer than rank 1's fetches can take, even at 2 ms each.
      spin_until(t0 + fetches * (kBusyGaps[2] + 0.002));
    } else if (rank() == 1) {
      long nonzero = 0;
      for (int p = 0; p < fetches; p++) {
        spin_until(MPI_Wtime() + kBusyGaps[p % 3]);
        const double t = MPI_Wtime();
        nonzero += ((volatile char*)a)[(size_t)p * 4096] != 0;
        got.push_back((MPI_Wtime() - t) * 1e6);
        gap_got[p % 3].push_back(got.back());
      }
      if (nonzero != fetches) std::fprintf(stderr, "pagefetch_busy_home: read %ld of %d pages written\n", nonzero, fetches);
    }
    OK(loom_barrier());
  }
  OK(loom_free_collective(a));
  loom_stop(nullptr);
  for (int g = 0; g < 3; g++) by_gap[g] = rank1_summary(gap_got[g]);
  return rank1_summary(got);
}

// The same with stretches drawn at random, uniform in [lo, hi] seconds (a
// fixed seed), so that the fetches do not keep one phase against the home
// protocol thread's naps, as the fixed stretches above do: short ones
// (20-600 us) and long ones (1.5-4.5 ms).  Microseconds per fetch, rank 1.
// With `unit` pages a fault, each fetch a window of that many (a large get
// from a home that computes moves as its protocol thread polls MPI).
Summary pagefetch_busy_random(const Options& o, double lo, double hi, int unit = 1) {
  const int fetches = o.tiny ? 8 : unit > 1 ? 60 : 150;
  char* a = busy_home_start(fetches, unit);
  if (rank() == 0)
    for (int p = 0; p < fetches; p++)
      for (int k = 0; k < unit; k++) a[((size_t)p * unit + k) * 4096] = (char)(p % 7 + 1);
  OK(loom_barrier());
  std::vector<double> got;
  uint64_t seed = 12345;
  if (rank() == 0) {
    spin_until(MPI_Wtime() + fetches * (hi + 0.002));
  } else if (rank() == 1) {
    long nonzero = 0;
    for (int p = 0; p < fetches; p++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      spin_until(MPI_Wtime() + lo + (hi - lo) * (double)(seed >> 11) / 9007199254740992.0);
      const double t = MPI_Wtime();
      nonzero += ((volatile char*)a)[(size_t)p * unit * 4096] != 0;
      got.push_back((MPI_Wtime() - t) * 1e6);
    }
    if (nonzero != fetches) std::fprintf(stderr, "pagefetch_busy_random: read %ld of %d pages written\n", nonzero, fetches);
  }
  OK(loom_barrier());
  OK(loom_free_collective(a));
  loom_stop(nullptr);
  return rank1_summary(got);
}

// A walk down a column of blocks of a home that computes: rank 1 reads one
// word of each page of 32 windows (LOOM_UNIT_PAGES each) 4 windows apart,
// 50 us of computation between windows, while rank 0 computes (as a rank
// reads the perimeter row of LU's column-major blocks).  Microseconds per
// window on rank 1, the first round (cold) not counted; with the fetches
// along the stride (`stride`, LOOM_STRIDE) and without.  Where the home is
// mapped both are copies from its memory.
Summary pagefetch_stride(const Options& o, bool stride) {
  const int windows = o.tiny ? 8 : 32, step = 4, rounds = o.tiny ? 2 : 6;
  loom_start_with([&](loom_config_t& k) {
    k.prefetch = 0;
    k.stride = stride ? 1 : 0;
  });
  loom_config_t c;
  OK(loom_config_default(&c));
  const size_t unit = c.unit_pages, window = unit * 4096;
  char* raw = nullptr;
  OK(loom_alloc_collective_at((size_t)(windows * step + 1) * window, 0, (void**)&raw));
  char* a = (char*)(((uintptr_t)raw + window - 1) / window * window);
  std::vector<double> per_window;
  for (int r = 0; r < rounds; r++) {
    if (rank() == 0)
      for (size_t p = 0; p < (size_t)windows * step * unit; p++) a[p * 4096] = (char)(r + 1);
    OK(loom_barrier());
    const double t0 = MPI_Wtime();
    if (rank() == 0) {
      while (MPI_Wtime() < t0 + windows * 0.004) {  // longer than the walk, even at 4 ms a window
      }
    } else if (rank() == 1) {
      long bad = 0;
      double t = MPI_Wtime();
      for (int w = 0; w < windows; w++) {
        const double until = MPI_Wtime() + 50e-6;
        while (MPI_Wtime() < until) {
        }
        for (size_t k = 0; k < unit; k++) bad += ((volatile char*)a)[((size_t)w * step * unit + k) * 4096] != (char)(r + 1);
      }
      t = MPI_Wtime() - t;
      if (bad) std::fprintf(stderr, "pagefetch_stride: %ld stale pages\n", bad);
      if (r > 0) per_window.push_back((t / windows - 50e-6) * 1e6);
    }
    OK(loom_barrier());
  }
  OK(loom_free_collective(raw));
  loom_stop(nullptr);
  return rank1_summary(per_window);
}

// Fetches that cross: both ranks fault on pages homed at the other at the
// same time, as in a transpose, each home's application thread waiting in
// its own fetch while the other's request reaches it.  Every fault fetches
// one window of `unit` pages (the barrier prefetch off); rank 0's pages are
// one allocation it wrote, rank 1's another, so each home is the writer.
// Microseconds per fetch on rank 1, warm (the first round, whose fetches
// are cold, is not counted); the pagefetch rows fetch from a home that
// waits in a barrier and asks for nothing.
Summary pagefetch_crossed(const Options& o, uint32_t unit) {
  const int fetches = o.tiny ? 6 : 24, rounds = o.tiny ? 1 : 3;
  const size_t stride = (size_t)unit * 4096, bytes = (size_t)fetches * stride;
  loom_start_with([&](loom_config_t& k) {
    k.unit_pages = unit;
    k.prefetch = 0;
  });
  char *mine[2] = {nullptr, nullptr};
  OK(loom_alloc_collective(bytes, (void**)&mine[0]));
  OK(loom_alloc_collective(bytes, (void**)&mine[1]));
  std::vector<double> got;
  volatile long sink = 0;
  for (int r = 0; r <= rounds; r++) {
    if (rank() < 2)
      for (size_t b = 0; b < bytes; b += 4096) mine[rank()][b] = (char)(r + b / 4096 % 5 + 1);
    OK(loom_barrier());
    if (rank() < 2) {
      const char* theirs = mine[1 - rank()];
      long nonzero = 0;
      for (int f = 0; f < fetches; f++) {
        const double t = MPI_Wtime();
        nonzero += ((volatile const char*)theirs)[(size_t)f * stride] != 0;
        if (rank() == 1 && r > 0) got.push_back((MPI_Wtime() - t) * 1e6);
        // Use the window, as a program does with what it fetched (a
        // transpose copies it): every cache line read once.
        long sum = 0;
        for (size_t b = 0; b < stride; b += 64) sum += ((volatile const char*)theirs)[(size_t)f * stride + b];
        sink = sink + sum;
      }
      if (nonzero != fetches) std::fprintf(stderr, "pagefetch_crossed: read %ld of %d pages written\n", nonzero, fetches);
    }
    OK(loom_barrier());
  }
  OK(loom_free_collective(mine[1]));
  OK(loom_free_collective(mine[0]));
  loom_stop(nullptr);
  return rank1_summary(got);
}

// Windows partly unclaimed: rank 0 writes 4 pages of every 5 of a fresh
// first-touch block (the 5th nobody touches), barrier, rank 1 reads the
// first of each 4 (every aligned window of the default unit then holds
// unclaimed pages, wherever the block starts, and their directory entries,
// page p's on rank p mod N, lie on every rank).  Microseconds per fault on
// rank 1, and *lookups its directory reads per fault (home_lookups): a
// fault learns the window's homes in one batched load; page by page an
// unclaimed page at the window's edge was read again, and where the
// faulting page's home was known each neighbour's entry in turn.
Summary pagefetch_sparse(const Options& o, double* lookups) {
  const int groups = o.tiny ? 16 : 256;
  loom_start_with([&](loom_config_t& k) { k.prefetch = 0; });
  double lk = 0;
  int round = 0;
  Summary s = measure(o, [&] {
    char* a = nullptr;
    OK(loom_alloc_collective_policy((size_t)groups * 5 * 4096, LOOM_HOME_FIRST_TOUCH, (void**)&a));
    round++;
    if (rank() == 0)
      for (int g = 0; g < groups; g++)
        for (int i = 0; i < 4; i++) a[((size_t)g * 5 + i) * 4096] = (char)(round + i + 1);
    OK(loom_barrier());
    double t = 0;
    if (rank() == 1) {
      loom_stats_t s0{}, s1{};
      OK(loom_stats_get(&s0));
      long right = 0;
      const double t0 = loom_wtime();
      for (int g = 0; g < groups; g++) right += ((volatile char*)a)[(size_t)g * 5 * 4096] == (char)(round + 1);
      t = loom_wtime() - t0;
      OK(loom_stats_get(&s1));
      const uint64_t faults = s1.read_faults - s0.read_faults;
      t = faults ? t / (double)faults * 1e6 : 0;
      lk = faults ? (double)(s1.home_lookups - s0.home_lookups) / (double)faults : 0;
      if (right != groups) std::fprintf(stderr, "pagefetch_sparse: read %ld of %d pages written\n", right, groups);
    }
    OK(loom_barrier());
    OK(loom_free_collective(a));
    return t;
  }, Reduce::Rank1);
  MPI_Bcast(&lk, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  *lookups = lk;
  loom_stop(nullptr);
  return s;
}

void run_pagefetch(const Options& o, Report& rep) {
  const int pages = o.tiny ? 64 : 1024;
  Summary trap = raw_trap(o), get = raw_get(o), getc = raw_get(o, true), rpc = raw_rpc(o);
  rep.add(Result{"raw_fault_trap_plus_mprotect", {}, "us", trap, {}, {}, {}});
  rep.add(Result{"raw_mpi_get_4k", {}, "us", get, {}, {}, {}});
  rep.add(Result{"raw_mpi_get_4k_created_window", {}, "us", getc, {}, {}, {}});
  rep.add(Result{"raw_mpi_request_reply_4k", {}, "us", rpc, {}, {}, {}});
  loom_config_t c;
  OK(loom_config_default(&c));
  // Fetch per fault: with the barrier prefetch off, or the warm rounds
  // (the same pages read again after every barrier: hot pages) would be
  // prefetched and measure no remote fetch at all; the prefetch has its own
  // figure below.
  for (uint32_t unit : {1u, c.unit_pages}) {
    // The raw window of warm_beside_get, made before Loom starts as the
    // raw figures' are, and kept through the phase.
    void* wbase = nullptr;
    MPI_Win w = MPI_WIN_NULL;
    if (unit == 1 && nranks() >= 2) {
      MPI_Win_allocate((MPI_Aint)pages * 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &w);
      std::memset(wbase, 7, (size_t)pages * 4096);
      MPI_Win_lock_all(0, w);
    }
    loom_start_with([&](loom_config_t& k) {
      k.unit_pages = unit;
      k.prefetch = 0;
    });
    // Cold: a fresh block each time, so the kernel also allocates the
    // reader's cache pages (and maps the home's) during the fetch.
    int round = 0;
    Summary cold = measure(o, [&] {
      char* a = nullptr;
      OK(loom_alloc_collective((size_t)pages * 4096, (void**)&a));
      double t = pagefetch_once(a, pages, ++round);
      OK(loom_free_collective(a));
      return t;
    });
    Summary round_s, warm = warm_rounds(o, pages, &round, &round_s);
    Result rc{"pagefetch_cold", {{"pages", (double)pages}, {"unit_pages", (double)unit}}, "us/page", cold, {}, {}, {}};
    rc.extra["ratio_to_trap_plus_get"] = cold.median / (trap.median + get.median);
    Result rw{"pagefetch", {{"pages", (double)pages}, {"unit_pages", (double)unit}}, "us/page", warm, {}, {}, {}};
    rw.extra["ratio_to_trap_plus_get"] = warm.median / (trap.median + get.median);
    rw.extra["ratio_to_trap_plus_get_created_window"] = warm.median / (trap.median + getc.median);
    rw.extra["ratio_to_trap_plus_request_reply"] = warm.median / (trap.median + rpc.median);
    rep.add(rc);
    rep.add(rw);
    rep.add(Result{"pagefetch_round", {{"pages", (double)pages}, {"unit_pages", (double)unit}}, "us/page", round_s,
                   {}, {}, {}});
    if (w != MPI_WIN_NULL) {
      Summary bget, bratio, beside = warm_beside_get(o, pages, &round, w, trap.median, &bget, &bratio);
      rep.add(Result{"raw_mpi_get_4k_beside_loom", {}, "us", bget, {}, {}, {}});
      Result rb{"pagefetch_beside_get", {{"pages", (double)pages}, {"unit_pages", (double)unit}}, "us/page", beside,
                {}, {}, {}};
      rb.extra["ratio_to_trap_plus_get"] = bratio.median;  // the blocks' median
      rb.extra["ratio_min"] = bratio.min;
      rb.extra["ratio_max"] = bratio.max;
      rep.add(rb);
    }
    loom_stop(unit == 1 ? nullptr : &rep);
    if (w != MPI_WIN_NULL) {
      MPI_Win_unlock_all(w);
      MPI_Win_free(&w);
    }
  }
  // The same warm rounds with the default settings: across hosts the
  // reader's pages are hot from the second round on and come during the
  // barrier (one host: fetched per fault as above).
  loom_start();
  {
    int round = 0;
    Summary round_s, warm = warm_rounds(o, pages, &round, &round_s);
    rep.add(Result{"pagefetch_default", {{"pages", (double)pages}, {"unit_pages", (double)c.unit_pages}}, "us/page",
                   warm, {}, {}, {}});
    rep.add(Result{"pagefetch_round_default", {{"pages", (double)pages}, {"unit_pages", (double)c.unit_pages}},
                   "us/page", round_s, {}, {}, {}});
  }
  loom_stop(nullptr);
  Summary by_gap[3];
  Summary busy = pagefetch_busy_home(o, by_gap);
  rep.add(Result{"pagefetch_busy_home", {{"unit_pages", 1}}, "us", busy, {}, {}, {}});
  for (int g = 0; g < 3; g++)
    rep.add(Result{"pagefetch_busy_home_after", {{"computed_us", kBusyGaps[g] * 1e6}}, "us", by_gap[g], {}, {}, {}});
  for (auto range : {std::pair<double, double>{20e-6, 600e-6}, std::pair<double, double>{1.5e-3, 4.5e-3}})
    rep.add(Result{"pagefetch_busy_home_random",
                   {{"computed_us_lo", range.first * 1e6}, {"computed_us_hi", range.second * 1e6}}, "us",
                   pagefetch_busy_random(o, range.first, range.second), {}, {}, {}});
  // The long stretches again with a window of 128 pages a fault.
  rep.add(Result{"pagefetch_busy_home_random_window",
                 {{"computed_us_lo", 1500}, {"computed_us_hi", 4500}, {"unit_pages", (double)kBusyWindow}}, "us",
                 pagefetch_busy_random(o, 1.5e-3, 4.5e-3, kBusyWindow), {}, {}, {}});
  for (bool stride : {false, true})
    rep.add(Result{"pagefetch_stride", {{"stride", stride ? 1.0 : 0.0}, {"unit_pages", (double)c.unit_pages}}, "us/window",
                   pagefetch_stride(o, stride), {}, {}, {}});
  for (uint32_t unit : {1u, c.unit_pages})
    rep.add(Result{"pagefetch_crossed", {{"unit_pages", (double)unit}}, "us", pagefetch_crossed(o, unit), {}, {}, {}});
  double lookups = 0;
  Result rs{"pagefetch_sparse", {{"unit_pages", (double)c.unit_pages}}, "us", pagefetch_sparse(o, &lookups), {}, {}, {}};
  rs.extra["home_lookups_per_fault"] = lookups;
  rep.add(rs);
}

// A halo exchange as a DSM program writes it: every rank rewrites its 4
// pages (one row of a 2048-wide grid of doubles), a barrier, then reads
// the 4 pages of the next rank; per round, the slowest rank's barrier and
// reads.  Against what the MPI program pays for the same step: one
// MPI_Sendrecv of 16 KiB with each ring neighbour.  Across hosts the
// reads' pages are hot from the third round on (default settings), so
// this is the barrier's prefetch at its smallest.
void run_halo(const Options& o, Report& rep) {
  const int N = nranks(), me = rank(), pages = 4, iters = o.iters > 0 ? o.iters : 100;
  const size_t bytes = (size_t)pages * 4096;
  std::vector<char> out(bytes, 1), in(bytes);
  Summary mpi = measure(o, [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
      MPI_Sendrecv(out.data(), (int)bytes, MPI_BYTE, (me + 1) % N, 5, in.data(), (int)bytes, MPI_BYTE,
                   (me + N - 1) % N, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return (MPI_Wtime() - t0) / iters * 1e6;
  });
  rep.add(Result{"raw_mpi_sendrecv_16k", {{"ranks", (double)N}}, "us", mpi, {}, {}, {}});
  loom_start();
  char* a = nullptr;
  OK(loom_alloc_collective((size_t)N * bytes, (void**)&a));
  char* mine = a + (size_t)me * bytes;
  const char* next = a + (size_t)((me + 1) % N) * bytes;
  std::memset(mine, 0, bytes);  // first touch: this rank is the home of its pages
  OK(loom_barrier());
  int round = 0;
  long wrong = 0;
  Summary s = measure(o, [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
      round++;
      for (int p = 0; p < pages; p++) mine[(size_t)p * 4096 + 64] = (char)(round + me);
      OK(loom_barrier());
      const char want = (char)(round + (me + 1) % N);
      for (int p = 0; p < pages; p++) wrong += ((volatile const char*)next)[(size_t)p * 4096 + 64] != want;
    }
    return (MPI_Wtime() - t0) / iters * 1e6;
  });
  OK(loom_free_collective(a));
  long all_wrong = 0;
  MPI_Allreduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  Result r{"halo_round", {{"pages", (double)pages}, {"ranks", (double)N}}, "us", s, {}, {}, {}};
  r.extra["ratio_to_mpi_sendrecv"] = s.median / mpi.median;
  r.extra["values_wrong"] = (double)all_wrong;
  rep.add(r);
  loom_stop(&rep);
}

// What a trap costs a running program beyond Loom's handler (the part a
// traced fault's record does not hold, left in the trace's computation):
// rank 1 sweeps rank 0's pages, every `stride`-th, reading each in full
// and writing one word of it, twice an interval between barriers.  The
// first sweep faults on every page it writes (the barrier dropped rank
// 1's copies, whose diffs changed their homes' pages: each fault fetches
// the page anew, or across hosts opens the copy the barrier pushed, and
// makes a twin), the second on none; the difference less the handler's
// own time (LOOM_STATS t_fault), a fault: the signal's delivery and
// return and what the fault costs the computation around it.  Stride 2
// leaves the protections alternating page by page, as a cyclic placement
// does.  Microseconds a
// fault, rank 1's rounds after the first.
Summary trap_in_program(const Options& o, int stride) {
  const int P = o.tiny ? 64 : 1024, rounds = o.tiny ? 2 : 8;
  loom_start_with([](loom_config_t& k) { k.migrate = 0; });  // (rank 1 writing them would take the pages' homes)
  char* a = nullptr;
  OK(loom_alloc_collective_at((size_t)P * 4096, 0, (void**)&a));
  if (rank() == 0) std::memset(a, 1, (size_t)P * 4096);
  OK(loom_barrier());
  std::vector<double> got;
  volatile long sink = 0;
  auto sweep = [&] {
    long sum = 0;
    for (int p = 0; p < P; p += stride) {
      char* c = a + (size_t)p * 4096;
      for (int l = 0; l < 4096; l += 64) sum += c[l];
      c[8] = (char)sum;
    }
    sink = sink + sum;
  };
  if (rank() == 1) sweep();  // read copies of every page (and the first writes' twins)
  OK(loom_barrier());
  for (int r = 0; r <= rounds; r++) {
    if (rank() == 1) {
      loom_stats_t s0, s1;
      OK(loom_stats_get(&s0));
      const double t0 = MPI_Wtime();
      sweep();
      const double t1 = MPI_Wtime();
      OK(loom_stats_get(&s1));
      sweep();
      const double t2 = MPI_Wtime();
      const double faults = (double)(s1.read_faults - s0.read_faults + s1.write_faults - s0.write_faults);
      if (r > 0 && faults > 0) got.push_back(((t1 - t0) - (t2 - t1) - (s1.t_fault - s0.t_fault)) / faults * 1e6);
    }
    OK(loom_barrier());  // rank 1's diffs home; its copies dropped
  }
  OK(loom_free_collective(a));
  loom_stop(nullptr);
  return rank1_summary(got);
}

void run_fault(const Options& o, Report& rep) {
  Summary outside;
  rep.add(Result{"raw_fault_trap_plus_mprotect", {}, "us", raw_trap(o, &outside), {}, {}, {}});
  rep.add(Result{"raw_fault_trap_outside_handler", {}, "us", outside, {}, {}, {}});
  for (int stride : {1, 2})
    rep.add(Result{"trap_in_program", {{"stride", (double)stride}}, "us", trap_in_program(o, stride), {}, {}, {}});
  // mprotect of one page, and of ranges (what an invalidation costs).
  const size_t P = 1024;
  char* m = (char*)mmap(nullptr, P * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  std::memset(m, 1, P * 4096);
  for (size_t range : {(size_t)1, (size_t)16, (size_t)256, (size_t)1024}) {
    if (o.tiny && range > 16) break;
    int flip = 0;
    Summary s = measure(o, [&] {
      const int it = 256;
      double t0 = MPI_Wtime();
      for (int i = 0; i < it; i++) {
        size_t first = range == P ? 0 : ((size_t)i * range * 3) % (P - range);
        mprotect(m + first * 4096, range * 4096, (flip ^= 1) ? PROT_NONE : PROT_READ);
      }
      mprotect(m, P * 4096, PROT_READ | PROT_WRITE);
      return (MPI_Wtime() - t0) / it * 1e6;
    });
    rep.add(Result{"mprotect_range", {{"pages", (double)range}}, "us", s, {}, {}, {}});
  }
  munmap(m, P * 4096);
  // A Loom acquire that invalidates K cached pages: rank 1 caches K pages
  // rank 0 writes every round; the barrier's acquire drops them.
  loom_start();
  for (int K : {0, 16, 256}) {
    if (o.tiny && K > 16) break;
    char* a = nullptr;
    OK(loom_alloc_collective_at((size_t)std::max(K, 1) * 4096, 0, (void**)&a));
    Summary s = measure(o, [&] {
      if (rank() == 0)
        for (int p = 0; p < K; p++) a[(size_t)p * 4096] += 1;
      OK(loom_barrier());
      if (rank() != 0)
        for (int p = 0; p < K; p++) (void)((volatile char*)a)[(size_t)p * 4096];
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      OK(loom_barrier());  // rank 1 invalidates its K copies here
      return rank() != 0 ? (MPI_Wtime() - t0) * 1e6 : 0.0;
    });
    rep.add(Result{"barrier_invalidating", {{"pages", (double)K}}, "us", s, {}, {}, {}});
    OK(loom_free_collective(a));
  }
  // First touch: every rank writes a word of each of its own FP pages of a
  // fresh block, which makes it their home; a page's directory entry is on
  // rank page mod N, so across hosts most claims are a round trip.  us a
  // page, the slowest rank's.  Then the same touched by a read only, and by
  // a read and a write (an accumulator in fresh memory: a[i] += x), which
  // faults as a read and then as a write; and read whole, then written
  // whole (a first pass that finds the fresh array zero, then one that
  // fills it: each page faults as a read in the first, as a write in the
  // second).
  const int FP = o.tiny ? 64 : 1024;
  for (const char* how : {"write", "read", "rmw", "read_then_write"}) {
    Summary ft = measure(o, [&] {
      char* a = nullptr;
      OK(loom_alloc_collective((size_t)FP * nranks() * 4096, (void**)&a));
      volatile char* mine = a + (size_t)FP * rank() * 4096;
      MPI_Barrier(MPI_COMM_WORLD);
      int sum = 0;
      double t0 = MPI_Wtime();
      if (how[0] == 'w')
        for (int p = 0; p < FP; p++) mine[(size_t)p * 4096] = 1;
      else if (how[1] == 'e') {
        for (int p = 0; p < FP; p++) sum += mine[(size_t)p * 4096];
        if (how[4] == '_')
          for (int p = 0; p < FP; p++) mine[(size_t)p * 4096] = 1;
      } else
        for (int p = 0; p < FP; p++) mine[(size_t)p * 4096] = (char)(mine[(size_t)p * 4096] + 1);
      const double t = (MPI_Wtime() - t0) / FP * 1e6;
      if (sum != 0) std::fprintf(stderr, "first_touch_read: a fresh page read %d\n", sum);
      OK(loom_barrier());
      OK(loom_free_collective(a));
      return t;
    });
    rep.add(Result{std::string("first_touch_") + how, {{"pages", (double)FP}}, "us/page", ft, {}, {}, {}});
  }
  loom_stop(&rep);
}

void run_diff(const Options& o, Report& rep) {
  // Single process (rank 0 measures): diff creation and application per
  // 4 KiB page versus the fraction of the page's 8-byte words written.
  const int pages = 256;
  std::vector<uint8_t> twin((size_t)pages * 4096), cur, home((size_t)pages * 4096),
      enc(loom::diff_max_encoded(4096) * pages);
  std::mt19937 rng(42);
  for (auto& b : twin) b = (uint8_t)rng();
  std::vector<size_t> enc_len(pages);
  for (double f : {0.0, 0.01, 0.05, 0.10, 0.25, 0.50, 1.0}) {
    cur = twin;
    std::uniform_real_distribution<double> u(0, 1);
    for (size_t w = 0; w < cur.size() / 8; w++)
      if (u(rng) < f) cur[w * 8 + rng() % 8] ^= (uint8_t)(1 + rng() % 255), cur[w * 8] ^= 0x5a;
    size_t bytes = 0;
    Summary sc = measure(o, [&] {
      double t0 = MPI_Wtime();
      bytes = 0;
      for (int p = 0; p < pages; p++) {
        enc_len[(size_t)p] = loom::diff_encode(&twin[(size_t)p * 4096], &cur[(size_t)p * 4096], 4096,
                                               &enc[(size_t)p * loom::diff_max_encoded(4096)]);
        bytes += enc_len[(size_t)p];
      }
      return (MPI_Wtime() - t0) / pages * 1e6;
    }, Reduce::Rank0);
    Summary sa = measure(o, [&] {
      home = twin;
      double t0 = MPI_Wtime();
      for (int p = 0; p < pages; p++)
        loom::diff_apply(&home[(size_t)p * 4096], 4096, &enc[(size_t)p * loom::diff_max_encoded(4096)],
                         enc_len[(size_t)p]);
      return (MPI_Wtime() - t0) / pages * 1e6;
    }, Reduce::Rank0);
    bool same = home == cur;
    Result rc{"diff_create", {{"dirty_fraction", f}}, "us/page", sc, {}, {}, {}};
    rc.extra["encoded_bytes_per_page"] = (double)bytes / pages;
    Result ra{"diff_apply", {{"dirty_fraction", f}}, "us/page", sa, {}, {}, {}};
    ra.extra["round_trip_exact"] = same ? 1 : 0;
    rep.add(rc);
    rep.add(ra);
  }
  // A release's scan of a page, by the pattern of its writes (one byte in
  // `stride`): into a list of runs (diff_runs, as releases made it before
  // the mask), and into the mask plus, where the runs are few enough to go
  // by them (Transport::mask_pays), their list (as releases make it now).
  loom::DiffRunList runs;
  std::vector<uint64_t> mask(64);
  for (int stride : {4096, 64, 4, 1}) {
    cur = twin;
    for (size_t b = 0; b < cur.size(); b += (size_t)stride) cur[b] ^= 0x5a;
    Summary sr = measure(o, [&] {
      double t0 = MPI_Wtime();
      for (int p = 0; p < pages; p++) {
        runs.clear();
        loom::diff_runs(&twin[(size_t)p * 4096], &cur[(size_t)p * 4096], 4096, loom::DiffRunList::add, &runs);
      }
      return (MPI_Wtime() - t0) / pages * 1e6;
    }, Reduce::Rank0);
    Summary sm = measure(o, [&] {
      double t0 = MPI_Wtime();
      for (int p = 0; p < pages; p++) {
        runs.clear();
        const loom::DiffMask d = loom::diff_mask(&twin[(size_t)p * 4096], &cur[(size_t)p * 4096], 4096, mask.data());
        if (!loom::Transport::mask_pays(d.runs, mask.size())) loom::mask_runs(mask.data(), mask.size(), loom::DiffRunList::add, &runs);
      }
      return (MPI_Wtime() - t0) / pages * 1e6;
    }, Reduce::Rank0);
    Result rr{"diff_scan_runs", {{"stride", (double)stride}}, "us/page", sr, {}, {}, {}};
    Result rm{"diff_scan_mask", {{"stride", (double)stride}}, "us/page", sm, {}, {}, {}};
    rm.extra["ratio_to_runs"] = sm.median / sr.median;
    rep.add(rr);
    rep.add(rm);
  }
}

void run_lock(const Options& o, Report& rep) {
  Summary cas = raw_cas(o);
  rep.add(Result{"raw_mpi_cas_round_trip", {}, "us", cas, {}, {}, {}});
  loom_start_with([&](loom_config_t& c) {
    if (!o.lock_mpi_serves) c.mpi_serves = 0;
  });
  const int it = o.tiny ? 50 : 5000;
  // Uncontended: rank 1 alone takes lock 0, whose queue tail is on rank 0.
  Summary su = measure(o, [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank() == 1)
      for (int i = 0; i < it; i++) {
        OK(loom_lock(0));
        OK(loom_unlock(0));
      }
    return (MPI_Wtime() - t0) / it * 1e6;
  }, Reduce::Rank1);
  Result ru{"lock_uncontended", {}, "us", su, {}, {}, {}};
  ru.extra["ratio_to_cas"] = su.median / cas.median;
  rep.add(ru);
  // Contended: every rank takes lock 1 repeatedly; time per acquire+release
  // pair on each rank (the slowest), so N ranks share the lock.
  Summary sc = measure(o, [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < it / 5; i++) {
      OK(loom_lock(1));
      OK(loom_unlock(1));
    }
    return (MPI_Wtime() - t0) / (it / 5) * 1e6;
  });
  rep.add(Result{"lock_contended", {{"ranks", (double)nranks()}}, "us", sc, {}, {}, {}});
  // Alternating: ranks 0 and 1 take turns at lock 2 (its tail on rank 0 or,
  // with 3 ranks or more, on rank 2), passing the turn by an MPI message, so
  // that every acquire takes the lock from the other rank: the worst case
  // for a lock its last holder keeps.  Per turn, against the same turns
  // passed without the lock.
  // Each rank's own takes are timed too (lock and unlock, µs a take, each
  // sample's mean).  At 2 ranks lock 2's home is rank 0: rank 1's take
  // asks a home on the other host whose application thread waits outside
  // Loom (its protocol thread serves the request).  Across hosts a rank
  // keeps a lock homed on another host at its unlock, but a keep given up
  // before any re-take cools it off (src/sync.cpp), so in these turns rank
  // 1 soon keeps nothing and rank 0's take finds the lock released to its
  // home.  In a third set of turns rank 1 takes the lock twice a turn (the
  // second take re-takes its keep), so that every take of rank 0's kicks
  // the lock from its keeper.
  // The rank whose turn it is not waits in MPI_Recv, which across hosts
  // serves Loom's requests itself (LOOM_MPI_SERVES); in the _busy rows it
  // computes instead, testing its receive every 20 us (as a program that
  // computes calls MPI now and then), so that a request to it waits for its
  // protocol thread, as in a program whose ranks compute between their
  // locks (Barnes-Hut's): the rows the performance model is calibrated on.
  const int na = it / 10;
  std::vector<double> own;  // this rank's first take of its turn, a sample
  auto await_turn = [&](int* tok, int from, bool busy) {
    if (!busy) {
      MPI_Recv(tok, 1, MPI_INT, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      return;
    }
    MPI_Request rq;
    MPI_Irecv(tok, 1, MPI_INT, from, 7, MPI_COMM_WORLD, &rq);
    for (int done = 0; !done;) {
      const double until = MPI_Wtime() + 20e-6;
      while (MPI_Wtime() < until) {
      }
      MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    }
  };
  auto turns = [&](int takes, bool busy = false) {  // takes: rank 1's a turn (rank 0's: 1, or none when 0)
    own.clear();
    return measure(o, [&] {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime(), took = 0;
      int tok = 0;
      for (int i = 0; i < na && rank() < 2; i++) {
        if (rank() == 1) await_turn(&tok, 0, busy);
        for (int k = 0; k < (rank() == 1 ? takes : std::min(takes, 1)); k++) {
          const double t = MPI_Wtime();
          OK(loom_lock(2));
          OK(loom_unlock(2));
          if (k == 0) took += MPI_Wtime() - t;
        }
        MPI_Send(&tok, 1, MPI_INT, 1 - rank(), 7, MPI_COMM_WORLD);
        if (rank() == 0) await_turn(&tok, 1, busy);
      }
      own.push_back(took / na * 1e6);
      return (MPI_Wtime() - t0) / (2.0 * na) * 1e6;
    }, Reduce::Rank0);
  };
  auto own_of = [&](int r) {  // the samples after the warm-up ones
    std::vector<double> v(own.begin() + std::min<size_t>(own.size(), (size_t)o.warmup), own.end());
    return rank_summary(v, r);
  };
  Summary bare = turns(0), sa = turns(1);
  Summary after_release = own_of(0), through_home = own_of(1);
  turns(2);
  Summary kick = own_of(0);
  rep.add(Result{"lock_turns_bare", {}, "us", bare, {}, {}, {}});
  Result ra{"lock_alternating", {}, "us", sa, {}, {}, {}};
  ra.extra["lock_part_us"] = sa.median - bare.median;
  ra.extra["lock_part_ratio_to_cas"] = (sa.median - bare.median) / cas.median;
  rep.add(ra);
  rep.add(Result{"lock_take_through_home", {}, "us", through_home, {}, {}, {}});
  rep.add(Result{"lock_take_after_release", {}, "us", after_release, {}, {}, {}});
  rep.add(Result{"lock_take_kick", {}, "us", kick, {}, {}, {}});
  Summary bare_busy = turns(0, true), sa_busy = turns(1, true);
  Summary through_home_busy = own_of(1);
  turns(2, true);
  Summary kick_busy = own_of(0);
  rep.add(Result{"lock_turns_bare_busy", {}, "us", bare_busy, {}, {}, {}});
  Result rab{"lock_alternating_busy", {}, "us", sa_busy, {}, {}, {}};
  rab.extra["lock_part_us"] = sa_busy.median - bare_busy.median;
  rep.add(rab);
  rep.add(Result{"lock_take_through_home_busy", {}, "us", through_home_busy, {}, {}, {}});
  rep.add(Result{"lock_take_kick_busy", {}, "us", kick_busy, {}, {}, {}});
  loom_stop(&rep);
}

// Synchronization against the rank count, sized for runs of hundreds of
// ranks on a few cores (few iterations: with more ranks than cores every
// wait is a context switch): MPI_Barrier, loom_barrier, a lock handed from
// rank to rank (every rank takes it `it` times; per hand-over), and a lock
// the last rank takes alone, its queue tail on rank 0.
void run_scale(const Options& o, Report& rep) {
  const int N = nranks(), me = rank();
  const int it = o.iters ? o.iters : (o.tiny ? 3 : 20);
  loom_start();
  const std::map<std::string, double> at = {{"ranks", (double)N}};
  Summary mpi = measure(o, [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < it; i++) MPI_Barrier(MPI_COMM_WORLD);
    return (MPI_Wtime() - t0) / it * 1e6;
  });
  rep.add(Result{"scale_barrier_mpi", at, "us", mpi, {}, {}, {}});
  Summary lb = measure(o, [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < it; i++) OK(loom_barrier());
    return (MPI_Wtime() - t0) / it * 1e6;
  });
  Result rb{"scale_barrier_loom", at, "us", lb, {}, {}, {}};
  rb.extra["ratio_to_mpi"] = lb.median / mpi.median;
  rep.add(rb);
  Summary ho = measure(o, [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < it; i++) {
      OK(loom_lock(1));
      OK(loom_unlock(1));
    }
    OK(loom_barrier());
    return (MPI_Wtime() - t0) / ((double)it * N) * 1e6;
  });
  rep.add(Result{"scale_lock_handover", at, "us", ho, {}, {}, {}});
  Summary un = measure(o, [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (me == N - 1)
      for (int i = 0; i < 10 * it; i++) {
        OK(loom_lock(0));
        OK(loom_unlock(0));
      }
    return me == N - 1 ? (MPI_Wtime() - t0) / (10.0 * it) * 1e6 : 0.0;
  });
  rep.add(Result{"scale_lock_uncontended", at, "us", un, {}, {}, {}});
  loom_stop(&rep);
}

void run_barrier_dirty(const Options& o, Report& rep) {
  // Homes stay put: a page only one rank writes would move to it after two
  // barriers (LOOM_MIGRATE), and then make no diff to time.
  loom_start_with([](loom_config_t& k) { k.migrate = 0; });
  const int N = nranks(), me = rank();
  Summary mpi = measure(o, [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < 100; i++) MPI_Barrier(MPI_COMM_WORLD);
    return (MPI_Wtime() - t0) / 100 * 1e6;
  });
  rep.add(Result{"barrier_mpi", {{"ranks", (double)N}}, "us", mpi, {}, {}, {}});
  // Each rank dirties d pages homed at the next rank (one word each), then
  // the barrier is timed: it makes d twins' diffs and puts them.
  std::vector<char*> block(N);
  const int maxd = o.tiny ? 16 : 256;
  for (int h = 0; h < N; h++) OK(loom_alloc_collective_at((size_t)maxd * 4096, h, (void**)&block[h]));
  char* mine = block[(me + 1) % N];
  for (int d : {0, 1, 16, 256}) {
    if (d > maxd) break;
    int round = 0;
    Summary s = measure(o, [&] {
      round++;
      for (int p = 0; p < d; p++) mine[(size_t)p * 4096 + 8 * me] = (char)round;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      OK(loom_barrier());
      return (MPI_Wtime() - t0) * 1e6;
    });
    Result r{"barrier_dirty", {{"dirty_pages", (double)d}, {"ranks", (double)N}}, "us", s, {}, {}, {}};
    r.extra["ratio_to_mpi_barrier"] = s.median / mpi.median;
    rep.add(r);
  }
  // 16 pages with 64 separate runs of changed bytes each (every 64th byte)
  // against 16 pages rewritten whole: a diff should cost by its bytes, not
  // by its runs (over TCP each run used to be a message of its own).
  const int d = std::min(16, maxd);
  auto dirty_barrier = [&](int stride) {
    int round = 0;
    return measure(o, [&] {
      round++;
      for (int p = 0; p < d; p++)
        for (int b = 0; b < 4096; b += stride) mine[(size_t)p * 4096 + b] = (char)round;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      OK(loom_barrier());
      return (MPI_Wtime() - t0) * 1e6;
    });
  };
  // And every 4th byte (1,024 runs of one byte a page, as IS's counters
  // change): where each run had a 16-byte head of its own on the request
  // path, such a diff was 6 times the page.
  Summary whole = dirty_barrier(1);
  rep.add(Result{"barrier_dirty_rewritten", {{"dirty_pages", (double)d}, {"ranks", (double)N}}, "us", whole, {}, {}, {}});
  for (int stride : {64, 4}) {
    Summary scattered = dirty_barrier(stride);
    Result sr{"barrier_dirty_scattered", {{"dirty_pages", (double)d}, {"runs_per_page", 4096.0 / stride}, {"ranks", (double)N}},
              "us", scattered, {}, {}, {}};
    sr.extra["ratio_to_rewritten"] = scattered.median / whole.median;
    rep.add(sr);
  }
  loom_stop(&rep);
}

void run_remote_rw(const Options& o, Report& rep) {
  // Rank 1 writes (memcpy) S bytes into memory homed at rank 0 and releases
  // (barrier), and reads (memcpy out) S bytes rank 0 wrote: MB/s through
  // Loom, next to a local memcpy of the same size.
  const size_t S = o.tiny ? (256u << 10) : (16u << 20);
  std::vector<char> src(S, 3), dst(S);
  Summary local = measure(o, [&] {
    double t0 = MPI_Wtime();
    std::memcpy(dst.data(), src.data(), S);
    return (double)S / (MPI_Wtime() - t0) / 1e6;
  }, Reduce::Rank0);
  rep.add(Result{"memcpy_local", {{"bytes", (double)S}}, "MB/s", local, {}, {}, {}});
  loom_start();
  Summary w = measure(o, [&] {
    char* a = nullptr;
    OK(loom_alloc_collective_at(S, 0, (void**)&a));
    if (rank() == 1) (void)((volatile char*)a)[0];  // not the fetch of a whole block: one page
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank() == 1) std::memcpy(a, src.data(), S);
    OK(loom_barrier());  // the diffs reach the home here
    double t = MPI_Wtime() - t0;
    OK(loom_free_collective(a));
    return rank() == 1 ? (double)S / t / 1e6 : 0.0;
  }, Reduce::Rank1);
  Summary rd = measure(o, [&] {
    char* a = nullptr;
    OK(loom_alloc_collective_at(S, 0, (void**)&a));
    if (rank() == 0) std::memset(a, 5, S);
    OK(loom_barrier());
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank() == 1) std::memcpy(dst.data(), a, S);
    double t = MPI_Wtime() - t0;
    OK(loom_barrier());
    OK(loom_free_collective(a));
    return rank() == 1 ? (double)S / t / 1e6 : 0.0;
  }, Reduce::Rank1);
  Result rw{"remote_write_memcpy", {{"bytes", (double)S}}, "MB/s", w, {}, {}, {}};
  rw.extra["fraction_of_local_memcpy"] = w.median / local.median;
  Result rr{"remote_read_memcpy", {{"bytes", (double)S}}, "MB/s", rd, {}, {}, {}};
  rr.extra["fraction_of_local_memcpy"] = rd.median / local.median;
  rep.add(rw);
  rep.add(rr);
  loom_stop(&rep);
}

// Jacobi 2-D, rows split across ranks, written the plain way: two arrays,
// each rank initializes and updates its own rows, a barrier per sweep.
// The kernel takes arrays that start at global row `first` (0 for the whole
// grid; the MPI reference keeps its rows and two halo rows).
namespace {
void sweep(const double* a, double* b, int n, int r0, int r1, int first = 0) {
  for (int i = std::max(r0, 1); i < std::min(r1, n - 1); i++) {
    const size_t k = (size_t)(i - first) * n;
    for (int j = 1; j < n - 1; j++)
      b[k + j] = 0.25 * (a[k - n + j] + a[k + n + j] + a[k + j - 1] + a[k + j + 1]);
  }
}
void init_rows(double* a, double* b, int n, int r0, int r1, int first = 0) {
  for (int i = r0; i < r1; i++)
    for (int j = 0; j < n; j++) {
      double v = (i == 0 || j == 0) ? 1.0 : 0.0;
      a[(size_t)(i - first) * n + j] = v;
      b[(size_t)(i - first) * n + j] = v;
    }
}

double checksum(const double* a, int n) {
  double s = 0;
  for (size_t k = 0; k < (size_t)n * n; k++) s += a[k] * (double)(k % 7 + 1);
  return s;
}

// `sweeps` sweeps of rows [r0, r1), from a into b and back, with a Loom
// barrier after each when `barrier`: the seconds they took.  The result is
// in a after an even number of sweeps, in b after an odd one.
double timed_sweeps(double* a, double* b, int n, int r0, int r1, int sweeps, bool barrier) {
  const double t0 = MPI_Wtime();
  double *x = a, *y = b;
  for (int s = 0; s < sweeps; s++) {
    sweep(x, y, n, r0, r1);
    if (barrier) OK(loom_barrier());
    std::swap(x, y);
  }
  return MPI_Wtime() - t0;
}

// The hand-written MPI reference: each rank keeps its rows [r0, r1) and one
// halo row on each side, and before each sweep exchanges its edge rows with
// its neighbours (MPI_Sendrecv, as an MPI programmer writes it).  Returns the
// seconds of the sweeps; *sum gets the result's checksum on rank 0.
double mpi_jacobi(int n, int sweeps, double* sum) {
  const int me = rank(), N = nranks();
  const int r0 = (int)((long)n * me / N), r1 = (int)((long)n * (me + 1) / N);
  const int first = r0 - 1, rows = r1 - r0 + 2;  // halo rows first and r1
  std::vector<double> A((size_t)rows * n), B((size_t)rows * n);
  init_rows(A.data(), B.data(), n, std::max(first, 0), std::min(r1 + 1, n), first);
  const int up = me > 0 ? me - 1 : MPI_PROC_NULL, down = me < N - 1 ? me + 1 : MPI_PROC_NULL;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  double *x = A.data(), *y = B.data();
  for (int s = 0; s < sweeps; s++) {
    MPI_Sendrecv(x + (size_t)1 * n, n, MPI_DOUBLE, up, 1, x + (size_t)(rows - 1) * n, n, MPI_DOUBLE, down, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(x + (size_t)(rows - 2) * n, n, MPI_DOUBLE, down, 2, x, n, MPI_DOUBLE, up, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    sweep(x, y, n, r0, r1, first);
    std::swap(x, y);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0;
  // Gather the rows on rank 0 for the checksum (not timed).
  std::vector<int> counts(N), displs(N);
  for (int r = 0; r < N; r++) {
    const int a = (int)((long)n * r / N), b = (int)((long)n * (r + 1) / N);
    counts[r] = (b - a) * n;
    displs[r] = a * n;
  }
  std::vector<double> all(me == 0 ? (size_t)n * n : 0);
  MPI_Gatherv(x + n, (r1 - r0) * n, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  if (me == 0) *sum = checksum(all.data(), n);
  return t;
}
}  // namespace

void run_jacobi(const Options& o, Report& rep, int n, int sweeps) {
  const int me = rank(), N = nranks();
  double sum_seq = 0;
  std::vector<double> A, B;
  if (me == 0) {
    A.resize((size_t)n * n);
    B.resize((size_t)n * n);
  }
  // Sequential baseline on rank 0, plain memory; the other ranks sleep in a
  // quiet barrier so that the baseline has the machine to itself.
  Summary seq;
  if (me == 0) seq = measure_local(o, [&] {
    init_rows(A.data(), B.data(), n, 0, n);
    const double t = timed_sweeps(A.data(), B.data(), n, 0, n, sweeps, false);
    sum_seq = checksum(sweeps % 2 ? B.data() : A.data(), n);
    return t;
  });
  quiet_barrier();
  MPI_Bcast(&seq, sizeof seq, MPI_BYTE, 0, MPI_COMM_WORLD);
  double sum_mpi = 0;
  // LOOM_STATS and LOOM_STATS_FILE report the last block's Loom only.
  auto start = [](bool report) {
    loom_start_with([&](loom_config_t& c) {
      if (!report) c.stats = 0, c.stats_file[0] = '\0';
    }, false);
  };
  // The MPI code and Loom alternate in blocks, so that a drift of the
  // machine's speed (2x between runs on the shared 2-core machine) hits
  // them alike: each block runs the MPI code (Loom stopped: its helper
  // threads would share the cores), then starts Loom and runs one rank on
  // Loom memory (rank 0 initializes, so homes, and sweeps every row alone,
  // with no barrier to take; the others sleep), then N ranks; each a
  // warm-up sample and 2 samples.  ratio_to_mpi_halo and
  // speedup_over_1_rank are the medians of the blocks' ratios of medians;
  // the summaries pool every block's samples.  The statistics (LOOM_STATS,
  // the JSON's loom_stats) are the last block's N-rank samples.
  const int blocks = o.tiny ? 1 : std::max(3, (o.max_reps + 1) / 2);
  Options ob = o;
  ob.warmup = 1;
  ob.min_reps = ob.max_reps = 2;
  const int r0 = (int)((long)n * me / N), r1 = (int)((long)n * (me + 1) / N);
  std::vector<double> mpi_all, one_all, par_all, ratios, speedups;
  double sum = 0;
  for (int k = 0; k < blocks; k++) {
    std::vector<double> vm, vl;
    measure(ob, [&] { return mpi_jacobi(n, sweeps, &sum_mpi); }, Reduce::Max, &vm);
    start(k == blocks - 1);
    double *a1 = nullptr, *b1 = nullptr;
    OK(loom_alloc_collective((size_t)n * n * sizeof(double), (void**)&a1));
    OK(loom_alloc_collective((size_t)n * n * sizeof(double), (void**)&b1));
    Summary one_k;
    std::vector<double> v1;  // every sample, the warm-up's first
    if (me == 0) {
      one_k = measure_local(ob, [&] {
        init_rows(a1, b1, n, 0, n);
        const double t = timed_sweeps(a1, b1, n, 0, n, sweeps, false);
        v1.push_back(t);
        return t;
      });
      if ((int)v1.size() > one_k.reps) v1.erase(v1.begin(), v1.end() - one_k.reps);
    }
    quiet_barrier();
    MPI_Bcast(&one_k, sizeof one_k, MPI_BYTE, 0, MPI_COMM_WORLD);
    int nv1 = (int)v1.size();
    MPI_Bcast(&nv1, 1, MPI_INT, 0, MPI_COMM_WORLD);
    v1.resize((size_t)nv1);
    MPI_Bcast(v1.data(), nv1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    OK(loom_free_collective(b1));
    OK(loom_free_collective(a1));
    double *a = nullptr, *b = nullptr;
    OK(loom_alloc_collective((size_t)n * n * sizeof(double), (void**)&a));
    OK(loom_alloc_collective((size_t)n * n * sizeof(double), (void**)&b));
    OK(loom_barrier());
    OK(loom_stats_reset());
    measure(ob, [&] {
      init_rows(a, b, n, r0, r1);
      OK(loom_barrier());
      return timed_sweeps(a, b, n, r0, r1, sweeps, true);
    }, Reduce::Max, &vl);
    // The result, once (every sample computes the same): rank 0 reads the
    // whole grid, which fetched the other ranks' halves in every sample
    // and filled LOOM_STATS with those fetches.  The sweeps' last barrier
    // published every rank's rows.
    if (me == 0 && k == blocks - 1) sum = checksum(sweeps % 2 ? b : a, n);
    OK(loom_barrier());
    OK(loom_free_collective(b));
    OK(loom_free_collective(a));
    loom_stop(k == blocks - 1 ? &rep : nullptr);
    ratios.push_back(summarize(vl).median / summarize(vm).median);
    speedups.push_back(one_k.median / summarize(vl).median);
    mpi_all.insert(mpi_all.end(), vm.begin(), vm.end());
    one_all.insert(one_all.end(), v1.begin(), v1.end());
    par_all.insert(par_all.end(), vl.begin(), vl.end());
  }
  rep.note("loom_stats", "Loom's statistics cover the last block of " + std::to_string(N) +
                             "-rank Jacobi samples (its warm-up included)");
  const Summary mpi = summarize(mpi_all), par = summarize(par_all), ratio = summarize(ratios);
  const Summary one = summarize(one_all), speedup = summarize(speedups);
  Result rs{"jacobi_sequential", {{"n", (double)n}, {"sweeps", (double)sweeps}}, "s", seq, {}, {}, {}};
  Result rone{"jacobi_loom", {{"n", (double)n}, {"sweeps", (double)sweeps}, {"ranks", 1}}, "s", one, {}, {}, {}};
  Result rl{"jacobi_loom", {{"n", (double)n}, {"sweeps", (double)sweeps}, {"ranks", (double)N}}, "s", par, {}, {}, {}};
  Result rm{"jacobi_mpi_halo", {{"n", (double)n}, {"sweeps", (double)sweeps}, {"ranks", (double)N}}, "s", mpi, {}, {}, {}};
  double valid[2] = {me == 0 ? (sum == sum_seq ? 1.0 : 0.0) : 0, me == 0 ? (sum_mpi == sum_seq ? 1.0 : 0.0) : 0};
  MPI_Bcast(valid, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  rl.extra["speedup_over_sequential"] = seq.median / par.median;
  rl.extra["speedup_over_1_rank"] = speedup.median;  // the median of the blocks' speed-ups
  rl.extra["speedup_over_1_rank_min"] = speedup.min;
  rl.extra["speedup_over_1_rank_max"] = speedup.max;
  rl.extra["ratio_to_mpi_halo"] = ratio.median;              // the median of the blocks' ratios
  rl.extra["ratio_to_mpi_halo_min"] = ratio.min;
  rl.extra["ratio_to_mpi_halo_max"] = ratio.max;
  rl.extra["ratio_of_medians"] = par.median / mpi.median;  // the pooled samples' (the figure before blocks)
  rl.extra["blocks"] = (double)blocks;
  rl.extra["result_identical"] = valid[0];
  rm.extra["speedup_over_sequential"] = seq.median / mpi.median;
  rm.extra["result_identical"] = valid[1];
  rep.add(rs);
  rep.add(rone);
  rep.add(rl);
  rep.add(rm);
  if (me == 0)
    std::printf("jacobi %dx%d, %d sweeps: sequential %.3f s, Loom 1 rank %.3f s, Loom %d ranks %.3f s: "
                "speed-up %.2f over 1 rank, %.2f over sequential, %s; MPI halo exchange %.3f s (%s), "
                "Loom/MPI %.2f (median of the blocks' ratios)\n",
                n, n, sweeps, seq.median, one.median, N, par.median, speedup.median,
                seq.median / par.median, valid[0] ? "result identical" : "RESULT DIFFERS", mpi.median,
                valid[1] ? "result identical" : "RESULT DIFFERS", ratio.median);
}

// Home migration: Jacobi whose arrays rank 0 initializes alone (so rank 0
// homes every page and the other rank writes its rows through twins and
// diffs), against Jacobi whose ranks initialize their own rows; each with
// LOOM_MIGRATE off and on.  Fresh arrays every sample, so the migrations
// themselves are inside the timed sweeps.
void run_migrate(const Options& o, Report& rep, int n, int sweeps) {
  const int me = rank(), N = nranks();
  const int r0 = (int)((long)n * me / N), r1 = (int)((long)n * (me + 1) / N);
  for (int rank0_init : {0, 1}) {
    double off = 0;
    for (int mig : {0, 1}) {
      loom_start_with([&](loom_config_t& c) { c.migrate = mig; });
      Summary s = measure(o, [&] {
        double *a = nullptr, *b = nullptr;
        OK(loom_alloc_collective((size_t)n * n * sizeof(double), (void**)&a));
        OK(loom_alloc_collective((size_t)n * n * sizeof(double), (void**)&b));
        if (rank0_init) {
          if (me == 0) init_rows(a, b, n, 0, n);
        } else {
          init_rows(a, b, n, r0, r1);
        }
        OK(loom_barrier());
        const double t = timed_sweeps(a, b, n, r0, r1, sweeps, true);
        OK(loom_free_collective(b));
        OK(loom_free_collective(a));
        return t;
      });
      loom_stats_t st;
      OK(loom_stats_get(&st));
      Result r{rank0_init ? "jacobi_rank0_initializes" : "jacobi_ranks_initialize_own_rows",
               {{"n", (double)n}, {"sweeps", (double)sweeps}, {"migrate", (double)mig}}, "s", s, {}, {}, {}};
      double migs = (double)st.migrations, all = 0;
      MPI_Allreduce(&migs, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      r.extra["migrations_all_samples"] = all;
      if (mig) r.extra["speedup_from_migration"] = off / s.median;
      else off = s.median;
      rep.add(r);
      loom_stop(nullptr);
    }
  }
}

}  // namespace bench
