// Interception, MPI half: Loom memory handed to MPI is prepared first.
//
// Why.  An MPI call does not take Loom's fault path the way a load does.
// Between ranks of a host MPICH copies messages above ~32 KiB with
// process_vm_readv, which answers EFAULT for a protected page; and a copy
// inside MPI that faults runs Loom's handler while MPI holds its lock, so a
// page whose home is on another host would be fetched by MPI (an MPI_Get,
// or a request to the home's protocol thread) from inside MPI: MPICH aborts
// with "Resource deadlock avoided", another MPI would hang.  So the MPI
// calls that take buffers are wrapped through the profiling interface: a
// buffer in Loom memory is made readable (the call reads it) or writable
// (the call writes it) first, on the calling thread and outside MPI,
// exactly as loom_prepare does, and then PMPI_X runs on valid pages.
// Outside Loom memory a wrapper costs one range check and a thread-local
// store.  intercept_io.cpp does the same for the common I/O calls.
//
// Loom's own MPI calls reach these wrappers too: the library's references
// to MPI_Send bind, by ELF interposition, to the first definition in the
// global scope, which is libloom's own.  That is kept on purpose, rather
// than routing every internal call to PMPI_ by hand (or linking with
// -Bsymbolic, which would bind them to the wrappers all the same): Loom
// never hands MPI an address of the global range — fetches land in the
// self view, diffs are read from it, windows cover the memfd's other
// mapping or memory MPI allocated, requests live in private buffers — so
// an internal call, from the application thread or from a protocol or
// progress thread, passes the range check and goes straight on to PMPI_X.
// Only the application thread ever hands Loom memory to MPI (Loom's rule),
// so only it changes page protections here.
//
// Nonblocking operations: the buffer is prepared when the operation is
// posted, and the request is remembered until a Wait or Test completes it.
// A release (barrier, lock, unlock, allocation, free) re-protects the pages
// a rank wrote and an acquire drops copies, under MPI's feet if the
// operation is still in flight; so every release first checks the pending
// operations (MPI_Request_get_status, which completes without freeing) and
// ends the job with a message naming one still in flight.
//
// A fault that still arrives inside a wrapped call (memory the wrapper could
// not prepare, a nonblocking operation's pages re-protected, a user-defined
// reduction reading Loom memory) finds the call's name in a thread-local
// marker: proto_fault then ends the process with a message naming the call
// and the fix instead of re-entering MPI (unless every peer is mapped, when
// the fault needs no MPI and is served).  Calls not wrapped here (listed in
// docs/ARCHITECTURE.md, "Interception") still need loom_prepare.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "intercept.hpp"
#include "runtime.hpp"

namespace loom {
namespace {

// The MPI call this thread is inside (initial-exec: read in the signal
// handler without a call into the dynamic linker).
thread_local const char* t_call __attribute__((tls_model("initial-exec"))) = nullptr;

class InMpi {
 public:
  explicit InMpi(const char* name) : prev_(t_call) { t_call = name; }
  ~InMpi() { t_call = prev_; }
  InMpi(const InMpi&) = delete;
  InMpi& operator=(const InMpi&) = delete;

 private:
  const char* prev_;
};

bool in_loom(const void* p) {
  const uint8_t* a = static_cast<const uint8_t*>(p);
  return rt.active && a >= rt.base && a < rt.base + rt.size;
}

// The one check on every call: can `buf` (with its datatype) address Loom
// memory?  MPI_BOTTOM means the datatype holds absolute addresses.
bool may_be_loom(const void* buf) {
  if (buf == MPI_IN_PLACE) return false;
  return buf == MPI_BOTTOM ? rt.active : in_loom(buf);
}

// Make the bytes of `count` elements of `type` at element `disp` from `buf`
// valid for `access` (LOOM_READ or LOOM_WRITE).  True if any of them is
// Loom memory.  A range not wholly in live blocks is logged (naming `fn`)
// and left to MPI, which then meets the unallocated page as any program
// would.
bool prep(const void* buf, MPI_Aint disp, MPI_Aint count, MPI_Datatype type, int access, const char* fn) {
  if (count <= 0 || type == MPI_DATATYPE_NULL || !may_be_loom(buf)) return false;
  MPI_Aint lb = 0, ext = 0, tlb = 0, text = 0;
  if (PMPI_Type_get_extent(type, &lb, &ext) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &tlb, &text) != MPI_SUCCESS || text <= 0)
    return false;
  const intptr_t start = (intptr_t)buf + disp * ext + tlb, stride = (count - 1) * ext;
  intptr_t lo = start + std::min<intptr_t>(0, stride), hi = start + std::max<intptr_t>(0, stride) + text;
  lo = std::max(lo, (intptr_t)rt.base);
  hi = std::min(hi, (intptr_t)(rt.base + rt.size));
  if (lo >= hi) return false;
  Status s = prepare_range((const void*)lo, (size_t)(hi - lo), access, fn);
  (void)s;  // logged where detected
  return true;
}

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

// ---- nonblocking operations on Loom memory --------------------------------

struct Pending {
  MPI_Request req;
  const char* call;
  const void* buf;
};
std::mutex g_mu;
std::vector<Pending> g_pending;  // under g_mu
std::atomic<int> g_npending{0};
// This thread posted operations on Loom memory (the application thread);
// other threads' completions are never ours and skip the bookkeeping.
thread_local bool t_posts = false;

void track(bool loom, int err, MPI_Request* req, const char* call, const void* buf) {
  if (!loom || err != MPI_SUCCESS || *req == MPI_REQUEST_NULL) return;
  std::lock_guard<std::mutex> g(g_mu);
  g_pending.push_back({*req, call, buf});
  g_npending.store((int)g_pending.size(), std::memory_order_relaxed);
  t_posts = true;
}

bool watching() { return t_posts && g_npending.load(std::memory_order_relaxed) > 0; }

// Requests that were active before a Wait/Test/Request_free and are null
// after it have completed (or were freed): forget them.
void forget_completed(const MPI_Request* before, const MPI_Request* after, int n) {
  std::lock_guard<std::mutex> g(g_mu);
  for (int i = 0; i < n; i++) {
    if (before[i] == MPI_REQUEST_NULL || after[i] != MPI_REQUEST_NULL) continue;
    for (size_t k = 0; k < g_pending.size(); k++)
      if (g_pending[k].req == before[i]) {
        g_pending[k] = g_pending.back();
        g_pending.pop_back();
        break;
      }
  }
  g_npending.store((int)g_pending.size(), std::memory_order_relaxed);
}

// Run a completion call on `n` requests, forgetting those it completed.
template <class F>
int completing(MPI_Request* reqs, int n, F&& call) {
  if (!watching() || n <= 0) return call();
  std::vector<MPI_Request> before(reqs, reqs + n);
  int err = call();
  forget_completed(before.data(), reqs, n);
  return err;
}

}  // namespace

const char* intercept_mpi_call() { return t_call; }

void intercept_fault_in_mpi(const char* call, uint64_t page, int is_write) {
  char msg[1024];
  int n = std::snprintf(
      msg, sizeof msg,
      "loom: rank %d: %s fault on Loom memory at %p (page %llu) inside %s.  Serving it may need MPI, which %s "
      "is using, so the job is aborted instead of re-entering MPI.  Loom prepares the buffers of the MPI calls it "
      "intercepts; this access was to memory it could not prepare (a nonblocking operation still in flight at a "
      "Loom synchronization, a user-defined operation or datatype reading Loom memory, or a call Loom does not "
      "intercept, see docs/ARCHITECTURE.md \"Interception\").  Fix: call loom_prepare(ptr, len, LOOM_READ or "
      "LOOM_WRITE) on that memory before %s (and complete nonblocking operations before the next Loom barrier, "
      "lock or unlock), or report %s to the Loom developers.\n",
      rt.rank, is_write > 0 ? "write" : "read", (void*)(rt.base + page * kPage), (unsigned long long)page, call, call,
      call, call);
  if (n > 0) (void)!::write(2, msg, (size_t)std::min(n, (int)sizeof msg - 1));
  std::abort();
}

void intercept_check_pending() {
  if (g_npending.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard<std::mutex> g(g_mu);
  for (const Pending& p : g_pending) {
    int done = 0;
    PMPI_Request_get_status(p.req, &done, MPI_STATUS_IGNORE);
    if (!done)
      fatal("%s on Loom memory at %p was posted and is still in flight at a Loom synchronization (barrier, lock, "
            "unlock, allocation, free or atomic), which would re-protect or drop the pages MPI is using.  Complete "
            "it (MPI_Wait or MPI_Test) before the next Loom synchronization",
            p.call, p.buf);
  }
}

}  // namespace loom

using namespace loom;

// The wrappers: C linkage, exported (LOOM_API; the library's default
// visibility is hidden), the standard's prototypes as MPICH declares them.
extern "C" {

// ---- point to point -------------------------------------------------------

LOOM_API int MPI_Send(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  prep(buf, 0, count, t, LOOM_READ, "MPI_Send");
  InMpi in("MPI_Send");
  return PMPI_Send(buf, count, t, dest, tag, c);
}
LOOM_API int MPI_Ssend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  prep(buf, 0, count, t, LOOM_READ, "MPI_Ssend");
  InMpi in("MPI_Ssend");
  return PMPI_Ssend(buf, count, t, dest, tag, c);
}
LOOM_API int MPI_Rsend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  prep(buf, 0, count, t, LOOM_READ, "MPI_Rsend");
  InMpi in("MPI_Rsend");
  return PMPI_Rsend(buf, count, t, dest, tag, c);
}
LOOM_API int MPI_Bsend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  prep(buf, 0, count, t, LOOM_READ, "MPI_Bsend");
  InMpi in("MPI_Bsend");
  return PMPI_Bsend(buf, count, t, dest, tag, c);
}
LOOM_API int MPI_Recv(void* buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status* st) {
  prep(buf, 0, count, t, LOOM_WRITE, "MPI_Recv");
  InMpi in("MPI_Recv");
  return PMPI_Recv(buf, count, t, src, tag, c, st);
}
LOOM_API int MPI_Mrecv(void* buf, int count, MPI_Datatype t, MPI_Message* m, MPI_Status* st) {
  prep(buf, 0, count, t, LOOM_WRITE, "MPI_Mrecv");
  InMpi in("MPI_Mrecv");
  return PMPI_Mrecv(buf, count, t, m, st);
}
LOOM_API int MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype st, int dest, int stag, void* rbuf, int rcount,
                           MPI_Datatype rt_, int src, int rtag, MPI_Comm c, MPI_Status* status) {
  prep(sbuf, 0, scount, st, LOOM_READ, "MPI_Sendrecv");
  prep(rbuf, 0, rcount, rt_, LOOM_WRITE, "MPI_Sendrecv");
  InMpi in("MPI_Sendrecv");
  return PMPI_Sendrecv(sbuf, scount, st, dest, stag, rbuf, rcount, rt_, src, rtag, c, status);
}
LOOM_API int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype t, int dest, int stag, int src, int rtag,
                                   MPI_Comm c, MPI_Status* st) {
  prep(buf, 0, count, t, LOOM_WRITE, "MPI_Sendrecv_replace");
  InMpi in("MPI_Sendrecv_replace");
  return PMPI_Sendrecv_replace(buf, count, t, dest, stag, src, rtag, c, st);
}

LOOM_API int MPI_Isend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  bool loom = prep(buf, 0, count, t, LOOM_READ, "MPI_Isend");
  InMpi in("MPI_Isend");
  int e = PMPI_Isend(buf, count, t, dest, tag, c, r);
  track(loom, e, r, "MPI_Isend", buf);
  return e;
}
LOOM_API int MPI_Issend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  bool loom = prep(buf, 0, count, t, LOOM_READ, "MPI_Issend");
  InMpi in("MPI_Issend");
  int e = PMPI_Issend(buf, count, t, dest, tag, c, r);
  track(loom, e, r, "MPI_Issend", buf);
  return e;
}
LOOM_API int MPI_Irsend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  bool loom = prep(buf, 0, count, t, LOOM_READ, "MPI_Irsend");
  InMpi in("MPI_Irsend");
  int e = PMPI_Irsend(buf, count, t, dest, tag, c, r);
  track(loom, e, r, "MPI_Irsend", buf);
  return e;
}
LOOM_API int MPI_Ibsend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  bool loom = prep(buf, 0, count, t, LOOM_READ, "MPI_Ibsend");
  InMpi in("MPI_Ibsend");
  int e = PMPI_Ibsend(buf, count, t, dest, tag, c, r);
  track(loom, e, r, "MPI_Ibsend", buf);
  return e;
}
LOOM_API int MPI_Irecv(void* buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request* r) {
  bool loom = prep(buf, 0, count, t, LOOM_WRITE, "MPI_Irecv");
  InMpi in("MPI_Irecv");
  int e = PMPI_Irecv(buf, count, t, src, tag, c, r);
  track(loom, e, r, "MPI_Irecv", buf);
  return e;
}
LOOM_API int MPI_Imrecv(void* buf, int count, MPI_Datatype t, MPI_Message* m, MPI_Request* r) {
  bool loom = prep(buf, 0, count, t, LOOM_WRITE, "MPI_Imrecv");
  InMpi in("MPI_Imrecv");
  int e = PMPI_Imrecv(buf, count, t, m, r);
  track(loom, e, r, "MPI_Imrecv", buf);
  return e;
}

// ---- collectives ----------------------------------------------------------

LOOM_API int MPI_Bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c) {
  prep_bcast(buf, count, t, root, c, "MPI_Bcast");
  InMpi in("MPI_Bcast");
  return PMPI_Bcast(buf, count, t, root, c);
}
LOOM_API int MPI_Reduce(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  prep_reduce(sbuf, rbuf, count, t, root, c, "MPI_Reduce");
  InMpi in("MPI_Reduce");
  return PMPI_Reduce(sbuf, rbuf, count, t, op, root, c);
}
LOOM_API int MPI_Allreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  prep_reduce_all(sbuf, rbuf, count, t, "MPI_Allreduce");
  InMpi in("MPI_Allreduce");
  return PMPI_Allreduce(sbuf, rbuf, count, t, op, c);
}
LOOM_API int MPI_Scan(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  prep_reduce_all(sbuf, rbuf, count, t, "MPI_Scan");
  InMpi in("MPI_Scan");
  return PMPI_Scan(sbuf, rbuf, count, t, op, c);
}
LOOM_API int MPI_Exscan(const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  prep_reduce_all(sbuf, rbuf, count, t, "MPI_Exscan");
  InMpi in("MPI_Exscan");
  return PMPI_Exscan(sbuf, rbuf, count, t, op, c);
}
LOOM_API int MPI_Gather(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt_,
                         int root, MPI_Comm c) {
  prep_gather(sbuf, scount, st, rbuf, rcount, nullptr, nullptr, rt_, root, false, c, "MPI_Gather");
  InMpi in("MPI_Gather");
  return PMPI_Gather(sbuf, scount, st, rbuf, rcount, rt_, root, c);
}
LOOM_API int MPI_Gatherv(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, const int rcounts[],
                          const int displs[], MPI_Datatype rt_, int root, MPI_Comm c) {
  prep_gather(sbuf, scount, st, rbuf, 0, rcounts, displs, rt_, root, false, c, "MPI_Gatherv");
  InMpi in("MPI_Gatherv");
  return PMPI_Gatherv(sbuf, scount, st, rbuf, rcounts, displs, rt_, root, c);
}
LOOM_API int MPI_Allgather(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt_,
                            MPI_Comm c) {
  prep_gather(sbuf, scount, st, rbuf, rcount, nullptr, nullptr, rt_, 0, true, c, "MPI_Allgather");
  InMpi in("MPI_Allgather");
  return PMPI_Allgather(sbuf, scount, st, rbuf, rcount, rt_, c);
}
LOOM_API int MPI_Allgatherv(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, const int rcounts[],
                             const int displs[], MPI_Datatype rt_, MPI_Comm c) {
  prep_gather(sbuf, scount, st, rbuf, 0, rcounts, displs, rt_, 0, true, c, "MPI_Allgatherv");
  InMpi in("MPI_Allgatherv");
  return PMPI_Allgatherv(sbuf, scount, st, rbuf, rcounts, displs, rt_, c);
}
LOOM_API int MPI_Scatter(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt_,
                          int root, MPI_Comm c) {
  prep_scatter(sbuf, scount, nullptr, nullptr, st, rbuf, rcount, rt_, root, c, "MPI_Scatter");
  InMpi in("MPI_Scatter");
  return PMPI_Scatter(sbuf, scount, st, rbuf, rcount, rt_, root, c);
}
LOOM_API int MPI_Scatterv(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype st, void* rbuf,
                           int rcount, MPI_Datatype rt_, int root, MPI_Comm c) {
  prep_scatter(sbuf, 0, scounts, displs, st, rbuf, rcount, rt_, root, c, "MPI_Scatterv");
  InMpi in("MPI_Scatterv");
  return PMPI_Scatterv(sbuf, scounts, displs, st, rbuf, rcount, rt_, root, c);
}
LOOM_API int MPI_Alltoall(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt_,
                           MPI_Comm c) {
  prep_alltoall(sbuf, scount, nullptr, nullptr, st, rbuf, rcount, nullptr, nullptr, rt_, c, "MPI_Alltoall");
  InMpi in("MPI_Alltoall");
  return PMPI_Alltoall(sbuf, scount, st, rbuf, rcount, rt_, c);
}
LOOM_API int MPI_Alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype st, void* rbuf,
                            const int rcounts[], const int rdispls[], MPI_Datatype rt_, MPI_Comm c) {
  prep_alltoall(sbuf, 0, scounts, sdispls, st, rbuf, 0, rcounts, rdispls, rt_, c, "MPI_Alltoallv");
  InMpi in("MPI_Alltoallv");
  return PMPI_Alltoallv(sbuf, scounts, sdispls, st, rbuf, rcounts, rdispls, rt_, c);
}
LOOM_API int MPI_Reduce_scatter(const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype t, MPI_Op op,
                                 MPI_Comm c) {
  prep_reduce_scatter(sbuf, rbuf, 0, rcounts, t, c, "MPI_Reduce_scatter");
  InMpi in("MPI_Reduce_scatter");
  return PMPI_Reduce_scatter(sbuf, rbuf, rcounts, t, op, c);
}
LOOM_API int MPI_Reduce_scatter_block(const void* sbuf, void* rbuf, int rcount, MPI_Datatype t, MPI_Op op,
                                       MPI_Comm c) {
  prep_reduce_scatter(sbuf, rbuf, rcount, nullptr, t, c, "MPI_Reduce_scatter_block");
  InMpi in("MPI_Reduce_scatter_block");
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

// ---- one-sided: the origin buffer (complete the epoch before the next
// Loom synchronization; RMA operations are not watched) ---------------------

LOOM_API int MPI_Put(const void* obuf, int ocount, MPI_Datatype ot, int target, MPI_Aint tdisp, int tcount,
                      MPI_Datatype tt, MPI_Win w) {
  prep(obuf, 0, ocount, ot, LOOM_READ, "MPI_Put");
  InMpi in("MPI_Put");
  return PMPI_Put(obuf, ocount, ot, target, tdisp, tcount, tt, w);
}
LOOM_API int MPI_Get(void* obuf, int ocount, MPI_Datatype ot, int target, MPI_Aint tdisp, int tcount, MPI_Datatype tt,
                      MPI_Win w) {
  prep(obuf, 0, ocount, ot, LOOM_WRITE, "MPI_Get");
  InMpi in("MPI_Get");
  return PMPI_Get(obuf, ocount, ot, target, tdisp, tcount, tt, w);
}
LOOM_API int MPI_Accumulate(const void* obuf, int ocount, MPI_Datatype ot, int target, MPI_Aint tdisp, int tcount,
                             MPI_Datatype tt, MPI_Op op, MPI_Win w) {
  prep(obuf, 0, ocount, ot, LOOM_READ, "MPI_Accumulate");
  InMpi in("MPI_Accumulate");
  return PMPI_Accumulate(obuf, ocount, ot, target, tdisp, tcount, tt, op, w);
}

// ---- completion: the marker (data of a nonblocking operation moves here)
// and the pending operations ------------------------------------------------

LOOM_API int MPI_Wait(MPI_Request* r, MPI_Status* st) {
  InMpi in("MPI_Wait");
  return completing(r, 1, [&] { return PMPI_Wait(r, st); });
}
LOOM_API int MPI_Waitall(int n, MPI_Request rs[], MPI_Status sts[]) {
  InMpi in("MPI_Waitall");
  return completing(rs, n, [&] { return PMPI_Waitall(n, rs, sts); });
}
LOOM_API int MPI_Waitany(int n, MPI_Request rs[], int* idx, MPI_Status* st) {
  InMpi in("MPI_Waitany");
  return completing(rs, n, [&] { return PMPI_Waitany(n, rs, idx, st); });
}
LOOM_API int MPI_Waitsome(int n, MPI_Request rs[], int* outn, int idx[], MPI_Status sts[]) {
  InMpi in("MPI_Waitsome");
  return completing(rs, n, [&] { return PMPI_Waitsome(n, rs, outn, idx, sts); });
}
LOOM_API int MPI_Test(MPI_Request* r, int* flag, MPI_Status* st) {
  InMpi in("MPI_Test");
  return completing(r, 1, [&] { return PMPI_Test(r, flag, st); });
}
LOOM_API int MPI_Testall(int n, MPI_Request rs[], int* flag, MPI_Status sts[]) {
  InMpi in("MPI_Testall");
  return completing(rs, n, [&] { return PMPI_Testall(n, rs, flag, sts); });
}
LOOM_API int MPI_Testany(int n, MPI_Request rs[], int* idx, int* flag, MPI_Status* st) {
  InMpi in("MPI_Testany");
  return completing(rs, n, [&] { return PMPI_Testany(n, rs, idx, flag, st); });
}
LOOM_API int MPI_Testsome(int n, MPI_Request rs[], int* outn, int idx[], MPI_Status sts[]) {
  InMpi in("MPI_Testsome");
  return completing(rs, n, [&] { return PMPI_Testsome(n, rs, outn, idx, sts); });
}
// A freed request's operation goes on unwatched (MPI says only that it
// completes some time).
LOOM_API int MPI_Request_free(MPI_Request* r) {
  return completing(r, 1, [&] { return PMPI_Request_free(r); });
}
// Persistent operations are not prepared (their buffers are named at
// MPI_Send_init, used at each start): the marker names the call if one
// faults.
LOOM_API int MPI_Start(MPI_Request* r) {
  InMpi in("MPI_Start");
  return PMPI_Start(r);
}
LOOM_API int MPI_Startall(int n, MPI_Request rs[]) {
  InMpi in("MPI_Startall");
  return PMPI_Startall(n, rs);
}

}  // extern "C"
