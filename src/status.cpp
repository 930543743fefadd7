// Recording and logging of errors; see status.hpp for the rules.
#include "status.hpp"

#include <mpi.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <unistd.h>

namespace loom {
namespace {
thread_local char g_msg[512] = "no error";
// Errors before loom_init reads the configuration follow the environment too.
bool initial_log() {
  const char* v = std::getenv("LOOM_LOG_ERRORS");
  return !(v && (!std::strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") || !strcasecmp(v, "false")));
}
bool g_log = initial_log();
int g_rank = -1, g_nranks = 0;
thread_local bool g_defer = false;

void record(const char* text, bool print) {
  std::snprintf(g_msg, sizeof g_msg, "%s", text);
  if (g_log && print) std::fprintf(stderr, "loom[%d]: error: %s\n", g_rank, text);
}
}  // namespace

void set_log_errors(bool on) { g_log = on; }
void set_log_rank(int rank, int nranks) {
  g_rank = rank;
  g_nranks = nranks;
}
const char* last_error() { return g_msg; }

DeferErrors::DeferErrors() : was_(g_defer) { g_defer = true; }
DeferErrors::~DeferErrors() { g_defer = was_; }

namespace {
enum class Print { Here, Nobody, Rank0ForAll };

Status vfail(loom_status_t code, Print who, const char* fmt, va_list ap) {
  char buf[512];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  record(buf, who == Print::Here && !g_defer);
  if (who == Print::Rank0ForAll && g_log && !g_defer && g_rank <= 0) {
    if (g_nranks > 1) std::fprintf(stderr, "loom[%d]: error: %s (the same on all %d ranks)\n", g_rank, buf, g_nranks);
    else std::fprintf(stderr, "loom[%d]: error: %s\n", g_rank, buf);
  }
  return Status(code);
}
}  // namespace

#define LOOM_VFAIL(code, who)                  \
  va_list ap;                                  \
  va_start(ap, fmt);                           \
  Status st = vfail(code, who, fmt, ap);       \
  va_end(ap);                                  \
  return st

Status fail(loom_status_t code, const char* fmt, ...) { LOOM_VFAIL(code, Print::Here); }
Status fail_quiet(loom_status_t code, const char* fmt, ...) { LOOM_VFAIL(code, Print::Nobody); }
Status fail_all(loom_status_t code, const char* fmt, ...) { LOOM_VFAIL(code, Print::Rank0ForAll); }

Status agree_errors(Status mine, const char* step, int comm_size, int comm_rank, void* mpi_comm) {
  MPI_Comm comm = *static_cast<MPI_Comm*>(mpi_comm);
  int bad = mine.is_ok() ? comm_size : comm_rank, first = 0;
  MPI_Allreduce(&bad, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == comm_size) return Status::ok();
  char msg[512];
  std::snprintf(msg, sizeof msg, "%s", g_msg);
  char firsts[512];
  std::memcpy(firsts, msg, sizeof msg);
  int code = (int)mine.code();
  MPI_Bcast(firsts, sizeof firsts, MPI_CHAR, first, comm);
  MPI_Bcast(&code, 1, MPI_INT, first, comm);
  firsts[sizeof firsts - 1] = 0;
  const bool same = !mine.is_ok() && !std::strcmp(msg, firsts);
  int mine_counts[2] = {mine.is_ok() ? 0 : 1, same ? 1 : 0}, counts[2] = {0, 0};
  MPI_Allreduce(mine_counts, counts, 2, MPI_INT, MPI_SUM, comm);
  if (g_log && comm_rank == first) {
    if (counts[0] == 1 && comm_size > 1)
      std::fprintf(stderr, "loom[%d]: error: %s (this rank only; the other %d ranks had no error)\n", g_rank, firsts, comm_size - 1);
    else if (counts[0] == comm_size && counts[1] == comm_size && comm_size > 1)
      std::fprintf(stderr, "loom[%d]: error: %s (the same on all %d ranks)\n", g_rank, firsts, comm_size);
    else if (comm_size > 1)
      std::fprintf(stderr, "loom[%d]: error: %s (on %d of %d ranks, %d of them with this message)\n", g_rank, firsts,
                   counts[0], comm_size, counts[1]);
    else
      std::fprintf(stderr, "loom[%d]: error: %s\n", g_rank, firsts);
  } else if (g_log && !mine.is_ok() && !same) {
    std::fprintf(stderr, "loom[%d]: error: %s\n", g_rank, msg);
  }
  // Nobody returns the error before the message is out: a program that
  // exits on it would have the launcher kill the printing rank first (seen
  // under load: the "(the same on all 3 ranks)" line never came).
  MPI_Barrier(comm);
  if (!mine.is_ok()) return mine;
  return fail_quiet((loom_status_t)code, "%s failed on rank %d: %s", step, first, firsts);
}

Status fail_errno(loom_status_t code, const char* what) {
  int e = errno;
  return fail(code, "%s: %s", what, std::strerror(e));
}

Status fail_mpi(int mpi_err, const char* what) {
  char s[MPI_MAX_ERROR_STRING];
  int n = 0;
  if (MPI_Error_string(mpi_err, s, &n) != MPI_SUCCESS) std::snprintf(s, sizeof s, "MPI error %d", mpi_err);
  return fail(LOOM_ERR_MPI, "%s: %s", what, s);
}

void fatal(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr,
               "loom[%d]: fatal: %s\nloom[%d]: the shared memory may now be inconsistent across ranks, "
               "so the job is aborted.\n",
               g_rank, buf, g_rank);
  std::fflush(stderr);
  usleep(200000);  // the launcher forwards output through a pipe it stops reading at the abort
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (inited && !finalized) MPI_Abort(MPI_COMM_WORLD, 70);
  std::abort();
}

}  // namespace loom
