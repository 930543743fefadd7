// Errors inside Loom.  Every failure is detected once, recorded with its
// cause (errno text after a system call, the MPI error string after MPI) in
// a thread-local message that loom_last_error() returns, logged once to
// stderr when LOOM_LOG_ERRORS is on, and carried up as a Status value.  No
// exception crosses the C API, and the library never calls exit(): an error
// that leaves the job inconsistent (a failed MPI call halfway through a
// protocol step) goes through fatal(), which aborts the whole job with a
// message saying what happened.
//
// Thread safety: the message buffer is thread-local; fatal() may be called
// from any thread.
#pragma once
#include "loom/loom.h"

namespace loom {

class [[nodiscard]] Status {
 public:
  constexpr Status() : code_(LOOM_OK) {}
  constexpr explicit Status(loom_status_t c) : code_(c) {}
  static constexpr Status ok() { return Status(); }
  constexpr bool is_ok() const { return code_ == LOOM_OK; }
  constexpr loom_status_t code() const { return code_; }

 private:
  loom_status_t code_;
};

// Record a failure with a printf-style message and return it as a Status.
Status fail(loom_status_t code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// Same, appending strerror(errno) for a failed system call named `what`.
Status fail_errno(loom_status_t code, const char* what);
// Same, appending the MPI error string of `mpi_err` for the call `what`.
Status fail_mpi(int mpi_err, const char* what);
// Abort the job: prints "loom[rank]: fatal: ..." and calls MPI_Abort.
[[noreturn]] void fatal(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Collective errors, which several ranks reach at once, are printed once
// (a job of 65 ranks printing 65 identical lines hides the message):
//   - fail_all: an error every rank reaches identically (arguments agreed
//     on); rank 0 prints it, saying all ranks agree;
//   - fail_quiet: recorded for loom_last_error, printed by no one (another
//     rank prints the cause);
//   - DeferErrors: while one lives on this thread, fail() records without
//     printing; agree_errors then prints each distinct message once.
Status fail_all(loom_status_t code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
Status fail_quiet(loom_status_t code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
class DeferErrors {
 public:
  DeferErrors();
  ~DeferErrors();
  DeferErrors(const DeferErrors&) = delete;
  DeferErrors& operator=(const DeferErrors&) = delete;

 private:
  bool was_;
};
// Collective over `comm`: combines each rank's outcome of one step.  The
// lowest failing rank prints its message once, with how many ranks failed
// and how many of them with the same message; a rank whose message differs
// prints its own.  Ranks that succeeded return the first failure's code
// with "<step> failed on rank R: <message>" as their message (not printed).
Status agree_errors(Status mine, const char* step, int comm_size, int comm_rank, void* mpi_comm);

const char* last_error();
void set_log_errors(bool on);
void set_log_rank(int rank, int nranks = 0);

}  // namespace loom

#define LOOM_TRY(expr)                    \
  do {                                    \
    ::loom::Status s_ = (expr);           \
    if (!s_.is_ok()) return s_;           \
  } while (0)

// Tiered asserts: LOOM_ASSERT is always on (cheap invariants whose failure
// means memory would be corrupted); LOOM_DEBUG_ASSERT only in debug builds
// (LOOM_DEBUG >= 1); LOOM_EXPENSIVE_ASSERT in the debug-full build (>= 2).
#define LOOM_ASSERT(c) \
  do { if (!(c)) ::loom::fatal("assertion failed: %s (%s:%d)", #c, __FILE__, __LINE__); } while (0)
#ifndef LOOM_DEBUG
#define LOOM_DEBUG 0
#endif
#if LOOM_DEBUG >= 1
#define LOOM_DEBUG_ASSERT(c) LOOM_ASSERT(c)
#else
#define LOOM_DEBUG_ASSERT(c) ((void)0)
#endif
#if LOOM_DEBUG >= 2
#define LOOM_EXPENSIVE_ASSERT(c) LOOM_ASSERT(c)
#else
#define LOOM_EXPENSIVE_ASSERT(c) ((void)0)
#endif
