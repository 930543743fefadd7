// Interception of MPI-IO's data access (intercept.cpp says why and how):
// the memory buffer of a read or write of a file, `count` elements of the
// memory datatype at `buf`, is prepared before the call — writable for a
// read (the call writes it), readable for a write — so that no copy inside
// the MPI library meets a protected page.  Independent I/O through MPICH's
// ROMIO reached Loom's pread/pwrite wrappers (intercept_io.cpp) and worked; the
// collective forms did not: their two-phase exchange copies between the
// ranks' buffers inside MPI, and a page of Loom memory homed on another
// host faulted there (MPICH: "Resource deadlock avoided" and an abort; a
// rank reading its input with MPI_File_read_at_all straight into Loom
// memory across 2 emulated hosts).  So every form that takes a buffer is
// wrapped alike: blocking (independent, collective, shared and ordered),
// nonblocking (remembered until completion, as MPI_Irecv), and the split
// collectives, prepared at their begin (their end must come before the
// rank's next release: a release re-protects the pages MPI may still be
// writing).  Not covered: the large-count `_c` forms.
#include <mpi.h>

#include <atomic>
#include <cstdio>

#include "intercept_wrap.hpp"
#include "loom/loom.h"
#include "runtime.hpp"

using namespace loom::wrap;

namespace {
// Open MPI 5.0's nonblocking MPI-IO, and its split collectives (nonblocking
// inside), crash when two threads progress MPI at once
// (mca_common_ompio_progress; a plain MPI program with a thread calling
// MPI_Iprobe crashed in 7 of 8 runs: docs/results/issue10/ompio_race/), and
// Loom's protocol or progress thread is such a thread.  Said once, on the
// first such call while that thread runs: the call goes on (it may well
// complete), but a crash inside Open MPI then has its cause on stderr.
void warn_thread_unsafe_io(const char* call) {
#ifdef OPEN_MPI
  static std::atomic<bool> said{false};
  if (!loom::rt.active || !loom::rt.tp.progress_running() || said.exchange(true)) return;
  std::fprintf(stderr,
               "loom: rank %d: warning: %s under Open MPI while Loom's %s thread also calls MPI: Open MPI's nonblocking "
               "and split-collective MPI-IO can crash when two threads progress MPI (in mca_common_ompio_progress); "
               "use the blocking form (docs/ARCHITECTURE.md, \"Interception\")\n",
               loom::rt.rank, call, loom::rt.tp.locks_at_home() ? "protocol" : "progress");
#else
  (void)call;
#endif
}
}  // namespace

// Blocking: `in` is InMpi for independent I/O, InBlockingMpi for the
// collective forms (a wait for the other ranks).
#define LOOM_FILE_RW(NAME, BUF, ACCESS, MARK)                                                                  \
  LOOM_API int MPI_File_##NAME(MPI_File fh, BUF buf, int count, MPI_Datatype t, MPI_Status* st) {              \
    prep(buf, 0, count, t, ACCESS, "MPI_File_" #NAME);                                                         \
    MARK in("MPI_File_" #NAME);                                                                                \
    return PMPI_File_##NAME(fh, buf, count, t, st);                                                            \
  }
#define LOOM_FILE_RW_AT(NAME, BUF, ACCESS, MARK)                                                               \
  LOOM_API int MPI_File_##NAME(MPI_File fh, MPI_Offset at, BUF buf, int count, MPI_Datatype t, MPI_Status* st) { \
    prep(buf, 0, count, t, ACCESS, "MPI_File_" #NAME);                                                         \
    MARK in("MPI_File_" #NAME);                                                                                \
    return PMPI_File_##NAME(fh, at, buf, count, t, st);                                                        \
  }
// Nonblocking: remembered until a Wait or Test completes it.
#define LOOM_FILE_I(NAME, BUF, ACCESS)                                                                         \
  LOOM_API int MPI_File_##NAME(MPI_File fh, BUF buf, int count, MPI_Datatype t, MPI_Request* r) {              \
    const bool loom = prep(buf, 0, count, t, ACCESS, "MPI_File_" #NAME);                                       \
    warn_thread_unsafe_io("MPI_File_" #NAME);                                                                  \
    InMpi in("MPI_File_" #NAME);                                                                               \
    const int e = PMPI_File_##NAME(fh, buf, count, t, r);                                                      \
    track(loom, e, r, "MPI_File_" #NAME, buf);                                                                 \
    return e;                                                                                                  \
  }
#define LOOM_FILE_I_AT(NAME, BUF, ACCESS)                                                                      \
  LOOM_API int MPI_File_##NAME(MPI_File fh, MPI_Offset at, BUF buf, int count, MPI_Datatype t, MPI_Request* r) { \
    const bool loom = prep(buf, 0, count, t, ACCESS, "MPI_File_" #NAME);                                       \
    warn_thread_unsafe_io("MPI_File_" #NAME);                                                                  \
    InMpi in("MPI_File_" #NAME);                                                                               \
    const int e = PMPI_File_##NAME(fh, at, buf, count, t, r);                                                  \
    track(loom, e, r, "MPI_File_" #NAME, buf);                                                                 \
    return e;                                                                                                  \
  }
// Split collectives: prepared at the begin; the end only names the call
// (a fault inside it is a release between the two: the message says so).
#define LOOM_FILE_BEGIN(NAME, BUF, ACCESS)                                                                     \
  LOOM_API int MPI_File_##NAME##_begin(MPI_File fh, BUF buf, int count, MPI_Datatype t) {                      \
    prep(buf, 0, count, t, ACCESS, "MPI_File_" #NAME "_begin");                                                \
    warn_thread_unsafe_io("MPI_File_" #NAME "_begin");                                                         \
    InBlockingMpi in("MPI_File_" #NAME "_begin");                                                              \
    return PMPI_File_##NAME##_begin(fh, buf, count, t);                                                        \
  }                                                                                                            \
  LOOM_API int MPI_File_##NAME##_end(MPI_File fh, BUF buf, MPI_Status* st) {                                   \
    InBlockingMpi in("MPI_File_" #NAME "_end");                                                                \
    return PMPI_File_##NAME##_end(fh, buf, st);                                                                \
  }
#define LOOM_FILE_BEGIN_AT(NAME, BUF, ACCESS)                                                                  \
  LOOM_API int MPI_File_##NAME##_begin(MPI_File fh, MPI_Offset at, BUF buf, int count, MPI_Datatype t) {       \
    prep(buf, 0, count, t, ACCESS, "MPI_File_" #NAME "_begin");                                                \
    warn_thread_unsafe_io("MPI_File_" #NAME "_begin");                                                         \
    InBlockingMpi in("MPI_File_" #NAME "_begin");                                                              \
    return PMPI_File_##NAME##_begin(fh, at, buf, count, t);                                                    \
  }                                                                                                            \
  LOOM_API int MPI_File_##NAME##_end(MPI_File fh, BUF buf, MPI_Status* st) {                                   \
    InBlockingMpi in("MPI_File_" #NAME "_end");                                                                \
    return PMPI_File_##NAME##_end(fh, buf, st);                                                                \
  }

#define LOOM_RD void*
#define LOOM_WR const void*

extern "C" {

LOOM_FILE_RW(read, LOOM_RD, LOOM_WRITE, InMpi)
LOOM_FILE_RW(read_shared, LOOM_RD, LOOM_WRITE, InMpi)
LOOM_FILE_RW(read_all, LOOM_RD, LOOM_WRITE, InBlockingMpi)
LOOM_FILE_RW(read_ordered, LOOM_RD, LOOM_WRITE, InBlockingMpi)
LOOM_FILE_RW(write, LOOM_WR, LOOM_READ, InMpi)
LOOM_FILE_RW(write_shared, LOOM_WR, LOOM_READ, InMpi)
LOOM_FILE_RW(write_all, LOOM_WR, LOOM_READ, InBlockingMpi)
LOOM_FILE_RW(write_ordered, LOOM_WR, LOOM_READ, InBlockingMpi)
LOOM_FILE_RW_AT(read_at, LOOM_RD, LOOM_WRITE, InMpi)
LOOM_FILE_RW_AT(read_at_all, LOOM_RD, LOOM_WRITE, InBlockingMpi)
LOOM_FILE_RW_AT(write_at, LOOM_WR, LOOM_READ, InMpi)
LOOM_FILE_RW_AT(write_at_all, LOOM_WR, LOOM_READ, InBlockingMpi)

LOOM_FILE_I(iread, LOOM_RD, LOOM_WRITE)
LOOM_FILE_I(iread_shared, LOOM_RD, LOOM_WRITE)
LOOM_FILE_I(iread_all, LOOM_RD, LOOM_WRITE)
LOOM_FILE_I(iwrite, LOOM_WR, LOOM_READ)
LOOM_FILE_I(iwrite_shared, LOOM_WR, LOOM_READ)
LOOM_FILE_I(iwrite_all, LOOM_WR, LOOM_READ)
LOOM_FILE_I_AT(iread_at, LOOM_RD, LOOM_WRITE)
LOOM_FILE_I_AT(iread_at_all, LOOM_RD, LOOM_WRITE)
LOOM_FILE_I_AT(iwrite_at, LOOM_WR, LOOM_READ)
LOOM_FILE_I_AT(iwrite_at_all, LOOM_WR, LOOM_READ)

LOOM_FILE_BEGIN(read_all, LOOM_RD, LOOM_WRITE)
LOOM_FILE_BEGIN(read_ordered, LOOM_RD, LOOM_WRITE)
LOOM_FILE_BEGIN(write_all, LOOM_WR, LOOM_READ)
LOOM_FILE_BEGIN(write_ordered, LOOM_WR, LOOM_READ)
LOOM_FILE_BEGIN_AT(read_at_all, LOOM_RD, LOOM_WRITE)
LOOM_FILE_BEGIN_AT(write_at_all, LOOM_WR, LOOM_READ)

}  // extern "C"
