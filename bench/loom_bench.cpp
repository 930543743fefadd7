// loom_bench: the benchmarks behind docs/BENCHMARKS.md.
//
//   mpiexec -n 2 loom_bench [pagefetch|barrier|lock|jacobi|all] [--reps N]
//                           [--json PATH] [--n 2048] [--sweeps 50]
//
// Every figure is the median over repetitions, printed next to the raw MPI
// figure measured by the same program in the same run, so that the ratio is
// read on one machine at one moment (the machines are shared and noisy).
// JSON: {"name", "ranks", "mpi", "params", "figures", "stats", "config"}.
#include <loom/loom.h>
#include <mpi.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

int g_rank = 0, g_n = 1, g_reps = 15;
std::string g_json;
std::map<std::string, double> g_fig;     // figure name -> value
std::map<std::string, std::string> g_par;  // parameter name -> value
std::string g_stats = "null";

void die(const char* what, loom_status_t s) {
  std::fprintf(stderr, "loom_bench: %s: %s (%s)\n", what, loom_strerror(s), loom_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
}
#define OK(e)                    \
  do {                           \
    loom_status_t s_ = (e);      \
    if (s_ != LOOM_OK) die(#e, s_); \
  } while (0)

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Rank 0's view of a per-rank measurement: the maximum over ranks.
double max_all(double x) {
  double m = 0;
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

void fig(const std::string& k, double v) { g_fig[k] = v; }

void start_loom(uint32_t unit_pages) {
  loom_config_t cfg;
  OK(loom_config_default(&cfg));
  if (unit_pages) cfg.unit_pages = unit_pages;
  OK(loom_init(nullptr, nullptr, &cfg));
}

void save_stats() {
  char buf[4096];
  if (loom_stats_json(buf, sizeof buf) == LOOM_OK) g_stats = buf;
}

// ---- raw costs measured by this program --------------------------------

volatile sig_atomic_t g_trap_hits = 0;
void trap_handler(int, siginfo_t* si, void*) {
  uintptr_t a = (uintptr_t)si->si_addr & ~(uintptr_t)4095;
  mprotect((void*)a, 4096, PROT_READ | PROT_WRITE);
  g_trap_hits = g_trap_hits + 1;
}

// One fault trap plus the mprotect that resolves it, and one mprotect alone,
// in microseconds (before Loom installs its handler).
void measure_trap(double* trap_us, double* mprotect_us) {
  const int P = 1024;
  struct sigaction sa, old;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = trap_handler;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, &old);
  char* m = (char*)mmap(nullptr, P * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  std::memset(m, 1, P * 4096);
  std::vector<double> t1, t2;
  for (int rep = 0; rep < g_reps; rep++) {
    mprotect(m, P * 4096, PROT_NONE);
    double t0 = MPI_Wtime();
    for (int p = 0; p < P; p++) {
      volatile char* c = m + (size_t)p * 4096;
      *c = (char)(*c + 1);
    }
    t1.push_back((MPI_Wtime() - t0) / P * 1e6);
    t0 = MPI_Wtime();
    for (int p = 0; p < P; p++) mprotect(m + p * 4096, 4096, (p + rep) % 2 ? PROT_READ : PROT_NONE);
    t2.push_back((MPI_Wtime() - t0) / P * 1e6);
    mprotect(m, P * 4096, PROT_READ | PROT_WRITE);
  }
  sigaction(SIGSEGV, &old, nullptr);
  munmap(m, P * 4096);
  *trap_us = median(t1);
  *mprotect_us = median(t2);
}

// Raw MPI one-sided figures between rank 0 (target) and rank 1 (origin), in
// microseconds: a 4 KiB get with flush, a compare-and-swap round trip.
void measure_rma(double* get_us, double* cas_us) {
  const int P = 1024;
  void* base = nullptr;
  MPI_Win w;
  MPI_Win_allocate((MPI_Aint)P * 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
  std::memset(base, 7, (size_t)P * 4096);
  std::vector<char> buf(4096);
  std::vector<double> tg, tc;
  MPI_Win_lock_all(0, w);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int rep = 0; rep < g_reps; rep++) {
    if (g_rank == 1) {
      double t0 = MPI_Wtime();
      for (int p = 0; p < P; p++) {
        MPI_Get(buf.data(), 4096, MPI_BYTE, 0, (MPI_Aint)p * 4096, 4096, MPI_BYTE, w);
        MPI_Win_flush(0, w);
      }
      tg.push_back((MPI_Wtime() - t0) / P * 1e6);
      uint64_t cmp = 0, val = 1, res = 0;
      t0 = MPI_Wtime();
      for (int i = 0; i < P; i++) {
        MPI_Compare_and_swap(&val, &cmp, &res, MPI_UINT64_T, 0, 0, w);
        MPI_Win_flush(0, w);
        std::swap(cmp, val);
      }
      tc.push_back((MPI_Wtime() - t0) / P * 1e6);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Win_unlock_all(w);
  MPI_Win_free(&w);
  double g = median(tg), c = median(tc);
  MPI_Bcast(&g, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  MPI_Bcast(&c, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  *get_us = g;
  *cas_us = c;
}

// ---- Loom benchmarks -----------------------------------------------------

// Rank 0 writes 1024 pages, barrier, every other rank reads one word of each
// (the NEWGENDSM page-fetch benchmark).  Microseconds per page.
double pagefetch_once(int pages) {
  char* a = nullptr;
  OK(loom_alloc_collective((size_t)pages * 4096, (void**)&a));
  if (g_rank == 0)
    for (int p = 0; p < pages; p++) a[(size_t)p * 4096] = (char)p;
  OK(loom_barrier());
  double t = 0;
  if (g_rank != 0) {
    long sum = 0;
    double t0 = loom_wtime();
    for (int p = 0; p < pages; p++) sum += ((volatile char*)a)[(size_t)p * 4096];
    t = (loom_wtime() - t0) / pages * 1e6;
    if (sum == 42) std::printf(" ");
  }
  OK(loom_barrier());
  OK(loom_free_collective(a));
  return max_all(t);
}

void bench_pagefetch() {
  const int pages = 1024;
  double trap, mp, get, cas;
  measure_trap(&trap, &mp);
  measure_rma(&get, &cas);
  fig("raw_fault_trap_us", trap);
  fig("raw_mprotect_us", mp);
  fig("raw_mpi_get_4k_us", get);
  for (uint32_t unit : {1u, 0u}) {
    start_loom(unit);
    std::vector<double> t;
    for (int rep = 0; rep < g_reps; rep++) t.push_back(pagefetch_once(pages));
    loom_config_t c;
    OK(loom_config_default(&c));
    std::string k = unit == 1 ? "pagefetch_unit1_us_per_page" : "pagefetch_default_us_per_page";
    fig(k, median(t));
    if (unit == 0) {
      fig("default_unit_pages", c.unit_pages);
      save_stats();
    }
    OK(loom_finalize());
  }
  fig("pagefetch_unit1_ratio_to_trap_plus_get", g_fig["pagefetch_unit1_us_per_page"] / (trap + get));
  g_par["pages"] = std::to_string(pages);
}

void bench_barrier() {
  const int iters = 2000;
  start_loom(0);
  std::vector<double> tl, tm;
  for (int rep = 0; rep < g_reps; rep++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) MPI_Barrier(MPI_COMM_WORLD);
    tm.push_back(max_all((MPI_Wtime() - t0) / iters * 1e6));
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) OK(loom_barrier());
    tl.push_back(max_all((MPI_Wtime() - t0) / iters * 1e6));
  }
  fig("mpi_barrier_us", median(tm));
  fig("loom_barrier_us", median(tl));
  fig("loom_barrier_ratio_to_mpi", median(tl) / median(tm));
  save_stats();
  OK(loom_finalize());
  g_par["barrier_iters"] = std::to_string(iters);
}

void bench_lock() {
  const int iters = 5000;
  double get, cas;
  measure_rma(&get, &cas);
  fig("raw_mpi_cas_us", cas);
  start_loom(0);
  std::vector<double> tu, tc;
  for (int rep = 0; rep < g_reps; rep++) {
    // Uncontended: rank 1 takes lock 0 (hosted on rank 0) alone.
    MPI_Barrier(MPI_COMM_WORLD);
    double t = 0;
    if (g_rank == 1) {
      double t0 = loom_wtime();
      for (int i = 0; i < iters; i++) {
        OK(loom_lock(0));
        OK(loom_unlock(0));
      }
      t = (loom_wtime() - t0) / iters * 1e6;
    }
    tu.push_back(max_all(t));
    // Contended: every rank takes the same lock.
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = loom_wtime();
    for (int i = 0; i < iters / 5; i++) {
      OK(loom_lock(0));
      OK(loom_unlock(0));
    }
    tc.push_back(max_all((loom_wtime() - t0) / (iters / 5) * 1e6));
  }
  fig("lock_uncontended_us", median(tu));
  fig("lock_uncontended_ratio_to_cas", median(tu) / cas);
  fig("lock_contended_us_per_pair_per_rank", median(tc));
  save_stats();
  OK(loom_finalize());
}

// Jacobi 2-D, rows split across ranks, written the plain way: two arrays, each
// rank initializes and updates its own rows, a barrier after every sweep.
void sweep(const double* a, double* b, int n, int r0, int r1) {
  for (int i = std::max(r0, 1); i < std::min(r1, n - 1); i++)
    for (int j = 1; j < n - 1; j++)
      b[(size_t)i * n + j] = 0.25 * (a[(size_t)(i - 1) * n + j] + a[(size_t)(i + 1) * n + j] +
                                     a[(size_t)i * n + j - 1] + a[(size_t)i * n + j + 1]);
}
void init_rows(double* a, double* b, int n, int r0, int r1) {
  for (int i = r0; i < r1; i++)
    for (int j = 0; j < n; j++) {
      double v = (i == 0 || j == 0) ? 1.0 : 0.0;  // hot top and left edges
      a[(size_t)i * n + j] = v;
      b[(size_t)i * n + j] = v;
    }
}
double checksum(const double* a, int n) {
  double s = 0;
  for (size_t k = 0; k < (size_t)n * n; k++) s += a[k] * (double)(k % 7 + 1);
  return s;
}

void bench_jacobi(int n, int sweeps) {
  // Sequential baseline on rank 0, plain memory (the others wait).
  double t_seq = 0, sum_seq = 0;
  if (g_rank == 0) {
    std::vector<double> A((size_t)n * n), B((size_t)n * n);
    double* a = A.data();
    double* b = B.data();
    init_rows(a, b, n, 0, n);
    double t0 = MPI_Wtime();
    for (int s = 0; s < sweeps; s++) {
      sweep(a, b, n, 0, n);
      std::swap(a, b);
    }
    t_seq = MPI_Wtime() - t0;
    sum_seq = checksum(a, n);
  }
  MPI_Bcast(&t_seq, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  start_loom(0);
  double *a = nullptr, *b = nullptr;
  OK(loom_alloc_collective((size_t)n * n * sizeof(double), (void**)&a));
  OK(loom_alloc_collective((size_t)n * n * sizeof(double), (void**)&b));
  int r0 = (int)((long)n * g_rank / g_n), r1 = (int)((long)n * (g_rank + 1) / g_n);
  init_rows(a, b, n, r0, r1);
  OK(loom_barrier());
  OK(loom_stats_reset());
  double t0 = loom_wtime();
  for (int s = 0; s < sweeps; s++) {
    sweep(a, b, n, r0, r1);
    OK(loom_barrier());
    std::swap(a, b);
  }
  double t = max_all(loom_wtime() - t0);
  save_stats();
  double sum = g_rank == 0 ? checksum(a, n) : 0;
  OK(loom_finalize());
  fig("jacobi_seq_s", t_seq);
  fig("jacobi_loom_s", t);
  fig("jacobi_speedup", t_seq / t);
  if (g_rank == 0) {
    fig("jacobi_valid", sum == sum_seq ? 1 : 0);
    std::printf("jacobi %dx%d, %d sweeps: sequential %.3f s, Loom on %d ranks %.3f s, speed-up %.2f, %s\n", n, n,
                sweeps, t_seq, g_n, t, t_seq / t, sum == sum_seq ? "result identical" : "RESULT DIFFERS");
  }
  g_par["n"] = std::to_string(n);
  g_par["sweeps"] = std::to_string(sweeps);
}

void write_json(const std::string& name) {
  if (g_rank != 0 || g_json.empty()) return;
  FILE* f = std::fopen(g_json.c_str(), "w");
  if (!f) {
    std::perror(g_json.c_str());
    return;
  }
  char ver[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(ver, &len);
  std::string v(ver, (size_t)len);
  v = v.substr(0, v.find('\n'));
  for (char& c : v)
    if (c == '"' || c == '\\' || c < 32) c = ' ';
  std::fprintf(f, "{\"name\": \"%s\", \"ranks\": %d, \"mpi\": \"%s\", \"reps\": %d,\n \"params\": {", name.c_str(), g_n,
               v.c_str(), g_reps);
  const char* sep = "";
  for (auto& [k, val] : g_par) std::fprintf(f, "%s\"%s\": %s", sep, k.c_str(), val.c_str()), sep = ", ";
  std::fprintf(f, "},\n \"figures\": {");
  sep = "";
  for (auto& [k, val] : g_fig) std::fprintf(f, "%s\n  \"%s\": %.6g", sep, k.c_str(), val), sep = ",";
  char cfg[4096] = "";
  loom_config_string(cfg, sizeof cfg);
  std::string c;
  for (char* p = cfg; *p; p++) c += *p == '\n' ? std::string("\\n") : *p == '"' ? std::string("\\\"") : std::string(1, *p);
  std::fprintf(f, "\n },\n \"stats\": %s,\n \"config\": \"%s\"\n}\n", g_stats.c_str(), c.c_str());
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_n);
  std::string what = "all";
  int n = 2048, sweeps = 50;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) g_reps = std::atoi(argv[++i]);
    else if (a == "--json" && i + 1 < argc) g_json = argv[++i];
    else if (a == "--n" && i + 1 < argc) n = std::atoi(argv[++i]);
    else if (a == "--sweeps" && i + 1 < argc) sweeps = std::atoi(argv[++i]);
    else if (a[0] != '-') what = a;
    else {
      if (g_rank == 0) std::fprintf(stderr, "loom_bench: unknown option %s\n", a.c_str());
      MPI_Finalize();
      return 2;
    }
  }
  bool all = what == "all";
  if ((what == "pagefetch" || what == "lock" || all) && g_n < 2) {
    if (g_rank == 0) std::fprintf(stderr, "loom_bench %s needs at least 2 ranks\n", what.c_str());
    MPI_Finalize();
    return 2;
  }
  if (all || what == "pagefetch") bench_pagefetch();
  if (all || what == "barrier") bench_barrier();
  if (all || what == "lock") bench_lock();
  if (all || what == "jacobi") bench_jacobi(n, sweeps);
  if (!all && what != "pagefetch" && what != "barrier" && what != "lock" && what != "jacobi") {
    if (g_rank == 0) std::fprintf(stderr, "loom_bench: unknown benchmark %s\n", what.c_str());
    MPI_Finalize();
    return 2;
  }
  if (g_rank == 0) {
    std::printf("%-44s %12s\n", "figure", "value");
    for (auto& [k, v] : g_fig) std::printf("%-44s %12.4f\n", k.c_str(), v);
  }
  write_json(what);
  MPI_Finalize();
  return 0;
}
