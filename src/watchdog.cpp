// The hang watchdog (watchdog.hpp has the contract).
//
// How every rank gets to say what it waits in: the rank that times out
// stores its rank into a word of every other rank's Meta segment (the hang
// word; a transport store, so it reaches ranks on other hosts through their
// protocol or progress threads even while their application threads wait),
// and every waiting rank looks at its own word every 50 ms of waiting.  The
// reporter then waits two seconds, serving requests, for the others' reports
// to reach the launcher, and aborts.  Ranks that never report were not
// waiting in Loom (computing, blocked in a call outside Loom, or gone).
//
// One rank aborts.  The ranks of a deadlock often time out together, and
// Open MPI 5.0.11's launcher, given MPI_Abort by several ranks on two hosts
// at once, at times never ends the job: a plain MPI program whose 4 ranks
// (2 hosts x 2) call MPI_Abort together ran past 30 s in 1 run of 12, and in
// 0 of 24 when one rank called it (docs/results/issue10/openmpi_abort).
// (That launcher still ends some hung Loom jobs late, for a cause not
// found; ARCHITECTURE.md, the Open MPI cluster paragraph.)  So the ranks
// that time out race for a word on rank 0 (compare-and-swap); the winner
// aborts, and the others wait for it, serving, and abort themselves only if
// it has not ended the job within kAbortGrace seconds (it died or is stuck).
#include "watchdog.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "runtime.hpp"

namespace loom {

WaitSite g_wait;

namespace {

uint64_t hang_off() { return rt.meta.barrier + kHangWord * 8; }

constexpr double kAbortGrace = 8.0;

double g_last_look = 0;  // when this rank last read its hang word
bool g_reported = false;
bool g_noted = false;  // LOOM_WAIT_NOTE said so once

// "loom: KIND: rank R (pid P on HOST) has waited T s in WHAT (...)WHY".
void report(const char* kind, double waited, const char* why) {
  char host[64] = "?", what[160];
  gethostname(host, sizeof host - 1);
  const WaitSite& w = g_wait;
  int n = std::snprintf(what, sizeof what, "%s", w.what);
  if (w.id >= 0 && n > 0) n += std::snprintf(what + n, sizeof what - (size_t)n, " %lld", (long long)w.id);
  if (w.peer >= 0 && n > 0) std::snprintf(what + n, sizeof what - (size_t)n, ", waiting for rank %d", w.peer);
  std::fprintf(stderr,
               "loom: %s: rank %d (pid %d on %s) has waited %.1f s in %s (barriers passed: %llu, locks "
               "held: %d)%s\n",
               kind, rt.rank, (int)getpid(), host, waited, what, (unsigned long long)rt.st.s.barriers,
               [] {
                 int h = 0;
                 for (int x : rt.sync.held) h += x != 0;
                 return h;
               }(),
               why);
  std::fflush(stderr);
}
void report(double waited, const char* why) { report("hang", waited, why); }

}  // namespace

void watchdog_poll(double started) {
  const double t = now();
  if (!g_reported && t - g_last_look >= 0.05) {
    g_last_look = t;
    const uint64_t from = rt.tp.load(rt.rank, Seg::Meta, hang_off());
    if (from) {
      char why[96];
      std::snprintf(why, sizeof why, "; rank %d reported a hang", (int)from - 1);
      report(t - started, why);
      g_reported = true;
    }
  }
  // A wait far longer than a program's usual one, with no LOOM_HANG_TIMEOUT
  // to end it (or a later one): say so once, and go on waiting.  A rank
  // busy for minutes (I/O, a long serial phase) makes the others print this
  // once; a stuck job is no longer silent.
  if (!g_noted && rt.cfg.wait_note > 0 && t - started >= rt.cfg.wait_note &&
      (rt.cfg.hang_timeout <= 0 || rt.cfg.wait_note < rt.cfg.hang_timeout)) {
    g_noted = true;
    char why[200];
    std::snprintf(why, sizeof why,
                  "; it goes on waiting.  If the job is stuck, LOOM_HANG_TIMEOUT=T makes every waiting rank "
                  "report and ends the job (LOOM_WAIT_NOTE=%d s said this; 0: never)",
                  rt.cfg.wait_note);
    report("note", t - started, why);
  }
  if (rt.cfg.hang_timeout <= 0 || t - started < rt.cfg.hang_timeout) return;
  char why[160];
  std::snprintf(why, sizeof why, ": longer than LOOM_HANG_TIMEOUT=%d s", rt.cfg.hang_timeout);
  if (!g_reported) report(t - started, why);  // else it said so when the first report came
  for (int r = 0; r < rt.nranks; r++)
    if (r != rt.rank) rt.tp.store(r, Seg::Meta, hang_off(), (uint64_t)rt.rank + 1);
  rt.tp.flush();
  const bool aborter =
      rt.tp.cas(0, Seg::Meta, rt.meta.barrier + kAbortWord * 8, 0, (uint64_t)rt.rank + 1) == 0;
  for (double until = now() + (aborter ? 2.0 : 2.0 + kAbortGrace); now() < until;) {  // the others report
    rt.tp.serve_while_waiting();
    usleep(1000);
  }
  std::fprintf(stderr,
               "loom: hang: the job is aborted.  The ranks above were waiting in Loom; a rank not listed was "
               "computing or blocked outside Loom.  Look for a collective call one rank does not make, or a "
               "barrier entered while holding a lock another rank waits for.\n");
  std::fflush(stderr);
  usleep(200000);  // the launcher forwards output through a pipe it stops reading at the abort
  MPI_Abort(MPI_COMM_WORLD, 72);
  std::abort();
}

}  // namespace loom
