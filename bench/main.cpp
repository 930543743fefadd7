// loom_bench: every benchmark behind docs/BENCHMARKS.md, one driver.
//
//   mpiexec -n 2 loom_bench <command> [--json PATH] [--min-reps N] [--max-reps N]
//                                     [--ci 0.05] [--warmup N] [--max-bytes B]
//                                     [--iters N] [--tiny] [--n 2048] [--sweeps 50]
// commands:
//   comm:  pingpong bw rma barrier
//   time:  clock collectives
//   dsm:   pagefetch fault diff lock barrier_dirty remote_rw jacobi migrate
//   groups: comm, time, dsm, all
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
};
const Command kCommands[] = {
    {"pingpong", "comm", 2},     {"bw", "comm", 2},       {"rma", "comm", 2},      {"barrier", "comm", 2},
    {"clock", "time", 2},        {"collectives", "time", 2}, {"pagefetch", "dsm", 2}, {"fault", "dsm", 2},
    {"diff", "dsm", 1},          {"lock", "dsm", 2},      {"barrier_dirty", "dsm", 2}, {"remote_rw", "dsm", 2},
    {"jacobi", "dsm", 1},        {"migrate", "dsm", 2},
};

void usage() {
  std::fprintf(stderr, "usage: mpiexec -n N loom_bench <command|comm|time|dsm|all> [options]\ncommands:");
  for (const Command& c : kCommands) std::fprintf(stderr, " %s", c.name);
  std::fprintf(stderr,
               "\noptions: --json PATH --min-reps N --max-reps N --ci FRACTION --warmup N --max-bytes B --iters N "
               "--tiny --n N --sweeps N\n");
}

}  // namespace

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  Options o;
  std::string what;
  int n = 2048, sweeps = 50;
  bool bad = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : (bad = true, "0"); };
    if (a == "--json") o.json = next();
    else if (a == "--min-reps") o.min_reps = std::atoi(next());
    else if (a == "--max-reps") o.max_reps = std::atoi(next());
    else if (a == "--ci") o.rel_ci = std::atof(next());
    else if (a == "--warmup") o.warmup = std::atoi(next());
    else if (a == "--max-bytes") o.max_bytes = (size_t)std::atoll(next());
    else if (a == "--iters") o.iters = std::atoi(next());
    else if (a == "--tiny") o.tiny = true;
    else if (a == "--n") n = std::atoi(next());
    else if (a == "--sweeps") sweeps = std::atoi(next());
    else if (a[0] != '-' && what.empty()) what = a;
    else bad = true;
  }
  if (o.tiny) o.max_bytes = std::min<size_t>(o.max_bytes, 4096);
  if (o.min_reps < 1 || o.max_reps < o.min_reps || o.rel_ci <= 0 || o.max_bytes < 1) bad = true;
  std::vector<const Command*> run;
  for (const Command& c : kCommands)
    if (what == c.name || what == c.group || what == "all") run.push_back(&c);
  if (bad || run.empty()) {
    if (rank() == 0) usage();
    MPI_Finalize();
    return 2;
  }
  Report rep(what);
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
    else if (cmd == "fault") run_fault(o, rep);
    else if (cmd == "diff") run_diff(o, rep);
    else if (cmd == "lock") run_lock(o, rep);
    else if (cmd == "barrier_dirty") run_barrier_dirty(o, rep);
    else if (cmd == "remote_rw") run_remote_rw(o, rep);
    else if (cmd == "jacobi") run_jacobi(o, rep, o.tiny ? 256 : n, o.tiny ? 5 : sweeps);
    else if (cmd == "migrate") run_migrate(o, rep, o.tiny ? 256 : n, o.tiny ? 5 : sweeps);
  }
  rep.finish(o, nranks());
  MPI_Finalize();
  return 0;
}
