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
// store.  This file holds the machinery, point to point, one-sided and
// completion; intercept_coll.cpp the collectives; intercept_file.cpp
// MPI-IO's reads and writes; intercept_io.cpp the common I/O calls.
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
// Only application threads ever hand Loom memory to MPI (Loom's rule), so
// only they change page protections here, under the rank lock.
//
// Nonblocking operations: the buffer is prepared when the operation is
// posted, and the request is remembered until a Wait or Test completes it.
// A release (barrier, lock, unlock, allocation, free) re-protects the pages
// a rank wrote and an acquire drops copies, under MPI's feet if the
// operation is still in flight; so every release and acquire (a split
// barrier's wait has no release of its own) first checks the pending
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
#include "intercept_wrap.hpp"
#include "runtime.hpp"
#include "threads.hpp"

namespace loom {

namespace {
std::atomic<uintptr_t> g_lo{0}, g_hi{0};  // the published range; empty when Loom is not active
}  // namespace

void intercept_publish_range(const uint8_t* base, uint64_t size) {
  if (!base) {  // withdraw: empty first, so no reader sees a half-cleared range as live
    g_hi.store(0, std::memory_order_release);
    g_lo.store(0, std::memory_order_release);
    return;
  }
  g_lo.store((uintptr_t)base, std::memory_order_release);
  g_hi.store((uintptr_t)base + size, std::memory_order_release);
}

bool intercept_in_range(const void* p) {
  const uintptr_t a = (uintptr_t)p, hi = g_hi.load(std::memory_order_acquire);
  return a < hi && a >= g_lo.load(std::memory_order_acquire);
}

bool intercept_clip(uintptr_t* lo, uintptr_t* hi) {
  const uintptr_t h = g_hi.load(std::memory_order_acquire), l = g_lo.load(std::memory_order_acquire);
  if (*lo < l) *lo = l;
  if (*hi > h) *hi = h;
  return *lo < *hi;
}

namespace wrap {

thread_local const char* t_call __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

bool in_loom(const void* p) { return intercept_in_range(p); }

}  // namespace

bool may_be_loom(const void* buf) {
  if (buf == MPI_IN_PLACE) return false;
  return buf == MPI_BOTTOM ? g_hi.load(std::memory_order_acquire) != 0 : in_loom(buf);
}

namespace {

// The part of Loom memory that `count` elements of `type` at element `disp`
// from `buf` reach, as [*l, *h); false where they reach none.
bool loom_range(const void* buf, MPI_Aint disp, MPI_Aint count, MPI_Datatype type, uintptr_t* l, uintptr_t* h) {
  if (count <= 0 || type == MPI_DATATYPE_NULL || !may_be_loom(buf)) return false;
  MPI_Aint lb = 0, ext = 0, tlb = 0, text = 0;
  if (PMPI_Type_get_extent(type, &lb, &ext) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &tlb, &text) != MPI_SUCCESS || text <= 0)
    return false;
  const intptr_t start = (intptr_t)buf + disp * ext + tlb, stride = (count - 1) * ext;
  const intptr_t lo = start + std::min<intptr_t>(0, stride), hi = start + std::max<intptr_t>(0, stride) + text;
  *l = lo < 0 ? 0 : (uintptr_t)lo;
  *h = hi < 0 ? 0 : (uintptr_t)hi;
  return intercept_clip(l, h);
}

}  // namespace

bool prep(const void* buf, MPI_Aint disp, MPI_Aint count, MPI_Datatype type, int access, const char* fn) {
  uintptr_t l = 0, h = 0;
  if (!loom_range(buf, disp, count, type, &l, &h)) return false;
  Status s = prepare_range((const void*)l, (size_t)(h - l), access, fn);
  (void)s;  // logged where detected
  return true;
}

// ---- nonblocking operations on Loom memory --------------------------------

namespace {

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

}  // namespace

void track(bool loom, int err, MPI_Request* req, const char* call, const void* buf) {
  if (!loom || err != MPI_SUCCESS || *req == MPI_REQUEST_NULL) return;
  std::lock_guard<std::mutex> g(g_mu);
  g_pending.push_back({*req, call, buf});
  g_npending.store((int)g_pending.size(), std::memory_order_relaxed);
  t_posts = true;
}

namespace {

// Persistent operations on Loom memory (MPI_Send_init ... MPI_Recv_init):
// the range their buffer reaches, named once and used at every start, is
// prepared again at each MPI_Start (a release since the last one may have
// re-protected the pages, an acquire dropped them), and the request is
// watched from then on as a nonblocking operation's (an inactive one
// counts as complete at the release's check) until MPI_Request_free.
struct Persistent {
  MPI_Request req;
  uintptr_t lo, hi;
  int access;
  const char* call;
};
std::vector<Persistent> g_persistent;  // under g_mu

void remember_persistent(int err, const MPI_Request* r, const void* buf, int count, MPI_Datatype t, int access,
                         const char* call) {
  uintptr_t l = 0, h = 0;
  if (err != MPI_SUCCESS || *r == MPI_REQUEST_NULL || !loom_range(buf, 0, count, t, &l, &h)) return;
  std::lock_guard<std::mutex> g(g_mu);
  g_persistent.push_back({*r, l, h, access, call});
}

// Before MPI_Start(all) of rs[0..n): prepare the ranges of those on Loom
// memory (outside g_mu: a preparation may fetch pages through MPI), and
// return them.
std::vector<Persistent> prep_persistent(int n, const MPI_Request* rs) {
  std::vector<Persistent> mine;
  {
    std::lock_guard<std::mutex> g(g_mu);
    if (g_persistent.empty()) return mine;
    for (int i = 0; i < n; i++)
      for (const Persistent& p : g_persistent)
        if (p.req == rs[i] && rs[i] != MPI_REQUEST_NULL) mine.push_back(p);
  }
  for (const Persistent& p : mine) {
    Status s = prepare_range((const void*)p.lo, (size_t)(p.hi - p.lo), p.access, p.call);
    (void)s;  // logged where detected
  }
  return mine;
}

// After the start: each one watched, once.
void watch_started(int err, const std::vector<Persistent>& started) {
  if (err != MPI_SUCCESS || started.empty()) return;
  std::lock_guard<std::mutex> g(g_mu);
  for (const Persistent& p : started) {
    bool known = false;
    for (const Pending& q : g_pending) known = known || q.req == p.req;
    if (!known) g_pending.push_back({p.req, p.call, (const void*)p.lo});
  }
  g_npending.store((int)g_pending.size(), std::memory_order_relaxed);
  t_posts = true;
}

// MPI_Request_free of `before`, now null: the persistent operation is gone.
void forget_persistent(MPI_Request before, MPI_Request after) {
  if (before == MPI_REQUEST_NULL || after != MPI_REQUEST_NULL) return;
  std::lock_guard<std::mutex> g(g_mu);
  for (size_t k = 0; k < g_persistent.size(); k++)
    if (g_persistent[k].req == before) {
      g_persistent[k] = g_persistent.back();
      g_persistent.pop_back();
      break;
    }
}

}  // namespace

namespace {

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

// ---- the program's blocking calls serve Loom's requests (LOOM_MPI_SERVES)
//
// Where other ranks reach this one by requests (the async path: another
// host), a request is served by the protocol thread, which naps while
// nothing comes, or by the application thread while it waits in Loom
// (spin_until).  An application thread blocked in the program's own MPI
// call served nothing: MPICH's blocking calls poll inside the library, and
// on a core that thread shares with the protocol thread a request waited
// for the latter.  Measured on 2 emulated hosts x 1, a core each: a lock
// kept by a rank whose program waits in MPI_Recv (loom_bench lock,
// lock_take_kick) took 250-330 us to take, of which the kick waited a
// median 244 us to reach the keeper's protocol thread (logged on both
// ranks' monotonic clock, one machine), whatever that thread's naps (caps
// of 20 us and 1 ms alike); served by the waiting call, 19.5 us.  So such
// a call becomes its nonblocking form and a poll of it that serves between
// tests, paced as Loom's waits are (spin, then yields; naps where the
// cores are taken).  The MPI semantics are the same: a blocking operation
// is its nonblocking start and a wait (MPI-3.1, 3.7.3), a probe a loop of
// MPI_Iprobe.  Not the collectives: MPI matches a blocking collective
// with a blocking one only, so a switch to the nonblocking forms would
// have to hold on every rank of the communicator, Loom's or not.  Only an
// application thread's outermost call, outside Loom (no rank lock: Loom's
// own waits serve already), and only while Loom runs.
bool serving_call() {
  return t_call == nullptr && g_hi.load(std::memory_order_acquire) != 0 && rt.cfg.mpi_serves &&
         rt.tp.serves_requests() && !thread_is_internal() && !rank_lock_mine();
}

// Poll test(&done) until it says done or fails, serving between polls
// (runtime.hpp, poll_serving, as Loom's own waits).
template <class T>
int serve_until(T&& test) {
  int err = MPI_SUCCESS;
  poll_serving(
      [&] {
        int done = 0;
        err = test(&done);
        return err != MPI_SUCCESS || done;
      },
      [](bool served, int) {
        if (served) __atomic_fetch_add(&rt.st.s.served_in_mpi, 1, __ATOMIC_RELAXED);
      });
  return err;
}

// A started operation's request, polled to completion while serving.
int serve_request(int started, MPI_Request* rq, MPI_Status* st) {
  if (started != MPI_SUCCESS) return started;
  return serve_until([&](int* done) { return PMPI_Test(rq, done, st); });
}

}  // namespace wrap

using namespace wrap;

const char* intercept_mpi_call() { return t_call; }

void intercept_fault_in_mpi(const char* call, uint64_t page, int is_write) {
  char msg[1536];
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
using namespace loom::wrap;

// The wrappers: C linkage, exported (LOOM_API; the library's default
// visibility is hidden), the standard's prototypes as MPICH declares them.
extern "C" {

// ---- point to point -------------------------------------------------------

LOOM_API int MPI_Send(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  prep(buf, 0, count, t, LOOM_READ, "MPI_Send");
  const bool serve = serving_call();
  InBlockingMpi in("MPI_Send", serve);
  if (serve) {
    MPI_Request rq;
    return serve_request(PMPI_Isend(buf, count, t, dest, tag, c, &rq), &rq, MPI_STATUS_IGNORE);
  }
  return PMPI_Send(buf, count, t, dest, tag, c);
}
LOOM_API int MPI_Ssend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  prep(buf, 0, count, t, LOOM_READ, "MPI_Ssend");
  const bool serve = serving_call();
  InBlockingMpi in("MPI_Ssend", serve);
  if (serve) {
    MPI_Request rq;
    return serve_request(PMPI_Issend(buf, count, t, dest, tag, c, &rq), &rq, MPI_STATUS_IGNORE);
  }
  return PMPI_Ssend(buf, count, t, dest, tag, c);
}
LOOM_API int MPI_Rsend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  prep(buf, 0, count, t, LOOM_READ, "MPI_Rsend");
  const bool serve = serving_call();
  InBlockingMpi in("MPI_Rsend", serve);
  if (serve) {
    MPI_Request rq;
    return serve_request(PMPI_Irsend(buf, count, t, dest, tag, c, &rq), &rq, MPI_STATUS_IGNORE);
  }
  return PMPI_Rsend(buf, count, t, dest, tag, c);
}
LOOM_API int MPI_Bsend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  prep(buf, 0, count, t, LOOM_READ, "MPI_Bsend");
  InBlockingMpi in("MPI_Bsend");
  return PMPI_Bsend(buf, count, t, dest, tag, c);
}
LOOM_API int MPI_Recv(void* buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status* st) {
  prep(buf, 0, count, t, LOOM_WRITE, "MPI_Recv");
  const bool serve = serving_call();
  InBlockingMpi in("MPI_Recv", serve);
  if (serve) {
    MPI_Request rq;
    return serve_request(PMPI_Irecv(buf, count, t, src, tag, c, &rq), &rq, st);
  }
  return PMPI_Recv(buf, count, t, src, tag, c, st);
}
LOOM_API int MPI_Mrecv(void* buf, int count, MPI_Datatype t, MPI_Message* m, MPI_Status* st) {
  prep(buf, 0, count, t, LOOM_WRITE, "MPI_Mrecv");
  const bool serve = serving_call();
  InBlockingMpi in("MPI_Mrecv", serve);
  if (serve) {
    MPI_Request rq;
    return serve_request(PMPI_Imrecv(buf, count, t, m, &rq), &rq, st);
  }
  return PMPI_Mrecv(buf, count, t, m, st);
}
// No buffer: wrapped for the wait alone (InBlockingMpi).
LOOM_API int MPI_Probe(int src, int tag, MPI_Comm c, MPI_Status* st) {
  const bool serve = serving_call();
  InBlockingMpi in("MPI_Probe", serve);
  if (serve) return serve_until([&](int* done) { return PMPI_Iprobe(src, tag, c, done, st); });
  return PMPI_Probe(src, tag, c, st);
}
LOOM_API int MPI_Mprobe(int src, int tag, MPI_Comm c, MPI_Message* m, MPI_Status* st) {
  const bool serve = serving_call();
  InBlockingMpi in("MPI_Mprobe", serve);
  if (serve) return serve_until([&](int* done) { return PMPI_Improbe(src, tag, c, done, m, st); });
  return PMPI_Mprobe(src, tag, c, m, st);
}
LOOM_API int MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype st, int dest, int stag, void* rbuf, int rcount,
                           MPI_Datatype rt_, int src, int rtag, MPI_Comm c, MPI_Status* status) {
  prep(sbuf, 0, scount, st, LOOM_READ, "MPI_Sendrecv");
  prep(rbuf, 0, rcount, rt_, LOOM_WRITE, "MPI_Sendrecv");
  const bool serve = serving_call();
  InBlockingMpi in("MPI_Sendrecv", serve);
  if (serve) {  // the receive posted first, as the blocking call may
    MPI_Request rq[2];
    int e = PMPI_Irecv(rbuf, rcount, rt_, src, rtag, c, &rq[0]);
    if (e != MPI_SUCCESS) return e;
    e = PMPI_Isend(sbuf, scount, st, dest, stag, c, &rq[1]);
    if (e != MPI_SUCCESS) {
      PMPI_Cancel(&rq[0]);
      PMPI_Wait(&rq[0], MPI_STATUS_IGNORE);
      return e;
    }
    MPI_Status sts[2];
    e = serve_until([&](int* done) { return PMPI_Testall(2, rq, done, sts); });
    if (e == MPI_ERR_IN_STATUS) e = sts[0].MPI_ERROR != MPI_SUCCESS ? sts[0].MPI_ERROR : sts[1].MPI_ERROR;
    if (status != MPI_STATUS_IGNORE) *status = sts[0];
    return e;
  }
  return PMPI_Sendrecv(sbuf, scount, st, dest, stag, rbuf, rcount, rt_, src, rtag, c, status);
}
LOOM_API int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype t, int dest, int stag, int src, int rtag,
                                   MPI_Comm c, MPI_Status* st) {
  prep(buf, 0, count, t, LOOM_WRITE, "MPI_Sendrecv_replace");
  InBlockingMpi in("MPI_Sendrecv_replace");
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

// The epoch's completion moves an RMA origin buffer's data: the marker names
// the call if that buffer was re-protected by a Loom synchronization meanwhile.
LOOM_API int MPI_Win_fence(int assert_, MPI_Win w) {
  InMpi in("MPI_Win_fence");
  return PMPI_Win_fence(assert_, w);
}
LOOM_API int MPI_Win_flush(int rank, MPI_Win w) {
  InMpi in("MPI_Win_flush");
  return PMPI_Win_flush(rank, w);
}
LOOM_API int MPI_Win_flush_all(MPI_Win w) {
  InMpi in("MPI_Win_flush_all");
  return PMPI_Win_flush_all(w);
}
LOOM_API int MPI_Win_flush_local(int rank, MPI_Win w) {
  InMpi in("MPI_Win_flush_local");
  return PMPI_Win_flush_local(rank, w);
}
LOOM_API int MPI_Win_flush_local_all(MPI_Win w) {
  InMpi in("MPI_Win_flush_local_all");
  return PMPI_Win_flush_local_all(w);
}
LOOM_API int MPI_Win_unlock(int rank, MPI_Win w) {
  InMpi in("MPI_Win_unlock");
  return PMPI_Win_unlock(rank, w);
}
LOOM_API int MPI_Win_unlock_all(MPI_Win w) {
  InMpi in("MPI_Win_unlock_all");
  return PMPI_Win_unlock_all(w);
}
LOOM_API int MPI_Win_complete(MPI_Win w) {
  InMpi in("MPI_Win_complete");
  return PMPI_Win_complete(w);
}

// ---- completion: the marker (data of a nonblocking operation moves here)
// and the pending operations ------------------------------------------------

// Each wait, where it serves (serving_call), is its test polled: a test that
// finds every request null (or inactive) is done, as the wait would return.
LOOM_API int MPI_Wait(MPI_Request* r, MPI_Status* st) {
  const bool serve = serving_call();
  InBlockingMpi in("MPI_Wait", serve);
  if (serve) return completing(r, 1, [&] { return serve_until([&](int* d) { return PMPI_Test(r, d, st); }); });
  return completing(r, 1, [&] { return PMPI_Wait(r, st); });
}
LOOM_API int MPI_Waitall(int n, MPI_Request rs[], MPI_Status sts[]) {
  const bool serve = serving_call();
  InBlockingMpi in("MPI_Waitall", serve);
  if (serve) return completing(rs, n, [&] { return serve_until([&](int* d) { return PMPI_Testall(n, rs, d, sts); }); });
  return completing(rs, n, [&] { return PMPI_Waitall(n, rs, sts); });
}
LOOM_API int MPI_Waitany(int n, MPI_Request rs[], int* idx, MPI_Status* st) {
  const bool serve = serving_call();
  InBlockingMpi in("MPI_Waitany", serve);
  if (serve)
    return completing(rs, n, [&] { return serve_until([&](int* d) { return PMPI_Testany(n, rs, idx, d, st); }); });
  return completing(rs, n, [&] { return PMPI_Waitany(n, rs, idx, st); });
}
LOOM_API int MPI_Waitsome(int n, MPI_Request rs[], int* outn, int idx[], MPI_Status sts[]) {
  const bool serve = serving_call();
  InBlockingMpi in("MPI_Waitsome", serve);
  if (serve)
    return completing(rs, n, [&] {
      return serve_until([&](int* d) {
        const int e = PMPI_Testsome(n, rs, outn, idx, sts);
        *d = e == MPI_SUCCESS && *outn != 0;  // some completed, or MPI_UNDEFINED: none active
        return e;
      });
    });
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
  const MPI_Request before = *r;
  const int e = completing(r, 1, [&] { return PMPI_Request_free(r); });
  forget_persistent(before, *r);
  return e;
}

// ---- persistent point to point: the buffer named at init, prepared at
// each start (Persistent above) --------------------------------------------

LOOM_API int MPI_Send_init(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  const int e = PMPI_Send_init(buf, count, t, dest, tag, c, r);
  remember_persistent(e, r, buf, count, t, LOOM_READ, "MPI_Send_init");
  return e;
}
LOOM_API int MPI_Ssend_init(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c,
                            MPI_Request* r) {
  const int e = PMPI_Ssend_init(buf, count, t, dest, tag, c, r);
  remember_persistent(e, r, buf, count, t, LOOM_READ, "MPI_Ssend_init");
  return e;
}
LOOM_API int MPI_Rsend_init(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c,
                            MPI_Request* r) {
  const int e = PMPI_Rsend_init(buf, count, t, dest, tag, c, r);
  remember_persistent(e, r, buf, count, t, LOOM_READ, "MPI_Rsend_init");
  return e;
}
LOOM_API int MPI_Bsend_init(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c,
                            MPI_Request* r) {
  const int e = PMPI_Bsend_init(buf, count, t, dest, tag, c, r);
  remember_persistent(e, r, buf, count, t, LOOM_READ, "MPI_Bsend_init");
  return e;
}
LOOM_API int MPI_Recv_init(void* buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request* r) {
  const int e = PMPI_Recv_init(buf, count, t, src, tag, c, r);
  remember_persistent(e, r, buf, count, t, LOOM_WRITE, "MPI_Recv_init");
  return e;
}
LOOM_API int MPI_Start(MPI_Request* r) {
  const std::vector<Persistent> started = prep_persistent(1, r);
  InMpi in("MPI_Start");
  const int e = PMPI_Start(r);
  watch_started(e, started);
  return e;
}
LOOM_API int MPI_Startall(int n, MPI_Request rs[]) {
  const std::vector<Persistent> started = prep_persistent(n, rs);
  InMpi in("MPI_Startall");
  const int e = PMPI_Startall(n, rs);
  watch_started(e, started);
  return e;
}

}  // extern "C"
