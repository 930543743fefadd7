// Interception of the calls that hand user buffers to MPI or to the kernel
// (intercept.cpp): Loom memory passed to them is prepared first, as
// loom_prepare would, and a fault that still arrives inside MPI ends the job
// with a message instead of re-entering MPI.
//
// Thread safety: prepare_range and everything that changes page states run
// on application threads, under the rank lock (threads.hpp);
// intercept_mpi_call reads a thread-local marker and is safe in the signal
// handler.
#pragma once
#include <cstddef>
#include <cstdint>

#include "status.hpp"

namespace loom {

// loom_prepare's work for [ptr, ptr+len) (len > 0): every page must be in a
// live block (else an error naming `fn`, nothing changed); then each page is
// made readable (LOOM_READ) or writable (LOOM_WRITE).  Defined in api.cpp.
Status prepare_range(const void* ptr, size_t len, int access, const char* fn);

// The global range as the wrappers see it, from any thread (MPI's and
// UCX's threads call read() and MPI too): published by loom_init once Loom
// is active, withdrawn by loom_finalize before it stops.  Atomic: the
// wrappers never read the runtime's fields while loom_init writes them.
void intercept_publish_range(const uint8_t* base, uint64_t size);
// [p, p+1) lies in the published range; and the range cut to it.
bool intercept_in_range(const void* p);
bool intercept_clip(uintptr_t* lo, uintptr_t* hi);

// The MPI call this thread is inside, through one of Loom's wrappers, or
// nullptr.
const char* intercept_mpi_call();
// A fault on page `page` that may need the transport arrived inside the MPI
// call `call`: serving it would re-enter MPI.  Says which call and what to
// do on stderr, then aborts the process (the launcher ends the job).
[[noreturn]] void intercept_fault_in_mpi(const char* call, uint64_t page, int is_write);
// At every release and acquire: nonblocking MPI operations posted on Loom
// memory must be complete (a release re-protects written pages, an acquire
// drops copies); one still in flight ends the job with a message naming it.
void intercept_check_pending();

}  // namespace loom
