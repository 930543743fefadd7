// Per-rank statistics: the counters and times the layers bump (loom_stats_t),
// the clock they are timed with, and the report at finalize (stats.cpp).
// Thread safety: under the rank lock (threads.hpp); threads.cpp keeps each
// thread's share.
#pragma once
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <cstddef>

#include "loom/loom.h"

namespace loom {

struct Stats {
  loom_stats_t s{};
  double t_start = 0;  // now() at loom_init or the last loom_stats_reset
};

double now();  // CLOCK_MONOTONIC seconds
// The clock of the statistics: the time-stamp counter where it is invariant
// (x86-64 with constant_tsc and nonstop_tsc, and the kernel's clocksource
// is tsc; ~8 ns a read here against ~20 ns for clock_gettime, which a lock
// or barrier reads four times), else now().  Its rate is measured once at
// loom_init (tick_rate.hpp), and not trusted unless two windows agree.
extern double g_sec_per_tick;
void stat_clock_init();
inline double stat_now() {
#if defined(__x86_64__)
  if (g_sec_per_tick > 0) return (double)__rdtsc() * g_sec_per_tick;
#endif
  return now();
}

// The report at finalize (collective): per-rank JSON files, and on rank 0
// the all-ranks summary and the one-file JSON.
void stats_finalize_report();
// Seconds since loom_init or the last loom_stats_reset.
double stats_wall();
// One record as JSON; rank -1 for the sums; with_build adds "loom" (the
// build) and "date" (now, UTC).
size_t stats_json(const loom_stats_t& s, int rank, double wall, bool with_build, char* buf, size_t len);

}  // namespace loom
