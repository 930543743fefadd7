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
int g_rank = -1;

void record(const char* text) {
  std::snprintf(g_msg, sizeof g_msg, "%s", text);
  if (g_log) std::fprintf(stderr, "loom[%d]: error: %s\n", g_rank, text);
}
}  // namespace

void set_log_errors(bool on) { g_log = on; }
void set_log_rank(int rank) { g_rank = rank; }
const char* last_error() { return g_msg; }

Status fail(loom_status_t code, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  record(buf);
  return Status(code);
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
