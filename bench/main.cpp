// loom_bench: every benchmark behind docs/BENCHMARKS.md, one driver.
//
//   mpiexec -n 2 loom_bench <command|group> [options]   (loom_bench --help
//   describes every command and option)
#include <cstring>
#include <string>
#include <vector>

#include "bench.hpp"

using namespace bench;

namespace {

struct Command {
  const char* name;
  const char* group;
  int min_ranks;
  const char* what;
};
const Command kCommands[] = {
    {"pingpong", "comm", 2, "MPI send/receive round trip, 8 B to --max-bytes (us)"},
    {"bw", "comm", 2, "MPI streaming bandwidth, 8 B to --max-bytes (MB/s)"},
    {"rma", "comm", 2, "MPI_Get/Put/Accumulate latency and a flush (us)"},
    {"barrier", "comm", 2, "MPI_Barrier against loom_barrier with nothing dirty (us)"},
    {"clock", "time", 2, "the global clock: offset error against a ping-pong reference"},
    {"collectives", "time", 2, "MPI collectives timed on the global clock (us)"},
    {"pagefetch", "dsm", 2, "one page fetched from its home: the fault path against a raw MPI_Get (us)"},
    {"halo", "dsm", 2, "4 pages a neighbour rewrites read after every barrier, against MPI_Sendrecv (us)"},
    {"fault", "dsm", 2, "read and write faults, local and remote home (us)"},
    {"diff", "dsm", 1, "twin, diff and apply of a page with scattered writes (us)"},
    {"lock", "dsm", 2, "loom_lock/unlock hand-over between ranks, contended and not (us)"},
    {"barrier_dirty", "dsm", 2, "loom_barrier with pages written since the last one (us)"},
    {"remote_rw", "dsm", 2, "reads and writes of pages homed elsewhere, per page (us)"},
    {"jacobi", "dsm", 1, "2-D Jacobi (--n, --sweeps): sequential, Loom, speed-up, bit-identical result"},
    {"migrate", "dsm", 2, "Jacobi with homes placed badly, with and without home migration"},
    {"scale", "dsm", 2, "barrier and lock at this rank count, few iterations (runs of hundreds of ranks) (us)"},
    {"calibrate", "model", 2, "the performance model's platform parameters, written to --platform (docs/MODEL.md)"},
};

void usage(FILE* f) {
  std::fprintf(f,
               "usage: mpiexec -n N loom_bench <command|group> [options]\n"
               "Every figure is the median of repeated samples, with its min, max and the 95%% confidence interval\n"
               "of the median; a row is printed as soon as it is measured.\n\ncommands (at least that many ranks):\n");
  for (const Command& c : kCommands) std::fprintf(f, "  %-14s %-5s %d  %s\n", c.name, c.group, c.min_ranks, c.what);
  std::fprintf(f,
               "groups: comm, time, dsm, model (the commands above with that group), all (every group but model)\n\noptions:\n"
               "  --json PATH      write the results as JSON (bench/schema.json), rewritten after every row\n"
               "  --min-reps N     at least N samples per figure (default 7)\n"
               "  --max-reps N     at most N samples per figure (default 41)\n"
               "  --ci FRACTION    stop sampling when the 95%% CI of the median is within this fraction of it\n"
               "                   (default 0.05)\n"
               "  --warmup N       samples taken and discarded first (default 2)\n"
               "  --max-bytes B    largest message or transfer size (default 4194304)\n"
               "  --iters N        inner iterations per sample (default: each benchmark's own)\n"
               "  --sample-seconds S  size sweeps (pingpong, bw, rma): fewer iterations where a sample would take\n"
               "                   longer than S seconds at the previous size's rate (default 0.25; 0: never)\n"
               "  --tiny           smallest sizes and 3 samples (the tests use it)\n"
               "  --n N            jacobi, migrate: grid side (default 2048)\n"
               "  --sweeps N       jacobi, migrate: sweeps per sample (default 50)\n"
               "  --platform PATH  calibrate: the platform file to write (default platform.json)\n"
               "  --help           this text\n");
}

// The reason the command line is wrong, or "" when it is fine.
std::string check(const std::string& what, bool bad_option, const std::string& bad_word,
                  const std::vector<const Command*>& run) {
  if (!bad_word.empty()) return "unknown or incomplete option " + bad_word;
  if (bad_option) return "an option is out of range (--min-reps >= 1, --max-reps >= --min-reps, --ci > 0, --max-bytes >= 1, --n >= 4, --sweeps >= 1, --sample-seconds >= 0)";
  if (what.empty()) return "no command given";
  if (run.empty()) return "unknown command " + what;
  int possible = 0;
  std::string need;
  for (const Command* c : run) {
    if (nranks() >= c->min_ranks) possible++;
    else need = c->name + std::string(" needs at least ") + std::to_string(c->min_ranks) + " ranks";
  }
  if (!possible) return need + "; this run has " + std::to_string(nranks()) + " (mpiexec -n N)";
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    }
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  Options o;
  std::string what, bad_word;
  int n = 2048, sweeps = 50;
  std::string platform = "platform.json";
  bool bad = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : (bad_word = a, "0"); };
    if (a == "--json") o.json = next();
    else if (a == "--min-reps") o.min_reps = std::atoi(next());
    else if (a == "--max-reps") o.max_reps = std::atoi(next());
    else if (a == "--ci") o.rel_ci = std::atof(next());
    else if (a == "--warmup") o.warmup = std::atoi(next());
    else if (a == "--max-bytes") o.max_bytes = (size_t)std::atoll(next());
    else if (a == "--iters") o.iters = std::atoi(next());
    else if (a == "--sample-seconds") o.sample_s = std::atof(next());
    else if (a == "--tiny") o.tiny = true;
    else if (a == "--n") n = std::atoi(next());
    else if (a == "--sweeps") sweeps = std::atoi(next());
    else if (a == "--platform") platform = next();
    else if (a[0] != '-' && what.empty()) what = a;
    else if (bad_word.empty()) bad_word = a;
  }
  if (o.tiny) o.max_bytes = std::min<size_t>(o.max_bytes, 4096);
  if (o.min_reps < 1 || o.max_reps < o.min_reps || o.rel_ci <= 0 || o.max_bytes < 1 || n < 4 || sweeps < 1 || o.sample_s < 0) bad = true;
  std::vector<const Command*> run;
  for (const Command& c : kCommands)
    if (what == c.name || what == c.group || (what == "all" && std::strcmp(c.group, "model") != 0)) run.push_back(&c);
  const std::string why = check(what, bad, bad_word, run);
  if (!why.empty()) {
    if (rank() == 0) {
      std::fprintf(stderr, "loom_bench: %s\n", why.c_str());
      usage(stderr);
    }
    MPI_Finalize();
    return 2;
  }
  Report rep(what);
  rep.begin(o, nranks());
  for (const Command* c : run) {
    if (nranks() < c->min_ranks) {
      if (rank() == 0) std::fprintf(stderr, "loom_bench: %s needs at least %d ranks; skipped\n", c->name, c->min_ranks);
      continue;
    }
    std::string cmd = c->name;
    if (cmd == "pingpong") run_pingpong(o, rep);
    else if (cmd == "bw") run_bw(o, rep);
    else if (cmd == "rma") run_rma(o, rep);
    else if (cmd == "barrier") run_barrier(o, rep);
    else if (cmd == "clock") run_clock(o, rep);
    else if (cmd == "collectives") run_collectives(o, rep);
    else if (cmd == "pagefetch") run_pagefetch(o, rep);
    else if (cmd == "halo") run_halo(o, rep);
    else if (cmd == "fault") run_fault(o, rep);
    else if (cmd == "diff") run_diff(o, rep);
    else if (cmd == "lock") run_lock(o, rep);
    else if (cmd == "barrier_dirty") run_barrier_dirty(o, rep);
    else if (cmd == "scale") run_scale(o, rep);
    else if (cmd == "remote_rw") run_remote_rw(o, rep);
    else if (cmd == "jacobi") run_jacobi(o, rep, o.tiny ? 256 : n, o.tiny ? 5 : sweeps);
    else if (cmd == "migrate") run_migrate(o, rep, o.tiny ? 256 : n, o.tiny ? 5 : sweeps);
    else if (cmd == "calibrate") run_calibrate(o, rep, platform);
  }
  rep.finish();
  MPI_Finalize();
  return 0;
}
