// The loom_bench sub-commands.  Each appends its results to the report.
#pragma once
#include <loom/loom.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "harness.hpp"

namespace bench {

// comm.cpp: MPI level, comparable with OSU's micro-benchmarks
void run_pingpong(const Options& o, Report& r);
void run_bw(const Options& o, Report& r);
void run_rma(const Options& o, Report& r);
void run_barrier(const Options& o, Report& r);
// clocksync.cpp: the pseudo-global clock and window-based collectives
void run_clock(const Options& o, Report& r);
void run_collectives(const Options& o, Report& r);
// dsm.cpp: Loom level
void run_pagefetch(const Options& o, Report& r);
void run_halo(const Options& o, Report& r);
void run_fault(const Options& o, Report& r);
void run_diff(const Options& o, Report& r);
void run_lock(const Options& o, Report& r);
void run_barrier_dirty(const Options& o, Report& r);
void run_scale(const Options& o, Report& r);
void run_remote_rw(const Options& o, Report& r);
void run_jacobi(const Options& o, Report& r, int n, int sweeps);
void run_migrate(const Options& o, Report& r, int n, int sweeps);
// calibrate.cpp: the performance model's platform file
void run_calibrate(const Options& o, Report& r, const std::string& platform);

// Loom lifecycle inside a benchmark program that owns MPI.
// The DSM micro-benchmarks measure the protocol, which ranks of one host
// skip when they share pages: loom_start turns LOOM_HOST_SHARE off unless
// the variable is set, and the fetches along a stride (LOOM_STRIDE) too: a
// benchmark of one fetch per fault that reads its pages in order would
// otherwise time reads of pages fetched ahead; loom_start_default keeps
// every default (Jacobi, the main job: what a program gets).
void loom_start(uint32_t unit_pages = 0);
void loom_start_default();
void loom_start_with(const std::function<void(loom_config_t&)>& change, bool protocol = true);
void loom_stop(Report* r = nullptr);  // records the statistics when r is given

inline void ok(loom_status_t s, const char* what) {
  if (s != LOOM_OK) {
    std::fprintf(stderr, "loom_bench: %s: %s (%s)\n", what, loom_strerror(s), loom_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}
#define OK(e) ::bench::ok((e), #e)

}  // namespace bench
