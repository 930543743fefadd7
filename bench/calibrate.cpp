// loom_bench calibrate: this machine's and this network's parameters, as a
// platform file for the performance model (tools/loom_model.py, `loom
// predict`; the format is in docs/MODEL.md).
//
// It runs the benchmarks that measure each parameter (the SCI paper's set:
// latency, bandwidth one way and both ways against size, barrier against
// ranks, remote read and write bandwidth; and what a DSM adds: fault trap,
// mprotect, page fetch, diff creation and application, one-sided get, put
// and compare-and-swap, Loom's lock and barrier, local memcpy), keeps their
// rows in the report like any command, and derives the platform from them.
// Ranks 0 and 1 are the pair measured: on one host the file describes the
// inside of a host (mapped peers), across hosts the network between hosts.
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "bench.hpp"

namespace bench {

namespace {

// The median of the result named `name` whose parameters include every pair
// of `want`; NaN when the run has none (a command skipped for its rank count).
double find(const Report& rep, const std::string& name, const std::map<std::string, double>& want = {}) {
  for (const Result& r : rep.results()) {
    if (r.name != name) continue;
    bool all = true;
    for (const auto& [k, v] : want) {
      auto it = r.params.find(k);
      if (it == r.params.end() || std::fabs(it->second - v) > 1e-9 * std::max(1.0, std::fabs(v))) all = false;
    }
    if (all) return r.s.median;
  }
  return NAN;
}

// A parameter of the first result named `name`; NaN when the run has none.
double find_param(const Report& rep, const std::string& name, const std::string& param) {
  for (const Result& r : rep.results()) {
    if (r.name != name) continue;
    auto it = r.params.find(param);
    return it == r.params.end() ? NAN : it->second;
  }
  return NAN;
}

// The largest message size a sweep reached, and its figure.
double at_largest(const Report& rep, const std::string& name, double* bytes) {
  double best = -1, v = NAN;
  for (const Result& r : rep.results())
    if (r.name == name) {
      auto it = r.params.find("bytes");
      if (it != r.params.end() && it->second > best) best = it->second, v = r.s.median;
    }
  if (bytes) *bytes = best;
  return v;
}

std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

// {"2": x, "3": y} of a result measured against one parameter.
std::string series(const Report& rep, const std::string& name, const std::string& param) {
  std::string s = "{";
  std::map<double, bool> seen;  // the first row of a value (barrier_dirty repeats barrier_mpi's)
  for (const Result& r : rep.results())
    if (r.name == name && r.params.count(param) && !seen[r.params.at(param)]) {
      seen[r.params.at(param)] = true;
      if (s.size() > 1) s += ", ";
      char key[32];
      std::snprintf(key, sizeof key, "%.0f", r.params.at(param));
      s += "\"" + std::string(key) + "\": " + num(r.s.median);
    }
  return s + "}";
}

std::string quote(const std::string& v) {
  std::string s = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') s += '\\';
    if ((unsigned char)c >= 0x20) s += c;
  }
  return s + "\"";
}

// The program's own computation as this platform runs it: every rank sweeps
// a private 5-point stencil at once (memory-bound, like most of the
// suite), with Loom started (its helper threads and the MPI library's as
// a program has them), between Loom barriers; and the same with Loom not
// started, between MPI barriers (`bare`).  Milliseconds per sample, the
// slowest rank's.  The model scales a trace's computation by how much more
// running Loom costs the computation on the platform it predicts than on
// the one the trace ran on: the ratio kernel / bare there over kernel /
// bare here.  The two are measured in alternating rounds (bare, then Loom
// started, then stopped again), and the ratio is the median of the
// rounds' own: the machine's speed drifts within a calibration by more
// than the ratio's size (on two emulated hosts sharing this 2-core
// machine, one bare block before the Loom block and one after gave a
// ratio of 0.84: Loom making the computation faster).
double stencil(std::vector<double>& a, std::vector<double>& b, int n, int sweeps) {
  double t0 = MPI_Wtime();
  for (int k = 0; k < sweeps; k++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        b[(size_t)i * n + j] = 0.25 * (a[(size_t)(i - 1) * n + j] + a[(size_t)(i + 1) * n + j] +
                                       a[(size_t)i * n + j - 1] + a[(size_t)i * n + j + 1]);
    std::swap(a, b);
  }
  return (MPI_Wtime() - t0) * 1e3;
}

struct Kernel {
  Summary loom, bare, ratio;
};

Kernel compute_kernel(const Options& o) {
  const int n = o.tiny ? 256 : 1024, sweeps = o.tiny ? 2 : 8;
  const int rounds = o.tiny ? 2 : std::max(3, std::min(9, o.max_reps / 2)), per_block = o.tiny ? 2 : 5;
  std::vector<double> a((size_t)n * n, 1.0), b((size_t)n * n, 0.0);
  // One block: a warm-up sample, then per_block samples, each the slowest
  // rank's; returns their median and keeps them all.
  auto block = [&](bool with_loom, std::vector<double>& all) {
    std::vector<double> v;
    for (int k = 0; k <= per_block; k++) {
      if (with_loom) OK(loom_barrier());
      else MPI_Barrier(MPI_COMM_WORLD);
      double t = stencil(a, b, n, sweeps), worst = 0;
      if (with_loom) OK(loom_barrier());
      MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (k > 0) v.push_back(worst);
    }
    all.insert(all.end(), v.begin(), v.end());
    return summarize(v).median;
  };
  std::vector<double> bare, loom, ratio;
  double before = block(false, bare);
  for (int r = 0; r < rounds; r++) {
    loom_start();
    double l = block(true, loom);
    loom_stop(nullptr);
    // Against the bare blocks on both sides of this Loom block, so that a
    // steady drift inside the round cancels (one round's after is the
    // next's before).
    double after = block(false, bare);
    ratio.push_back(l / (0.5 * (before + after)));
    before = after;
  }
  Kernel k{summarize(loom), summarize(bare), summarize(ratio)};
  for (Summary* x : {&k.loom, &k.bare, &k.ratio}) x->converged = x->median > 0 && (x->hi - x->lo) / x->median <= o.rel_ci;
  return k;
}

}  // namespace

void run_calibrate(const Options& o, Report& rep, const std::string& platform) {
  // Where ranks 0 and 1 run decides what the file describes.
  char host[256] = {0}, other[256] = {0};
  gethostname(host, sizeof host - 1);
  MPI_Status st;
  if (rank() == 1) MPI_Send(host, sizeof host, MPI_CHAR, 0, 77, MPI_COMM_WORLD);
  if (rank() == 0) MPI_Recv(other, sizeof other, MPI_CHAR, 1, 77, MPI_COMM_WORLD, &st);
  MPI_Bcast(other, sizeof other, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Bcast(host, sizeof host, MPI_CHAR, 0, MPI_COMM_WORLD);
  const bool one_host = std::string(host) == other;
  rep.note("calibrate", one_host ? "ranks 0 and 1 on one host: the inside of a host" : "ranks 0 and 1 on two hosts: the network between hosts");

  run_pingpong(o, rep);
  run_bw(o, rep);
  run_rma(o, rep);
  run_barrier(o, rep);
  run_pagefetch(o, rep);
  run_fault(o, rep);
  run_diff(o, rep);
  {
    // The lock rows with the program's MPI waits left to the MPI library:
    // the turns' waiting rank then leaves Loom's requests to its protocol
    // thread, the price the model's lock_kick_us and lock_home_us have
    // always stood for (a rank outside Loom; docs/MODEL.md, "Platforms").
    // Served by the waiting MPI_Recv instead (the default), the take
    // through the home and the kick cost a fraction of that, which no
    // program of the suite sees: none waits in MPI while others take its
    // locks (docs/BENCHMARKS.md, "The program's blocking MPI calls serve").
    Options lo = o;
    lo.lock_mpi_serves = false;
    run_lock(lo, rep);
  }
  run_barrier_dirty(o, rep);
  run_remote_rw(o, rep);
  if (!one_host) run_halo(o, rep);
  const Kernel kernel = compute_kernel(o);
  rep.add(Result{"compute_kernel", {{"ranks", (double)nranks()}}, "ms", kernel.loom, {}, {}, {}});
  rep.add(Result{"compute_kernel_bare", {{"ranks", (double)nranks()}}, "ms", kernel.bare, {}, {}, {}});
  rep.add(Result{"compute_kernel_ratio", {{"ranks", (double)nranks()}}, "x", kernel.ratio, {}, {}, {}});
  if (rank() != 0) return;

  double big = 0, bigbi = 0;
  const double lat = find(rep, "pingpong_latency", {{"bytes", 1}});
  const double bw = at_largest(rep, "bandwidth_unidirectional", &big);
  const double bwbi = at_largest(rep, "bandwidth_bidirectional", &bigbi);
  const double trap = find(rep, "raw_fault_trap_plus_mprotect");
  const double memcpy_bw = find(rep, "memcpy_local");
  const double fetch1 = find(rep, "pagefetch", {{"unit_pages", 1}});
  loom_config_t c;
  OK(loom_config_default(&c));
  const double fetchu = find(rep, "pagefetch", {{"unit_pages", (double)c.unit_pages}});
  const double coldu = find(rep, "pagefetch_cold", {{"unit_pages", (double)c.unit_pages}});
  const double busy_fixed = find(rep, "pagefetch_busy_home");
  // The busy home's fetch after stretches drawn at random, short and long,
  // the mean of the two medians: the fixed stretches keep one phase against
  // the home protocol thread's naps (docs/BENCHMARKS.md, "A slow home is
  // told").
  const double busy_home = 0.5 * (find(rep, "pagefetch_busy_home_random", {{"computed_us_lo", 20}}) +
                                  find(rep, "pagefetch_busy_home_random", {{"computed_us_lo", 1500}}));
  const double crossed1 = find(rep, "pagefetch_crossed", {{"unit_pages", 1}});
  const double crossedu = find(rep, "pagefetch_crossed", {{"unit_pages", (double)c.unit_pages}});
  // A fetch of one page per fault: the trap, a request and the page back,
  // and Loom's own work around them (handler, mprotect, waiting): the
  // overhead is what is left of the measured fetch once the model's
  // messages are taken out, so that the model gives back the measured fetch
  // on the network it was measured on.  Inside a host a fetch is a copy.
  // Messages cost what a ping-pong of their size costs one way (the model
  // reads the curve); sizes the sweep did not reach cost the latency and
  // the bytes at the streaming bandwidth.
  auto msg = [&](double bytes) {
    double v = find(rep, "pingpong_latency", {{"bytes", bytes}});
    return std::isfinite(v) ? v : lat + bytes / bw;
  };
  const double wire = one_host ? 4096.0 / memcpy_bw : msg(64) + msg(4096);
  const double overhead = std::max(0.0, fetch1 - wire);
  // Each further page of a fetch window: its share of the window's fetch
  // beyond the larger reply.
  const double unit_bytes = 4096.0 * c.unit_pages;
  const double more = one_host ? (unit_bytes - 4096) / memcpy_bw : msg(unit_bytes) - msg(4096);
  const double extra_page = std::max(0.0, (fetchu * c.unit_pages - fetch1 - more) / (c.unit_pages - 1));
  // Diffs: creation per page and per changed byte (a straight line through
  // 1% and all of a page's words written), application per byte.
  const double enc1 = find(rep, "diff_create", {{"dirty_fraction", 0.01}});
  const double encall = find(rep, "diff_create", {{"dirty_fraction", 1}});
  const double app1 = find(rep, "diff_apply", {{"dirty_fraction", 0.01}});
  const double appall = find(rep, "diff_apply", {{"dirty_fraction", 1}});
  // With 1% of the 512 words written, about 5 words change (one byte each
  // and a marker byte, so about 2 bytes a word); with all, every word.
  const double per_byte = std::max(0.0, (encall - enc1) / (4096 - 10));
  const double apply_per_byte = std::max(0.0, (appall - app1) / (4096 - 10));
  const double lock = find(rep, "lock_uncontended");
  const double cas = find(rep, "raw_mpi_cas_round_trip");
  double barrier2 = find(rep, "barrier_loom", {{"ranks", 2}});
  if (!std::isfinite(barrier2)) barrier2 = find(rep, "barrier_loom_subset", {{"ranks", 2}});
  const double barrier_mpi2 = find(rep, "barrier_mpi", {{"ranks", 2}});
  const double mprot = find(rep, "mprotect_range", {{"pages", 1}});
  // A barrier that pushes pages across hosts (the barrier prefetch) costs
  // more than an empty barrier and the pages' message: the asks before the
  // agreement, the homes' sends after it, the waits for them on cores the
  // computation shares.  What is left of the halo round (4 pages a
  // neighbour rewrote, pushed by the barrier and read: run_halo) once the
  // model's parts of it are taken out: the barrier, the pages' message,
  // their copy into the slots and the trap that opens them.
  const double halo = find(rep, "halo_round", {{"pages", 4}, {"ranks", (double)nranks()}});
  const double push_over = std::max(0.0, halo - (barrier2 + msg(4 * 4096.0) + 4 * 4096.0 / memcpy_bw + trap));

  time_t now = time(nullptr);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
  const std::string section = one_host ? "inside_host" : "between_hosts";
  using Fields = std::vector<std::pair<std::string, std::string>>;
  // {"key": value, ...}: values already JSON, one per line at this indent.
  auto object = [](const Fields& kv, const std::string& ind) {
    std::string o = "{\n";
    for (size_t i = 0; i < kv.size(); i++)
      o += ind + "  " + quote(kv[i].first) + ": " + kv[i].second + (i + 1 < kv.size() ? ",\n" : "\n");
    return o + ind + "}";
  };
  const std::string measured = object(
      {{"pingpong_us", series(rep, "pingpong_latency", "bytes")},
       {"bandwidth_MBps", series(rep, "bandwidth_unidirectional", "bytes")},
       {"bandwidth_bidir_MBps", series(rep, "bandwidth_bidirectional", "bytes")},
       {"rma_get_us", num(find(rep, "rma_get_latency"))},
       {"rma_put_us", num(find(rep, "rma_put_latency"))},
       {"rma_cas_us", num(cas)},
       {"remote_read_MBps", num(find(rep, "remote_read_memcpy"))},
       {"remote_write_MBps", num(find(rep, "remote_write_memcpy"))},
       {"pagefetch_us", num(fetch1)},
       {"pagefetch_unit_us_per_page", num(fetchu)},
       {"pagefetch_cold_unit_us_per_page", num(coldu)},
       {"pagefetch_busy_home_us", num(busy_fixed)},
       {"pagefetch_busy_home_random_us", num(busy_home)},
       {"pagefetch_busy_home_window_us", num(find(rep, "pagefetch_busy_home_random_window", {{"computed_us_lo", 1500}}))},
       {"pagefetch_crossed_us", num(crossed1)},
       {"pagefetch_crossed_unit_us", num(crossedu)},
       {"unit_pages", std::to_string(c.unit_pages)},
       {"barrier_mpi_us", series(rep, "barrier_mpi", "ranks")},
       {"barrier_loom_us", series(rep, "barrier_loom", "ranks")},
       {"barrier_mpi_2_us", num(barrier_mpi2)},
       {"release_16_pages_us", num(find(rep, "barrier_dirty_rewritten", {{"dirty_pages", 16}}))},
       {"halo_round_us", num(halo)},
       {"lock_take_after_release_us", num(find(rep, "lock_take_after_release"))},
       {"lock_take_kick_us", num(find(rep, "lock_take_kick"))}},
      "    ");
  Fields net_fields = {{"latency_us", num(lat)},
                       {"hop_latency_us", "0"},
                       {"bandwidth_MBps", num(bw)},
                       {"bandwidth_bidir_MBps", num(bwbi)},
                       {"bandwidth_at_bytes", num(big)},
                       {"fetch_overhead_us", num(overhead)},
                       {"fetch_extra_page_us", num(extra_page)},
                       // A rank's first fetch into a window of its cache
                       // (fresh blocks, per page, the default unit): the
                       // slots' memory, the window's homes learnt.
                       {"fetch_cold_page_us", num(std::max(0.0, coldu - fetchu))},
                       {"lock_us", num(lock)},
                       {"barrier_us", num(barrier2)}};
  if (!one_host) {
    net_fields.push_back({"barrier_push_us", num(push_over)});
    // A request to a rank that computes waits for that rank's protocol
    // thread to wake or to get a core (pagefetch_busy_home_random, fetches
    // after 20-600 us and 1.5-4.5 ms of computation): the mean of their
    // medians less the fetch from a home waiting in a barrier is what the
    // replay charges such a request.
    net_fields.push_back({"serve_wake_us", num(std::max(0.0, busy_home - fetch1))});
    // Each further page of a large get from a home that computes
    // (pagefetch_busy_home_random_window: a window of 128 pages a fault,
    // after the same long stretches as the one-page row): what is left of
    // its cost over the one-page fetch once the model's own price of the
    // further pages (fetch_extra_page_us and the larger reply) is taken
    // out.  The get moves as the home's protocol thread polls MPI; the
    // replay charges it on fetches that find their home computing.
    const double win = find(rep, "pagefetch_busy_home_random_window", {{"computed_us_lo", 1500}});
    const double one = find(rep, "pagefetch_busy_home_random", {{"computed_us_lo", 1500}});
    const double win_pages = find_param(rep, "pagefetch_busy_home_random_window", "unit_pages");
    if (std::isfinite(win) && std::isfinite(one) && win_pages > 1) {
      const double further = msg(4096.0 * win_pages) - msg(4096.0) + (win_pages - 1) * extra_page;
      net_fields.push_back({"fetch_busy_page_us", num(std::max(0.0, (win - one - further) / (win_pages - 1)))});
    }
    // A lock the other rank keeps (lock_alternating, less the turns passed
    // without it): the round trip to the home, the kick, the keeper's
    // give-up and the hand-over, as the runtime does them.  (The turns'
    // own takes, timed apart, say that this is a mean: at 2 ranks rank 1's
    // take asks the other host's home, lock_home_us below, and rank 0's
    // finds the lock released to its home once rank 1's keeps cool off,
    // lock_take_after_release, where a take that kicks a keeper waiting
    // outside Loom costs several times either, lock_take_kick.)
    net_fields.push_back({"lock_kick_us", num(std::max(0.0, find(rep, "lock_alternating") - find(rep, "lock_turns_bare")))});
    // A free lock whose home is on the other host (lock_take_through_home:
    // rank 1's takes in the alternating turns): the request to the home,
    // served by its protocol thread while its application thread is
    // outside Loom, and the grant.
    net_fields.push_back({"lock_home_us", num(find(rep, "lock_take_through_home"))});
  }
  net_fields.push_back({"compute_kernel_ms", num(find(rep, "compute_kernel"))});
  net_fields.push_back({"compute_kernel_bare_ms", num(find(rep, "compute_kernel_bare"))});
  net_fields.push_back({"compute_kernel_ratio", num(find(rep, "compute_kernel_ratio"))});
  net_fields.push_back({"measured", measured});
  const std::string net = object(net_fields, "  ");
  const std::string node = object({{"cpu_speed", "1"},
                                   {"cores", std::to_string(sysconf(_SC_NPROCESSORS_ONLN))},
                                   {"trap_us", num(trap)},
                                   {"trap_outside_us", num(std::max(0.0, find(rep, "raw_fault_trap_outside_handler")))},
                                   {"mprotect_us", num(mprot)},
                                   {"memcpy_MBps", num(memcpy_bw)},
                                   {"diff_create_us_per_page", num(enc1)},
                                   {"diff_create_us_per_byte", num(per_byte)},
                                   {"diff_apply_us_per_byte", num(apply_per_byte)}},
                                  "  ");
  const std::string name = std::string("calibrated: ") +
                           (one_host ? "one host " + std::string(host) : std::string(host) + " to " + other);
  const std::string source = std::string("loom_bench calibrate, ") + std::to_string(nranks()) + " ranks, " + date +
                             ", " + mpi_version() + ", Loom " + loom_version();
  const std::string j = object({{"format", quote("loom-platform 1")},
                                {"name", quote(name)},
                                {"source", quote(source)},
                                {"node", node},
                                {section, net}},
                               "") + "\n";
  FILE* f = std::fopen(platform.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "loom_bench: calibrate: cannot write the platform file %s\n", platform.c_str());
    return;
  }
  std::fputs(j.c_str(), f);
  std::fclose(f);
  std::printf("# platform (%s) written to %s\n", section.c_str(), platform.c_str());
}

}  // namespace bench
