// Per-rank statistics by category: the counters the protocol bumps, and the
// report at finalize (a table on stderr with LOOM_STATS=1, JSON to
// LOOM_STATS_FILE).  Times are seconds of wall clock spent in each category;
// polling is the part of barrier and lock time spent waiting in spin loops.
#include <time.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <mpi.h>

#include "stats.hpp"
#include "tick_rate.hpp"
#include "threads.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "runtime.hpp"

namespace loom {

double g_sec_per_tick = 0;

void stat_clock_init() {
#if defined(__x86_64__)
  if (g_sec_per_tick > 0) return;
  // Only an invariant TSC ticks at one rate in every state and on every core.
  FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[4096];
  bool constant = false, nonstop = false;
  while (std::fgets(line, sizeof line, f))
    if (!std::strncmp(line, "flags", 5)) {
      constant = std::strstr(line, " constant_tsc") != nullptr;
      nonstop = std::strstr(line, " nonstop_tsc") != nullptr;
      break;
    }
  std::fclose(f);
  if (!constant || !nonstop) return;
  // And only where the kernel keeps time with it: it checks at boot that the
  // cores' counters agree and drops the TSC when its watchdog sees it drift
  // (a TSC read on another core must not go back in time).
  char src[64] = "";
  if (FILE* c = std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r")) {
    if (!std::fgets(src, sizeof src, c)) src[0] = 0;
    std::fclose(c);
  }
  if (std::strncmp(src, "tsc", 3) != 0 || (src[3] != '\n' && src[3] != 0)) return;
  g_sec_per_tick = tick_period(now, [] { return (uint64_t)__rdtsc(); });
#endif
}

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


size_t stats_json(const loom_stats_t& s, int rank, double wall, bool with_build, char* buf, size_t len) {
  char head[1400] = "";
  if (with_build) {
    char date[32] = "";
    time_t t = time(nullptr);
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    std::snprintf(head, sizeof head, "\"loom\": %s, \"date\": \"%s\", ", loom_build_info(), date);
  }
  int n = std::snprintf(
      buf, len,
      "{%s\"rank\": %d, \"ranks\": %d, \"wall\": %.9f, \"read_faults\": %llu, \"write_faults\": %llu, \"pages_fetched\": %llu, "
      "\"bytes_fetched\": %llu, \"twins\": %llu, \"diffs\": %llu, \"diff_bytes\": %llu, \"invalidations\": %llu, "
      "\"barriers\": %llu, \"locks\": %llu, \"unlocks\": %llu, \"atomics\": %llu, \"t_fault\": %.9f, "
      "\"t_barrier\": %.9f, \"t_lock\": %.9f, \"t_unlock\": %.9f, \"t_diff\": %.9f, \"t_poll\": %.9f, "
      "\"migrations\": %llu, \"notices\": %llu, \"updates\": %llu, \"t_update\": %.9f, \"prefetched\": %llu, "
      "\"prefetch_used\": %llu, \"switched\": %llu, \"pages_lazy\": %llu, \"pages_eager\": %llu, "
      "\"scoped_acquires\": %llu, \"scoped_fallbacks\": %llu, \"meta_bytes\": %llu, \"t_rank_wait\": %.9f, "
      "\"locks_kept\": %llu, \"pages_mapped\": %llu, \"home_lookups\": %llu, \"reads_told\": %llu, "
      "\"pages_ahead\": %llu, \"pages_strided\": %llu, \"writer_loads\": %llu, \"served_in_mpi\": %llu}",
      head, rank, rt.nranks, wall, (unsigned long long)s.read_faults, (unsigned long long)s.write_faults,
      (unsigned long long)s.pages_fetched, (unsigned long long)s.bytes_fetched, (unsigned long long)s.twins,
      (unsigned long long)s.diffs, (unsigned long long)s.diff_bytes, (unsigned long long)s.invalidations,
      (unsigned long long)s.barriers, (unsigned long long)s.locks, (unsigned long long)s.unlocks,
      (unsigned long long)s.atomics, s.t_fault, s.t_barrier, s.t_lock, s.t_unlock, s.t_diff, s.t_poll,
      (unsigned long long)s.migrations, (unsigned long long)s.notices, (unsigned long long)s.updates, s.t_update,
      (unsigned long long)s.prefetched, (unsigned long long)s.prefetch_used, (unsigned long long)s.switched,
      (unsigned long long)s.pages_lazy, (unsigned long long)s.pages_eager, (unsigned long long)s.scoped_acquires,
      (unsigned long long)s.scoped_fallbacks, (unsigned long long)s.meta_bytes, s.t_rank_wait,
      (unsigned long long)s.locks_kept, (unsigned long long)s.pages_mapped, (unsigned long long)s.home_lookups,
      (unsigned long long)s.reads_told, (unsigned long long)s.pages_ahead, (unsigned long long)s.pages_strided,
      (unsigned long long)s.writer_loads, (unsigned long long)s.served_in_mpi);
  return n < 0 ? 0 : (size_t)n;
}

namespace {

// One rank's statistics as rank 0 gathers them at finalize.
struct RankStats {
  loom_stats_t s;
  double wall;
};

void print_rank_lines(const loom_stats_t& s, int rank) {
  std::fprintf(stderr,
               "loom[%d] stats: faults read %llu write %llu | fetched %llu pages (%llu B) mapped %llu | twins %llu | "
               "diffs %llu (%llu B) | invalidations %llu | notices %llu updates %llu | barriers %llu locks %llu "
               "(kept %llu) atomics %llu migrations %llu | prefetched %llu used %llu ahead %llu strided %llu | switched %llu, homes lazy %llu eager %llu | "
               "scoped acquires %llu fallbacks %llu | home lookups %llu writer sets read %llu | served in MPI %llu\n"
               "loom[%d] time (s): fault %.6f barrier %.6f lock %.6f unlock %.6f diff %.6f update %.6f poll %.6f "
               "rank wait %.6f\n",
               rank, (unsigned long long)s.read_faults, (unsigned long long)s.write_faults,
               (unsigned long long)s.pages_fetched, (unsigned long long)s.bytes_fetched,
               (unsigned long long)s.pages_mapped, (unsigned long long)s.twins,
               (unsigned long long)s.diffs, (unsigned long long)s.diff_bytes, (unsigned long long)s.invalidations,
               (unsigned long long)s.notices, (unsigned long long)s.updates, (unsigned long long)s.barriers,
               (unsigned long long)s.locks, (unsigned long long)s.locks_kept, (unsigned long long)s.atomics,
               (unsigned long long)s.migrations,
               (unsigned long long)s.prefetched, (unsigned long long)s.prefetch_used,
               (unsigned long long)s.pages_ahead, (unsigned long long)s.pages_strided, (unsigned long long)s.switched,
               (unsigned long long)s.pages_lazy,
               (unsigned long long)s.pages_eager,
               (unsigned long long)s.scoped_acquires, (unsigned long long)s.scoped_fallbacks,
               (unsigned long long)s.home_lookups, (unsigned long long)s.writer_loads,
               (unsigned long long)s.served_in_mpi, rank, s.t_fault,
               s.t_barrier, s.t_lock, s.t_unlock, s.t_diff, s.t_update, s.t_poll, s.t_rank_wait);
}

loom_stats_t sum_of(const std::vector<RankStats>& all, double* wall) {
  loom_stats_t t{};
  *wall = 0;
  for (const RankStats& r : all) {
    const loom_stats_t& s = r.s;
    t.read_faults += s.read_faults, t.write_faults += s.write_faults, t.pages_fetched += s.pages_fetched;
    t.bytes_fetched += s.bytes_fetched, t.twins += s.twins, t.diffs += s.diffs, t.diff_bytes += s.diff_bytes;
    t.invalidations += s.invalidations, t.barriers += s.barriers, t.locks += s.locks, t.unlocks += s.unlocks;
    t.atomics += s.atomics, t.migrations += s.migrations, t.notices += s.notices, t.updates += s.updates;
    t.prefetched += s.prefetched, t.prefetch_used += s.prefetch_used, t.switched += s.switched;
    t.pages_lazy += s.pages_lazy, t.pages_eager += s.pages_eager, t.scoped_acquires += s.scoped_acquires;
    t.scoped_fallbacks += s.scoped_fallbacks, t.locks_kept += s.locks_kept, t.pages_mapped += s.pages_mapped;
    t.home_lookups += s.home_lookups, t.reads_told += s.reads_told, t.pages_ahead += s.pages_ahead;
    t.pages_strided += s.pages_strided, t.writer_loads += s.writer_loads, t.served_in_mpi += s.served_in_mpi;
    t.t_fault += s.t_fault, t.t_barrier += s.t_barrier, t.t_lock += s.t_lock, t.t_unlock += s.t_unlock;
    t.t_diff += s.t_diff, t.t_poll += s.t_poll, t.t_update += s.t_update, t.t_rank_wait += s.t_rank_wait;
    *wall += r.wall;
  }
  return t;
}

// The all-ranks summary (ArgoDSM's level-1 statistics are the model): where
// each rank's wall time went, in seconds and as a fraction of it, and the
// totals.  Diff and poll time are parts of barrier, lock and unlock time.
void print_summary(const std::vector<RankStats>& all) {
  double wall_sum = 0;
  const loom_stats_t t = sum_of(all, &wall_sum);
  char how[128];
  if (rt.tp.direct_peers() == rt.nranks - 1)
    std::snprintf(how, sizeof how, "every peer of rank 0 mapped directly");
  else
    std::snprintf(how, sizeof how, "rank 0 maps %d peers directly, the others through %s", rt.tp.direct_peers(),
                  rt.tp.kind_name());
  std::fprintf(stderr,
               "loom stats: %d ranks (%s); seconds from loom_init (or loom_stats_reset) to loom_finalize, and %% of "
               "that rank's wall time\n"
               "%6s %9s %16s %16s %16s %16s %7s %10s %10s %8s %8s %8s\n",
               rt.nranks, how, "rank", "wall", "fault", "barrier", "lock", "unlock", "compute",
               "faults", "fetched", "diffs", "barriers", "locks");
  auto row = [](const char* who, const loom_stats_t& s, double wall, bool sum) {
    auto part = [&](double x, char* out) {
      std::snprintf(out, 32, "%8.3f %5.1f%%", x, wall > 0 ? 100.0 * x / wall : 0.0);
    };
    char f[32], b[32], l[32], u[32];
    part(s.t_fault, f), part(s.t_barrier, b), part(s.t_lock, l), part(s.t_unlock, u);
    double compute = wall - s.t_fault - s.t_barrier - s.t_lock - s.t_unlock;
    if (compute < 0) compute = 0;
    std::fprintf(stderr, "%6s %9.3f %16s %16s %16s %16s %6.1f%% %10llu %10llu %8llu %8llu %8llu%s\n", who, wall, f, b, l,
                 u, wall > 0 ? 100.0 * compute / wall : 0.0,
                 (unsigned long long)(s.read_faults + s.write_faults), (unsigned long long)s.pages_fetched,
                 (unsigned long long)s.diffs, (unsigned long long)s.barriers, (unsigned long long)s.locks,
                 sum ? "  (sums over ranks)" : "");
  };
  for (size_t r = 0; r < all.size(); r++) row(std::to_string(r).c_str(), all[r].s, all[r].wall, false);
  row("all", t, wall_sum, true);
  std::fprintf(stderr, "loom stats: of the barrier, lock and unlock time, %.3f s (%.1f%%) making diffs, %.3f s (%.1f%%) "
               "waiting in spin loops\n",
               t.t_diff, wall_sum > 0 ? 100.0 * t.t_diff / wall_sum : 0.0, t.t_poll,
               wall_sum > 0 ? 100.0 * t.t_poll / wall_sum : 0.0);
  if (t.t_rank_wait > 0)
    std::fprintf(stderr, "loom stats: threads of a rank waited %.3f s (%.1f%%, summed over threads) for one another "
                 "(the rank lock: faults and Loom calls, this time inside them too)\n",
                 t.t_rank_wait, wall_sum > 0 ? 100.0 * t.t_rank_wait / wall_sum : 0.0);
}

// Writes text to path, not through a symbolic link: a file name in a
// shared directory must not let another user point the write at a file of
// this user's.
void write_file(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  FILE* f = fd >= 0 ? fdopen(fd, "w") : nullptr;
  if (!f) {
    if (fd >= 0) close(fd);
    Status st = fail_errno(LOOM_ERR_SYSTEM, ("LOOM_STATS_FILE " + path).c_str());
    (void)st;
    return;
  }
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

}  // namespace

double stats_wall() { return now() - rt.st.t_start; }

void stats_finalize_report() {
  // The lock operations counted apart, into the report (nothing counts
  // after it); their count restarts for a later loom_init.
  rank_stats(&rt.st.s);
  thread_stats_reset();
  adapt_count_modes(&rt.st.s.pages_lazy, &rt.st.s.pages_eager);
  rt.st.s.meta_bytes = rt.meta.size;
  const double wall = stats_wall();
  // LOOM_STATS_FILE with %r: one file per rank.  Without: one file, written
  // by rank 0, with every rank's record and the totals (ranks writing one
  // path would overwrite each other and leave invalid JSON).
  std::string path;
  bool per_rank = false;
  for (const char* c = rt.cfg.stats_file; *c; c++) {
    if (c[0] == '%' && c[1] == 'r') {
      path += std::to_string(rt.rank);
      per_rank = true;
      c++;
    } else {
      path += *c;
    }
  }
  if (per_rank) {
    char buf[4096];
    stats_json(rt.st.s, rt.rank, wall, true, buf, sizeof buf);
    write_file(path, std::string(buf) + "\n");
  }
  // What any rank wants gathered (the settings may differ between ranks).
  int want = (rt.cfg.stats ? 1 : 0) | (!path.empty() && !per_rank ? 2 : 0), any = 0;
  MPI_Allreduce(&want, &any, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
  if (!any) return;
  RankStats mine{rt.st.s, wall};
  std::vector<RankStats> all(rt.rank == 0 ? (size_t)rt.nranks : 0);
  MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all.data(), (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (rt.rank != 0) return;
  if (any & 1) {
    for (int r = 0; r < rt.nranks; r++) print_rank_lines(all[(size_t)r].s, r);
    print_summary(all);
  }
  if ((any & 2) && !path.empty() && !per_rank) {
    double wall_sum = 0;
    const loom_stats_t t = sum_of(all, &wall_sum);
    char buf[4096];
    stats_json(t, -1, wall_sum, true, buf, sizeof buf);
    std::string out = "{\"ranks\": " + std::to_string(rt.nranks) + ", \"total\": " + buf + ",\n \"per_rank\": [";
    for (int r = 0; r < rt.nranks; r++) {
      stats_json(all[(size_t)r].s, r, all[(size_t)r].wall, false, buf, sizeof buf);
      out += std::string(r ? ",\n  " : "\n  ") + buf;
    }
    out += "\n ]}\n";
    write_file(path, out);
  }
}

}  // namespace loom
