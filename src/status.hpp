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

const char* last_error();
void set_log_errors(bool on);
void set_log_rank(int rank);

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
