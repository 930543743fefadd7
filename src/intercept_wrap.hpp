// What the MPI wrapper files (intercept.cpp, intercept_coll.cpp,
// intercept_file.cpp) share:
// the in-call marker, the preparation of a buffer, the bookkeeping of
// nonblocking operations.  intercept.cpp defines them.
//
// Thread safety: prep changes page states, so only application threads
// may call it with Loom memory, and it takes the rank lock to do so
// (prepare_range; Loom's own threads never hand MPI an
// address of the global range, so for them it is one range check); track
// is called by the thread that posted the operation.
#pragma once
#include <mpi.h>

#include <optional>

#include "idle_yield.hpp"

namespace loom::wrap {

// The MPI call this thread is inside (initial-exec: read in the signal
// handler without a call into the dynamic linker).
extern thread_local const char* t_call __attribute__((tls_model("initial-exec")));

// Names the call in t_call for the lifetime of the object (nested calls,
// Loom's own MPI calls among them, restore the outer name).
class InMpi {
 public:
  explicit InMpi(const char* name) : prev_(t_call) { t_call = name; }
  ~InMpi() { t_call = prev_; }
  InMpi(const InMpi&) = delete;
  InMpi& operator=(const InMpi&) = delete;

 private:
  const char* prev_;
};

// The marker of a call that may wait (a blocking send or receive, a wait,
// a collective), inside which Open MPI yields when idle while a thread of
// Loom's needs the cores (idle_yield.hpp).  Not the one-sided
// synchronizations: Loom's rma path makes them itself, and its waits are
// measured as they are.
// A call that Loom `serves` instead (it runs as its nonblocking form polled
// by Loom: intercept.cpp, serve_until) paces its own polls, and Open MPI's
// yield stays as it was: each of the poll's two tests, the program's and
// the request receive's, would yield inside the library (the program's
// 8-byte ping-pong cost 1.28x its PMPI one across 2 emulated hosts, 1.13x
// with no serving).
class InBlockingMpi {
 public:
  explicit InBlockingMpi(const char* name, bool serves = false) : in_(name) {
    if (!serves) yield_.emplace();
  }

 private:
  InMpi in_;
  std::optional<YieldWhileBlocked> yield_;
};

// The one check on every call: can `buf` (with its datatype) address Loom
// memory?  MPI_BOTTOM means the datatype holds absolute addresses;
// MPI_IN_PLACE never does.
bool may_be_loom(const void* buf);

// Make the bytes of `count` elements of `type` at element `disp` from `buf`
// valid for `access` (LOOM_READ or LOOM_WRITE).  True if any of them is
// Loom memory.  A range not wholly in live blocks is logged (naming `fn`)
// and left to MPI, which then meets the unallocated page as any program
// would.
bool prep(const void* buf, MPI_Aint disp, MPI_Aint count, MPI_Datatype type, int access, const char* fn);

// Remember the nonblocking operation just posted (`loom`: its buffers are
// Loom memory; `err`: what posting returned) until a Wait or Test
// completes it.
void track(bool loom, int err, MPI_Request* req, const char* call, const void* buf);

}  // namespace loom::wrap
