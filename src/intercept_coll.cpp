// Interception of the collectives (intercept.cpp says why and how): which
// buffers each collective reads and writes, on which ranks, and how far
// they reach (count x extent, per-rank blocks by displacement in the v
// forms); the nonblocking forms prepare the same and are remembered until
// completion.
#include <mpi.h>

#include "intercept_wrap.hpp"
#include "loom/loom.h"

namespace loom {
namespace wrap {
namespace {

// ---- communicators --------------------------------------------------------

struct Group {
  int size = 0;  // the group the buffers' per-rank blocks address
  int rank = -1;
  bool inter = false;
};

Group group_of(MPI_Comm c) {
  Group g;
  int inter = 0;
  PMPI_Comm_test_inter(c, &inter);
  g.inter = inter;
  if (inter) PMPI_Comm_remote_size(c, &g.size);
  else PMPI_Comm_size(c, &g.size);
  PMPI_Comm_rank(c, &g.rank);
  return g;
}

bool is_root(int root, const Group& g) { return g.inter ? root == MPI_ROOT : g.rank == root; }
bool not_involved(int root, const Group& g) { return g.inter && root == MPI_PROC_NULL; }

// ---- the buffers of each collective (true: some are Loom memory) ----------

// Writable at the root too: MPICH's composed broadcast sends the root's
// data to the node leader and back, into the root's buffer (the same bytes:
// the root's diff is empty).
bool prep_bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c, const char* fn) {
  if (count <= 0 || !may_be_loom(buf)) return false;
  if (not_involved(root, group_of(c))) return false;
  return prep(buf, 0, count, t, LOOM_WRITE, fn);
}

// Allreduce, Scan, Exscan (and Reduce's send side).
bool prep_reduce_all(const void* sbuf, void* rbuf, int count, MPI_Datatype t, const char* fn) {
  bool s = prep(sbuf, 0, count, t, LOOM_READ, fn);
  return prep(rbuf, 0, count, t, LOOM_WRITE, fn) || s;
}

bool prep_reduce(const void* sbuf, void* rbuf, int count, MPI_Datatype t, int root, MPI_Comm c, const char* fn) {
  bool s = prep(sbuf, 0, count, t, LOOM_READ, fn);
  if (count <= 0 || !may_be_loom(rbuf)) return s;
  return (is_root(root, group_of(c)) && prep(rbuf, 0, count, t, LOOM_WRITE, fn)) || s;
}

// `n` blocks of `count` elements, block i at displacement displs[i] (or
// i * count when displs is null).
bool prep_blocks(const void* buf, const int* counts, const int* displs, int count, int n, MPI_Datatype t, int access,
                 const char* fn) {
  if (!may_be_loom(buf)) return false;
  if (!counts) return prep(buf, 0, (MPI_Aint)count * n, t, access, fn);
  bool any = false;
  for (int i = 0; i < n; i++) any = prep(buf, displs[i], counts[i], t, access, fn) || any;
  return any;
}

// Gather(v) and Allgather(v): the root (every rank for allgather) receives
// one block per rank.  rcounts null: rcount each, contiguous.
bool prep_gather(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, const int* rcounts,
                 const int* displs, MPI_Datatype rt_, int root, bool all, MPI_Comm c, const char* fn) {
  bool s = prep(sbuf, 0, scount, st, LOOM_READ, fn);
  if (!may_be_loom(rbuf)) return s;
  Group g = group_of(c);
  if (!all && !is_root(root, g)) return s;
  return prep_blocks(rbuf, rcounts, displs, rcount, g.size, rt_, LOOM_WRITE, fn) || s;
}

bool prep_scatter(const void* sbuf, int scount, const int* scounts, const int* displs, MPI_Datatype st, void* rbuf,
                  int rcount, MPI_Datatype rt_, int root, MPI_Comm c, const char* fn) {
  bool r = prep(rbuf, 0, rcount, rt_, LOOM_WRITE, fn);
  if (!may_be_loom(sbuf)) return r;
  Group g = group_of(c);
  if (!is_root(root, g)) return r;
  return prep_blocks(sbuf, scounts, displs, scount, g.size, st, LOOM_READ, fn) || r;
}

bool prep_alltoall(const void* sbuf, int scount, const int* scounts, const int* sdispls, MPI_Datatype st, void* rbuf,
                   int rcount, const int* rcounts, const int* rdispls, MPI_Datatype rt_, MPI_Comm c, const char* fn) {
  if (!may_be_loom(sbuf) && !may_be_loom(rbuf)) return false;
  Group g = group_of(c);
  bool s = prep_blocks(sbuf, scounts, sdispls, scount, g.size, st, LOOM_READ, fn);
  return prep_blocks(rbuf, rcounts, rdispls, rcount, g.size, rt_, LOOM_WRITE, fn) || s;
}

// Reduce_scatter (rcounts) and Reduce_scatter_block (rcounts null): the
// input is every rank's share; in place, the receive buffer holds it.
bool prep_reduce_scatter(const void* sbuf, void* rbuf, int rcount, const int* rcounts, MPI_Datatype t, MPI_Comm c,
                         const char* fn) {
  if (!may_be_loom(sbuf) && !may_be_loom(rbuf)) return false;
  int n = 0, me = 0;
  PMPI_Comm_size(c, &n);
  PMPI_Comm_rank(c, &me);
  MPI_Aint total = 0;
  for (int i = 0; i < n; i++) total += rcounts ? rcounts[i] : rcount;
  const int mine = rcounts ? rcounts[me] : rcount;
  if (sbuf == MPI_IN_PLACE) return prep(rbuf, 0, total, t, LOOM_WRITE, fn);
  bool s = prep(sbuf, 0, total, t, LOOM_READ, fn);
  return prep(rbuf, 0, mine, t, LOOM_WRITE, fn) || s;
}

}  // namespace
}  // namespace wrap
}  // namespace loom

using namespace loom::wrap;

extern "C" {

// ---- collectives ----------------------------------------------------------

// No buffer: wrapped for the wait alone (InBlockingMpi).
LOOM_API int MPI_Barrier(MPI_Comm c) {
  InBlockingMpi in("MPI_Barrier");
  return PMPI_Barrier(c);
}
LOOM_API int MPI_Bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c) {
  prep_bcast(buf, count, t, root, c, "MPI_Bcast");
  InBlockingMpi in("MPI_Bcast");
  return PMPI_Bcast(buf, count, t, root, c);
}
LOOM_API int MPI_Reduce(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  prep_reduce(sbuf, rbuf, count, t, root, c, "MPI_Reduce");
  InBlockingMpi in("MPI_Reduce");
  return PMPI_Reduce(sbuf, rbuf, count, t, op, root, c);
}
LOOM_API int MPI_Allreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  prep_reduce_all(sbuf, rbuf, count, t, "MPI_Allreduce");
  InBlockingMpi in("MPI_Allreduce");
  return PMPI_Allreduce(sbuf, rbuf, count, t, op, c);
}
LOOM_API int MPI_Scan(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  prep_reduce_all(sbuf, rbuf, count, t, "MPI_Scan");
  InBlockingMpi in("MPI_Scan");
  return PMPI_Scan(sbuf, rbuf, count, t, op, c);
}
LOOM_API int MPI_Exscan(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  prep_reduce_all(sbuf, rbuf, count, t, "MPI_Exscan");
  InBlockingMpi in("MPI_Exscan");
  return PMPI_Exscan(sbuf, rbuf, count, t, op, c);
}
LOOM_API int MPI_Gather(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt_,
                         int root, MPI_Comm c) {
  prep_gather(sbuf, scount, st, rbuf, rcount, nullptr, nullptr, rt_, root, false, c, "MPI_Gather");
  InBlockingMpi in("MPI_Gather");
  return PMPI_Gather(sbuf, scount, st, rbuf, rcount, rt_, root, c);
}
LOOM_API int MPI_Gatherv(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, const int rcounts[],
                          const int displs[], MPI_Datatype rt_, int root, MPI_Comm c) {
  prep_gather(sbuf, scount, st, rbuf, 0, rcounts, displs, rt_, root, false, c, "MPI_Gatherv");
  InBlockingMpi in("MPI_Gatherv");
  return PMPI_Gatherv(sbuf, scount, st, rbuf, rcounts, displs, rt_, root, c);
}
LOOM_API int MPI_Allgather(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt_,
                            MPI_Comm c) {
  prep_gather(sbuf, scount, st, rbuf, rcount, nullptr, nullptr, rt_, 0, true, c, "MPI_Allgather");
  InBlockingMpi in("MPI_Allgather");
  return PMPI_Allgather(sbuf, scount, st, rbuf, rcount, rt_, c);
}
LOOM_API int MPI_Allgatherv(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, const int rcounts[],
                             const int displs[], MPI_Datatype rt_, MPI_Comm c) {
  prep_gather(sbuf, scount, st, rbuf, 0, rcounts, displs, rt_, 0, true, c, "MPI_Allgatherv");
  InBlockingMpi in("MPI_Allgatherv");
  return PMPI_Allgatherv(sbuf, scount, st, rbuf, rcounts, displs, rt_, c);
}
LOOM_API int MPI_Scatter(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt_,
                          int root, MPI_Comm c) {
  prep_scatter(sbuf, scount, nullptr, nullptr, st, rbuf, rcount, rt_, root, c, "MPI_Scatter");
  InBlockingMpi in("MPI_Scatter");
  return PMPI_Scatter(sbuf, scount, st, rbuf, rcount, rt_, root, c);
}
LOOM_API int MPI_Scatterv(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype st, void* rbuf,
                           int rcount, MPI_Datatype rt_, int root, MPI_Comm c) {
  prep_scatter(sbuf, 0, scounts, displs, st, rbuf, rcount, rt_, root, c, "MPI_Scatterv");
  InBlockingMpi in("MPI_Scatterv");
  return PMPI_Scatterv(sbuf, scounts, displs, st, rbuf, rcount, rt_, root, c);
}
LOOM_API int MPI_Alltoall(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt_,
                           MPI_Comm c) {
  prep_alltoall(sbuf, scount, nullptr, nullptr, st, rbuf, rcount, nullptr, nullptr, rt_, c, "MPI_Alltoall");
  InBlockingMpi in("MPI_Alltoall");
  return PMPI_Alltoall(sbuf, scount, st, rbuf, rcount, rt_, c);
}
LOOM_API int MPI_Alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype st, void* rbuf,
                            const int rcounts[], const int rdispls[], MPI_Datatype rt_, MPI_Comm c) {
  prep_alltoall(sbuf, 0, scounts, sdispls, st, rbuf, 0, rcounts, rdispls, rt_, c, "MPI_Alltoallv");
  InBlockingMpi in("MPI_Alltoallv");
  return PMPI_Alltoallv(sbuf, scounts, sdispls, st, rbuf, rcounts, rdispls, rt_, c);
}
LOOM_API int MPI_Reduce_scatter(const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype t, MPI_Op op,
                                 MPI_Comm c) {
  prep_reduce_scatter(sbuf, rbuf, 0, rcounts, t, c, "MPI_Reduce_scatter");
  InBlockingMpi in("MPI_Reduce_scatter");
  return PMPI_Reduce_scatter(sbuf, rbuf, rcounts, t, op, c);
}
LOOM_API int MPI_Reduce_scatter_block(const void* sbuf, void* rbuf, int rcount, MPI_Datatype t, MPI_Op op,
                                       MPI_Comm c) {
  prep_reduce_scatter(sbuf, rbuf, rcount, nullptr, t, c, "MPI_Reduce_scatter_block");
  InBlockingMpi in("MPI_Reduce_scatter_block");
  return PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, t, op, c);
}

// Nonblocking collectives: the same buffers, remembered until completion.
LOOM_API int MPI_Ibcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c, MPI_Request* r) {
  bool loom = prep_bcast(buf, count, t, root, c, "MPI_Ibcast");
  InMpi in("MPI_Ibcast");
  int e = PMPI_Ibcast(buf, count, t, root, c, r);
  track(loom, e, r, "MPI_Ibcast", buf);
  return e;
}
LOOM_API int MPI_Ireduce(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,
                          MPI_Request* r) {
  bool loom = prep_reduce(sbuf, rbuf, count, t, root, c, "MPI_Ireduce");
  InMpi in("MPI_Ireduce");
  int e = PMPI_Ireduce(sbuf, rbuf, count, t, op, root, c, r);
  track(loom, e, r, "MPI_Ireduce", rbuf);
  return e;
}
LOOM_API int MPI_Iallreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                             MPI_Request* r) {
  bool loom = prep_reduce_all(sbuf, rbuf, count, t, "MPI_Iallreduce");
  InMpi in("MPI_Iallreduce");
  int e = PMPI_Iallreduce(sbuf, rbuf, count, t, op, c, r);
  track(loom, e, r, "MPI_Iallreduce", rbuf);
  return e;
}
LOOM_API int MPI_Iscan(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                        MPI_Request* r) {
  bool loom = prep_reduce_all(sbuf, rbuf, count, t, "MPI_Iscan");
  InMpi in("MPI_Iscan");
  int e = PMPI_Iscan(sbuf, rbuf, count, t, op, c, r);
  track(loom, e, r, "MPI_Iscan", rbuf);
  return e;
}
LOOM_API int MPI_Iexscan(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                          MPI_Request* r) {
  bool loom = prep_reduce_all(sbuf, rbuf, count, t, "MPI_Iexscan");
  InMpi in("MPI_Iexscan");
  int e = PMPI_Iexscan(sbuf, rbuf, count, t, op, c, r);
  track(loom, e, r, "MPI_Iexscan", rbuf);
  return e;
}
LOOM_API int MPI_Igather(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt_,
                          int root, MPI_Comm c, MPI_Request* r) {
  bool loom = prep_gather(sbuf, scount, st, rbuf, rcount, nullptr, nullptr, rt_, root, false, c, "MPI_Igather");
  InMpi in("MPI_Igather");
  int e = PMPI_Igather(sbuf, scount, st, rbuf, rcount, rt_, root, c, r);
  track(loom, e, r, "MPI_Igather", rbuf);
  return e;
}
LOOM_API int MPI_Igatherv(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, const int rcounts[],
                           const int displs[], MPI_Datatype rt_, int root, MPI_Comm c, MPI_Request* r) {
  bool loom = prep_gather(sbuf, scount, st, rbuf, 0, rcounts, displs, rt_, root, false, c, "MPI_Igatherv");
  InMpi in("MPI_Igatherv");
  int e = PMPI_Igatherv(sbuf, scount, st, rbuf, rcounts, displs, rt_, root, c, r);
  track(loom, e, r, "MPI_Igatherv", rbuf);
  return e;
}
LOOM_API int MPI_Iallgather(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt_,
                             MPI_Comm c, MPI_Request* r) {
  bool loom = prep_gather(sbuf, scount, st, rbuf, rcount, nullptr, nullptr, rt_, 0, true, c, "MPI_Iallgather");
  InMpi in("MPI_Iallgather");
  int e = PMPI_Iallgather(sbuf, scount, st, rbuf, rcount, rt_, c, r);
  track(loom, e, r, "MPI_Iallgather", rbuf);
  return e;
}
LOOM_API int MPI_Iallgatherv(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, const int rcounts[],
                              const int displs[], MPI_Datatype rt_, MPI_Comm c, MPI_Request* r) {
  bool loom = prep_gather(sbuf, scount, st, rbuf, 0, rcounts, displs, rt_, 0, true, c, "MPI_Iallgatherv");
  InMpi in("MPI_Iallgatherv");
  int e = PMPI_Iallgatherv(sbuf, scount, st, rbuf, rcounts, displs, rt_, c, r);
  track(loom, e, r, "MPI_Iallgatherv", rbuf);
  return e;
}
LOOM_API int MPI_Iscatter(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt_,
                           int root, MPI_Comm c, MPI_Request* r) {
  bool loom = prep_scatter(sbuf, scount, nullptr, nullptr, st, rbuf, rcount, rt_, root, c, "MPI_Iscatter");
  InMpi in("MPI_Iscatter");
  int e = PMPI_Iscatter(sbuf, scount, st, rbuf, rcount, rt_, root, c, r);
  track(loom, e, r, "MPI_Iscatter", rbuf);
  return e;
}
LOOM_API int MPI_Iscatterv(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype st, void* rbuf,
                            int rcount, MPI_Datatype rt_, int root, MPI_Comm c, MPI_Request* r) {
  bool loom = prep_scatter(sbuf, 0, scounts, displs, st, rbuf, rcount, rt_, root, c, "MPI_Iscatterv");
  InMpi in("MPI_Iscatterv");
  int e = PMPI_Iscatterv(sbuf, scounts, displs, st, rbuf, rcount, rt_, root, c, r);
  track(loom, e, r, "MPI_Iscatterv", rbuf);
  return e;
}
LOOM_API int MPI_Ialltoall(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt_,
                            MPI_Comm c, MPI_Request* r) {
  bool loom =
      prep_alltoall(sbuf, scount, nullptr, nullptr, st, rbuf, rcount, nullptr, nullptr, rt_, c, "MPI_Ialltoall");
  InMpi in("MPI_Ialltoall");
  int e = PMPI_Ialltoall(sbuf, scount, st, rbuf, rcount, rt_, c, r);
  track(loom, e, r, "MPI_Ialltoall", rbuf);
  return e;
}
LOOM_API int MPI_Ialltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype st, void* rbuf,
                             const int rcounts[], const int rdispls[], MPI_Datatype rt_, MPI_Comm c, MPI_Request* r) {
  bool loom = prep_alltoall(sbuf, 0, scounts, sdispls, st, rbuf, 0, rcounts, rdispls, rt_, c, "MPI_Ialltoallv");
  InMpi in("MPI_Ialltoallv");
  int e = PMPI_Ialltoallv(sbuf, scounts, sdispls, st, rbuf, rcounts, rdispls, rt_, c, r);
  track(loom, e, r, "MPI_Ialltoallv", rbuf);
  return e;
}
LOOM_API int MPI_Ireduce_scatter(const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype t, MPI_Op op,
                                  MPI_Comm c, MPI_Request* r) {
  bool loom = prep_reduce_scatter(sbuf, rbuf, 0, rcounts, t, c, "MPI_Ireduce_scatter");
  InMpi in("MPI_Ireduce_scatter");
  int e = PMPI_Ireduce_scatter(sbuf, rbuf, rcounts, t, op, c, r);
  track(loom, e, r, "MPI_Ireduce_scatter", rbuf);
  return e;
}
LOOM_API int MPI_Ireduce_scatter_block(const void* sbuf, void* rbuf, int rcount, MPI_Datatype t, MPI_Op op,
                                        MPI_Comm c, MPI_Request* r) {
  bool loom = prep_reduce_scatter(sbuf, rbuf, rcount, nullptr, t, c, "MPI_Ireduce_scatter_block");
  InMpi in("MPI_Ireduce_scatter_block");
  int e = PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, t, op, c, r);
  track(loom, e, r, "MPI_Ireduce_scatter_block", rbuf);
  return e;
}

}  // extern "C"
