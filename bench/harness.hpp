// The benchmark harness shared by every loom_bench sub-command.
//
// Statistics: every figure is the median of repeated samples, reported with
// its minimum, maximum and a 95% confidence interval of the median (order
// statistics: the interval between ranks n/2 -/+ 1.96 sqrt(n)/2, distribution
// free).  A measurement repeats until that interval is within a stated
// relative width of the median or a cap on repetitions is reached; the rule
// is printed with the results and stored in the JSON.
//
// Samples are collective: every rank calls measure() with its own sample
// function; the per-sample value is reduced over ranks (the slowest rank by
// default) so that all ranks agree on the value and on when to stop.
//
// Output: a human table on stdout and one JSON schema for all benchmarks
// (bench/schema.json), written by rank 0.
#pragma once
#include <mpi.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace bench {

struct Options {
  int warmup = 2;          // samples taken and discarded first
  int min_reps = 7;        // at least this many samples
  int max_reps = 41;       // the cap
  double rel_ci = 0.05;    // stop when (hi - lo) / median <= this
  size_t max_bytes = 4u << 20;  // largest message / transfer size
  int iters = 0;           // inner iterations per sample (0: the benchmark's default)
  double sample_s = 0.25;  // sweeps over sizes: about this long a sample at most (0: no cap; comm.cpp)
  bool tiny = false;       // smallest sizes only (tests)
  bool lock_mpi_serves = true;  // lock: LOOM_MPI_SERVES as configured; false: 0 (calibrate: dsm.cpp, run_lock)
  std::string json;        // output path ("" = none)
};

struct Summary {
  double median = 0, min = 0, max = 0, lo = 0, hi = 0;
  int reps = 0;
  bool converged = false;
};

Summary summarize(std::vector<double> v);

enum class Reduce { Max, Min, Rank0, Rank1 };

// Repeat `sample` under the rule in `opt`; returns the summary of the reduced
// samples (identical on every rank).  `all` receives every reduced sample.
Summary measure(const Options& opt, const std::function<double()>& sample, Reduce r = Reduce::Max,
                std::vector<double>* all = nullptr);

// The same rule on this rank alone (no communication).
Summary measure_local(const Options& opt, const std::function<double()>& sample);
// A barrier whose waiting ranks sleep instead of polling, so that a rank
// measuring alone keeps the machine to itself.
void quiet_barrier();

struct Histogram {
  double lo = 0, width = 0;
  std::vector<long> counts;
};
Histogram histogram(const std::vector<double>& v, int bins);

struct Result {
  std::string name;                         // e.g. "pingpong_latency"
  std::map<std::string, double> params;     // e.g. {"bytes": 8}
  std::string unit;                         // "us", "MB/s", ...
  Summary s;
  std::map<std::string, double> extra;      // e.g. ratio to a reference measured in the same run
  Histogram hist;                           // empty unless the distribution matters
  std::vector<double> raw;                  // raw samples behind the histogram
};

// The table on stdout and the JSON file, by rank 0: the header at begin,
// each row as it is added (the JSON rewritten each time, so a stopped run
// keeps its rows), the notes at finish.
class Report {
 public:
  explicit Report(std::string benchmark) : benchmark_(std::move(benchmark)) {}
  void begin(const Options& opt, int ranks);
  void add(Result r);
  void note(const std::string& k, const std::string& v) { notes_[k] = v; }
  void set_loom_stats(const std::string& json);
  void finish() const;
  const std::vector<Result>& results() const { return results_; }

 private:
  void write_json() const;
  Options opt_;
  int ranks_ = 0;
  std::string benchmark_;
  std::vector<Result> results_;
  std::map<std::string, std::string> notes_;
  std::string stats_ = "null";
};

std::string rule_text(const Options& opt);
int rank();
int nranks();
double max_all(double x);
std::string mpi_version();

}  // namespace bench
