// Open MPI's yield when idle, inside the program's blocking MPI calls only
// (idle_yield.cpp).
//
// Open MPI waits in a blocking call (MPI_Recv, MPI_Barrier, MPI_Wait, a
// collective) by polling without a break, unless it judged its node
// oversubscribed at MPI_Init, and a node whose ranks each have a core is
// not.  Loom adds a thread to each rank that talks to other hosts (the
// async protocol thread, the rma progress thread), and a rank whose program
// waits in such a call keeps that thread off a core until the scheduler
// preempts the poller.  MPICH's blocking calls leave it room.  So while
// such a thread runs (IdleYield armed), Open MPI yields when idle inside
// the program's blocking calls (YieldWhileBlocked, in the MPI wrappers of
// intercept.cpp), as its MCA setting mpi_yield_when_idle=1 would ask for
// the whole run, but never inside Loom's own polls (MPI_Test in the
// protocol thread, a fetch's wait), whose ways of giving the core away are
// measured apart (transport/async.cpp).  The rma path's blocking one-sided
// calls (an atomic and its flush, a release's flush) have no way of their
// own and open the guard too: with 2 emulated hosts x 2 ranks on 2 cores,
// Open MPI's polls there kept each target from serving them, and mr_locks
// under LOOM_TRANSPORT=rma took over 60-100 s instead of 5-10
// (docs/results/issue10/openmpi_poke/).
//
// Nothing changes where that setting was given (OMPI_MCA_mpi_yield_when_idle,
// which mpiexec --mca sets too), where Open MPI yields already, or under
// another MPI (the switch is found by name: libopen-pal exports it, and
// MPI_T offers the setting read-only).
// Thread safety: any thread; the guards nest and overlap.
#pragma once

namespace loom {

class IdleYield {  // held by each thread's owner while the thread runs
 public:
  void start();
  void stop();
  bool armed() const { return armed_; }

 private:
  bool armed_ = false;
};

// Scope guard of one of the program's blocking MPI calls, or of the rma
// path's on an application thread: Open MPI yields when idle while any is
// open and some IdleYield is armed.  Loom's own threads are left out (their
// polls have their own rules).
class YieldWhileBlocked {
 public:
  YieldWhileBlocked();
  ~YieldWhileBlocked();
  YieldWhileBlocked(const YieldWhileBlocked&) = delete;
  YieldWhileBlocked& operator=(const YieldWhileBlocked&) = delete;

 private:
  bool on_;
};

}  // namespace loom
