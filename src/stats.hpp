// Per-rank statistics: the counters and times the layers bump (loom_stats_t),
// the clock they are timed with, and the report at finalize (stats.cpp).
// Thread safety: the application thread only.
#pragma once
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <cstddef>

#include "loom/loom.h"

namespace loom {

struct Stats {
  loom_stats_t s{};
};

double now();  // CLOCK_MONOTONIC seconds
// The clock of the statistics: the time-stamp counter where it is invariant
// (x86-64 with constant_tsc and nonstop_tsc; ~8 ns a read here against ~20 ns
// for clock_gettime, which a lock or barrier reads four times), else now().
extern double g_sec_per_tick;
void stat_clock_init();
inline double stat_now() {
#if defined(__x86_64__)
  if (g_sec_per_tick > 0) return (double)__rdtsc() * g_sec_per_tick;
#endif
  return now();
}

void stats_finalize_report();
size_t stats_json(const loom_stats_t& s, char* buf, size_t len);

}  // namespace loom
