// Per-rank statistics by category: the counters the protocol bumps, and the
// report at finalize (a table on stderr with LOOM_STATS=1, JSON to
// LOOM_STATS_FILE).  Times are seconds of wall clock spent in each category;
// polling is the part of barrier and lock time spent waiting in spin loops.
#include <time.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "stats.hpp"

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
  double t0 = now();
  uint64_t c0 = __rdtsc();
  while (now() - t0 < 2e-3) {
  }
  double t1 = now();
  uint64_t c1 = __rdtsc();
  if (c1 > c0) g_sec_per_tick = (t1 - t0) / (double)(c1 - c0);
#endif
}

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


size_t stats_json(const loom_stats_t& s, char* buf, size_t len) {
  int n = std::snprintf(
      buf, len,
      "{\"rank\": %d, \"ranks\": %d, \"read_faults\": %llu, \"write_faults\": %llu, \"pages_fetched\": %llu, "
      "\"bytes_fetched\": %llu, \"twins\": %llu, \"diffs\": %llu, \"diff_bytes\": %llu, \"invalidations\": %llu, "
      "\"barriers\": %llu, \"locks\": %llu, \"unlocks\": %llu, \"atomics\": %llu, \"t_fault\": %.9f, "
      "\"t_barrier\": %.9f, \"t_lock\": %.9f, \"t_unlock\": %.9f, \"t_diff\": %.9f, \"t_poll\": %.9f, "
      "\"migrations\": %llu, \"notices\": %llu, \"updates\": %llu, \"t_update\": %.9f, \"prefetched\": %llu, "
      "\"prefetch_used\": %llu, \"switched\": %llu, \"pages_lazy\": %llu, \"pages_eager\": %llu, "
      "\"scoped_acquires\": %llu, \"scoped_fallbacks\": %llu}",
      rt.rank, rt.nranks, (unsigned long long)s.read_faults, (unsigned long long)s.write_faults,
      (unsigned long long)s.pages_fetched, (unsigned long long)s.bytes_fetched, (unsigned long long)s.twins,
      (unsigned long long)s.diffs, (unsigned long long)s.diff_bytes, (unsigned long long)s.invalidations,
      (unsigned long long)s.barriers, (unsigned long long)s.locks, (unsigned long long)s.unlocks,
      (unsigned long long)s.atomics, s.t_fault, s.t_barrier, s.t_lock, s.t_unlock, s.t_diff, s.t_poll,
      (unsigned long long)s.migrations, (unsigned long long)s.notices, (unsigned long long)s.updates, s.t_update,
      (unsigned long long)s.prefetched, (unsigned long long)s.prefetch_used, (unsigned long long)s.switched,
      (unsigned long long)s.pages_lazy, (unsigned long long)s.pages_eager, (unsigned long long)s.scoped_acquires,
      (unsigned long long)s.scoped_fallbacks);
  return n < 0 ? 0 : (size_t)n;
}

void stats_finalize_report() {
  adapt_count_modes(&rt.st.s.pages_lazy, &rt.st.s.pages_eager);
  const loom_stats_t& s = rt.st.s;
  if (rt.cfg.stats) {
    std::fprintf(stderr,
                 "loom[%d] stats: faults read %llu write %llu | fetched %llu pages (%llu B) | twins %llu | "
                 "diffs %llu (%llu B) | invalidations %llu | notices %llu updates %llu | barriers %llu locks %llu "
                 "atomics %llu migrations %llu | prefetched %llu used %llu | switched %llu, homes lazy %llu eager %llu | "
                 "scoped acquires %llu fallbacks %llu\n"
                 "loom[%d] time (s): fault %.6f barrier %.6f lock %.6f unlock %.6f diff %.6f update %.6f poll %.6f\n",
                 rt.rank, (unsigned long long)s.read_faults, (unsigned long long)s.write_faults,
                 (unsigned long long)s.pages_fetched, (unsigned long long)s.bytes_fetched,
                 (unsigned long long)s.twins, (unsigned long long)s.diffs, (unsigned long long)s.diff_bytes,
                 (unsigned long long)s.invalidations, (unsigned long long)s.notices, (unsigned long long)s.updates,
                 (unsigned long long)s.barriers, (unsigned long long)s.locks, (unsigned long long)s.atomics,
                 (unsigned long long)s.migrations, (unsigned long long)s.prefetched,
                 (unsigned long long)s.prefetch_used, (unsigned long long)s.switched, (unsigned long long)s.pages_lazy,
                 (unsigned long long)s.pages_eager, (unsigned long long)s.scoped_acquires,
                 (unsigned long long)s.scoped_fallbacks, rt.rank, s.t_fault, s.t_barrier, s.t_lock, s.t_unlock, s.t_diff,
                 s.t_update, s.t_poll);
  }
  if (rt.cfg.stats_file[0]) {
    std::string path;
    for (const char* c = rt.cfg.stats_file; *c; c++) {
      if (c[0] == '%' && c[1] == 'r') {
        path += std::to_string(rt.rank);
        c++;
      } else {
        path += *c;
      }
    }
    // Not through a symbolic link: a file name in a shared directory must
    // not let another user point the write at a file of this user's.
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE* f = fd >= 0 ? fdopen(fd, "w") : nullptr;
    if (!f) {
      if (fd >= 0) close(fd);
      Status st = fail_errno(LOOM_ERR_SYSTEM, ("LOOM_STATS_FILE " + path).c_str());
      (void)st;
      return;
    }
    char buf[2048];
    stats_json(s, buf, sizeof buf);
    std::fprintf(f, "%s\n", buf);
    std::fclose(f);
  }
}

}  // namespace loom
