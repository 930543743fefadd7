// Statistics, the repetition rule, and the report; see harness.hpp.
#include "harness.hpp"

#include <loom/loom.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <time.h>
#include <unistd.h>

namespace bench {

int rank() {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int nranks() {
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}
double max_all(double x) {
  double m = 0;
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

std::string mpi_version() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(v, &len);
  std::string s(v, (size_t)len);
  s = s.substr(0, s.find('\n'));
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  std::string one;  // runs of blanks as one
  for (char c : s)
    if (!(c == ' ' && !one.empty() && one.back() == ' ')) one += c;
  return one;
}

Summary summarize(std::vector<double> v) {
  Summary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  s.reps = (int)n;
  s.min = v.front();
  s.max = v.back();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  // Distribution-free 95% interval of the median: order statistics j..k.
  double h = 1.96 * std::sqrt((double)n) / 2.0;
  long j = (long)std::floor((double)n / 2.0 - h), k = (long)std::ceil((double)n / 2.0 + h);
  if (j < 0 || k > (long)n - 1 || n < 6) {
    s.lo = s.min;
    s.hi = s.max;
  } else {
    s.lo = v[(size_t)j];
    s.hi = v[(size_t)k];
  }
  return s;
}

static double reduce(double x, Reduce r) {
  double out = x;
  switch (r) {
    case Reduce::Max: MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); break;
    case Reduce::Min: MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD); break;
    case Reduce::Rank0: MPI_Bcast(&out, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); break;
    case Reduce::Rank1: MPI_Bcast(&out, 1, MPI_DOUBLE, nranks() > 1 ? 1 : 0, MPI_COMM_WORLD); break;
  }
  return out;
}

Summary measure(const Options& opt, const std::function<double()>& sample, Reduce r, std::vector<double>* all) {
  for (int i = 0; i < opt.warmup; i++) reduce(sample(), r);
  std::vector<double> v;
  Summary s;
  int min_reps = opt.tiny ? 3 : opt.min_reps, max_reps = opt.tiny ? 3 : opt.max_reps;
  while ((int)v.size() < max_reps) {
    v.push_back(reduce(sample(), r));
    if ((int)v.size() < min_reps) continue;
    s = summarize(v);
    if (s.median > 0 && (s.hi - s.lo) / s.median <= opt.rel_ci) {
      s.converged = true;
      break;
    }
  }
  s = summarize(v);
  s.converged = s.median > 0 && (s.hi - s.lo) / s.median <= opt.rel_ci;
  if (all) *all = v;
  return s;
}

Summary measure_local(const Options& opt, const std::function<double()>& sample) {
  for (int i = 0; i < opt.warmup; i++) sample();
  std::vector<double> v;
  int min_reps = opt.tiny ? 3 : opt.min_reps, max_reps = opt.tiny ? 3 : opt.max_reps;
  while ((int)v.size() < max_reps) {
    v.push_back(sample());
    if ((int)v.size() < min_reps) continue;
    Summary s = summarize(v);
    if (s.median > 0 && (s.hi - s.lo) / s.median <= opt.rel_ci) break;
  }
  Summary s = summarize(v);
  s.converged = s.median > 0 && (s.hi - s.lo) / s.median <= opt.rel_ci;
  return s;
}

void quiet_barrier() {
  MPI_Request rq;
  MPI_Ibarrier(MPI_COMM_WORLD, &rq);
  for (int done = 0;;) {
    MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    if (done) break;
    timespec d{0, 1000000};
    nanosleep(&d, nullptr);
  }
}

Histogram histogram(const std::vector<double>& v, int bins) {
  Histogram h;
  if (v.empty() || bins <= 0) return h;
  std::vector<double> s = v;
  std::sort(s.begin(), s.end());
  // Linear bins from the minimum to the 99th percentile, plus an overflow bin.
  double lo = s.front(), hi = s[(size_t)std::min(s.size() - 1, (size_t)(0.99 * (double)s.size()))];
  if (hi <= lo) hi = lo + 1e-9;
  h.lo = lo;
  h.width = (hi - lo) / bins;
  h.counts.assign((size_t)bins + 1, 0);
  for (double x : s) {
    long b = (long)((x - lo) / h.width);
    if (b < 0) b = 0;
    if (b > bins) b = bins;
    h.counts[(size_t)b]++;
  }
  return h;
}

std::string rule_text(const Options& opt) {
  std::ostringstream o;
  if (opt.tiny)
    o << "tiny run: 3 samples after " << opt.warmup << " warm-up";
  else
    o << "median of repeated samples (" << opt.warmup << " warm-up discarded), at least " << opt.min_reps
      << ", repeated until the 95% CI of the median is within " << opt.rel_ci * 100 << "% of it, at most "
      << opt.max_reps;
  return o.str();
}

static std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (c == '\n') o += "\\n";
    else if ((unsigned char)c < 32) o += ' ';
    else o += c;
  }
  return o;
}

static std::string num(double x) {
  if (!std::isfinite(x)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

namespace {
void print_row(const Result& r) {
  std::string p;
  for (auto& [k, v] : r.params) p += (p.empty() ? "" : " ") + k + "=" + num(v);
  std::printf("%-34s %-22s %-6s %12.4g %12.4g %12.4g   [%9.4g, %9.4g] %4d%s\n", r.name.c_str(), p.c_str(),
              r.unit.c_str(), r.s.median, r.s.min, r.s.max, r.s.lo, r.s.hi, r.s.reps, r.s.converged ? "" : "*");
  for (auto& [k, v] : r.extra) std::printf("%-34s   %s = %.4g\n", "", k.c_str(), v);
  std::fflush(stdout);
}
}  // namespace

void Report::begin(const Options& opt, int ranks) {
  opt_ = opt;
  ranks_ = ranks;
  if (rank() != 0) return;
  std::printf("# %s, %d ranks, %s\n# rule: %s\n", benchmark_.c_str(), ranks, mpi_version().c_str(),
              rule_text(opt).c_str());
  std::printf("%-34s %-22s %-6s %12s %12s %12s %23s %4s\n", "result", "params", "unit", "median", "min", "max",
              "95% CI of median", "reps");
  std::fflush(stdout);
  write_json();
}

// Each row is printed when measured, and the JSON rewritten, so a run that is
// stopped keeps what it measured.
void Report::add(Result r) {
  results_.push_back(std::move(r));
  if (rank() != 0) return;
  print_row(results_.back());
  write_json();
}

void Report::set_loom_stats(const std::string& json) {
  stats_ = json;
  if (rank() == 0) write_json();
}

void Report::finish() const {
  if (rank() != 0) return;
  for (auto& [k, v] : notes_) std::printf("# %s: %s\n", k.c_str(), v.c_str());
  std::printf("# * = the CI did not reach the target width within the cap\n");
  std::fflush(stdout);
  write_json();
}

// The whole file, written beside the target and renamed over it: a reader
// (or a stop) never sees half a file.
void Report::write_json() const {
  if (opt_.json.empty()) return;
  const std::string tmp = opt_.json + ".partial";
  std::ofstream f(tmp);
  if (!f) {
    static bool said = false;
    if (!said) std::fprintf(stderr, "loom_bench: cannot write %s\n", tmp.c_str());
    said = true;
    return;
  }
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  char cfg[8192] = "";
  loom_config_string(cfg, sizeof cfg);
  char date[32] = "";
  time_t now = time(nullptr);
  struct tm tm;
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
  f << "{\n \"schema\": \"loom-bench/1\",\n \"loom\": " << loom_build_info() << ",\n \"date\": \"" << date
    << "\",\n \"benchmark\": \"" << esc(benchmark_) << "\",\n \"ranks\": " << ranks_
    << ",\n \"mpi\": \"" << esc(mpi_version()) << "\",\n \"host\": \"" << esc(host) << "\",\n \"rule\": \""
    << esc(rule_text(opt_)) << "\",\n \"loom_config\": \"" << esc(cfg) << "\",\n \"notes\": {";
  const char* sep = "";
  for (auto& [k, v] : notes_) f << sep << "\"" << esc(k) << "\": \"" << esc(v) << "\"", sep = ", ";
  f << "},\n \"results\": [";
  sep = "";
  for (const Result& r : results_) {
    f << sep << "\n  {\"name\": \"" << esc(r.name) << "\", \"unit\": \"" << esc(r.unit) << "\", \"params\": {";
    const char* s2 = "";
    for (auto& [k, v] : r.params) f << s2 << "\"" << esc(k) << "\": " << num(v), s2 = ", ";
    f << "}, \"median\": " << num(r.s.median) << ", \"min\": " << num(r.s.min) << ", \"max\": " << num(r.s.max)
      << ", \"ci95\": [" << num(r.s.lo) << ", " << num(r.s.hi) << "], \"reps\": " << r.s.reps
      << ", \"converged\": " << (r.s.converged ? "true" : "false") << ", \"extra\": {";
    s2 = "";
    for (auto& [k, v] : r.extra) f << s2 << "\"" << esc(k) << "\": " << num(v), s2 = ", ";
    f << "}";
    if (!r.hist.counts.empty()) {
      f << ", \"histogram\": {\"lo\": " << num(r.hist.lo) << ", \"width\": " << num(r.hist.width) << ", \"counts\": [";
      for (size_t i = 0; i < r.hist.counts.size(); i++) f << (i ? ", " : "") << r.hist.counts[i];
      f << "]}";
    }
    f << "}";
    sep = ",";
  }
  f << "\n ],\n \"loom_stats\": " << stats_ << "\n}\n";
  f.close();
  if (!f || std::rename(tmp.c_str(), opt_.json.c_str()) != 0)
    std::fprintf(stderr, "loom_bench: cannot write %s\n", opt_.json.c_str());
}

}  // namespace bench
