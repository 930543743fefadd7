// The async path (async.hpp): the protocol thread, requests and replies, put
// batches.
//
// A message is a header of four words {op | seg << 32, off, a, b} followed,
// for put batches and load_many, by a payload:
//   get      a = length; the reply (tag kTagReply) is the bytes themselves,
//            received straight into the caller's buffer.
//   atomics  a, b = operands (cas: expected, desired); reply one word.
//            A typed atomic (kOpTyped) also names the word's type and the
//            operation in word 0 (bits 40-47, 48-55).
//   puts     put records (common.hpp) {seg | len << 8, off} + len bytes
//            padded to 8, at most kBatchBytes per message; kOpPutsAck
//            replies one word when done.
//   words    a = parts, b = their words in all; each part is a head
//            {op | n << 8, a, b} and n Meta offsets, each word loaded,
//            compare-and-swapped from a to b or ORed with a (WordOp);
//            reply the old words, part after part.
//   locks    kOpLockEnqueue, kOpLockRelease: a queue lock's operations at
//            its home (Transport::lock_enqueue, lock_release); the release
//            and the hand-over it may send on (kOpStoreQuiet) have no reply;
//            neither has a group barrier's signal (kOpStoreQuiet too;
//            words after its header are put at b before the store).
//   reading  kOpReading: the sender is reading this rank's pages by
//            MPI_Get, so its waits should poll, not nap; off 1: and its
//            reads came slowly, so the protocol thread naps short for a
//            while (serve()); no reply.
// Requests go to tag kTagReq (only the protocol thread receives it), replies
// to tag kTagReply (only the application thread receives it), both on a
// private duplicate of the communicator.  The application thread has at
// most one reply outstanding per target (several for one load_many, posted
// in the order the requests are sent), and a target's protocol thread
// handles one sender's messages in the order sent, so replies match by
// order alone and unacknowledged put batches are applied before any later
// request from the same rank.
#include "transport/async.hpp"

#include "threads.hpp"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>

namespace loom {
namespace {

// The operations a request names (word 0 of a message, low half).
enum : uint32_t {
  kOpGet = 1,      // reply: the bytes
  kOpPuts = 2,     // put records; no reply
  kOpPutsAck = 3,  // the same, then a reply of one word once applied
  kOpLoad = 4,     // atomics: reply one word (the old value; store replies 0)
  kOpStore = 5,
  kOpCas = 6,
  kOpAdd = 7,
  kOpOr = 8,
  kOpSwap = 9,
  kOpWords = 10,   // parts of Meta word operations follow the header; reply their old words
  kOpStop = 11,    // from this rank itself at finalize: the thread exits
  kOpOrRange = 12, // OR b into a words from off; reply their old values
  kOpTyped = 13,   // a typed atomic (type, op in word 0); reply one word
  kOpStoreQuiet = 14,   // a Meta store (words after the header put at b first); no reply
  kOpLockEnqueue = 15,  // off = tail, a = link base, b = me; reply the old tail
  kOpLockRelease = 16,  // off, a, b as above, then freed, locked_off, handover; no reply
  kOpLockKick = 17,     // off = lock id: the kick handler (sync.cpp); no reply
  kOpReading = 18,      // the sender reads this rank's pages by MPI_Get (spin.hpp, idle_read_until; off 1: slowly); no reply
};

constexpr int kTagReq = 1, kTagReply = 2;
constexpr size_t kHdrWords = 4;
constexpr size_t kBatchBytes = 64 * 1024;  // payload of one message
constexpr size_t kMsgWords = kHdrWords + kBatchBytes / 8;
constexpr size_t kMaxLoads = kBatchBytes / 8;
constexpr size_t kGetChunk = size_t(1) << 30;  // MPI counts are int

// The protocol thread's wait for a request (measured on 2 cores with 2 and
// 4 ranks, see serve()):
constexpr int kServeSpin = 50;               // polls with pause after a request
constexpr long kYieldWindowNs = 50000;       // then yield polls for this long,
constexpr long kSlowYieldNs = 500000;        // unless a yield took this long
constexpr long kBanMinNs = 5000000;          // (then no yields for this long,
constexpr long kBanMaxNs = 20000000;         //  doubling while it repeats),
constexpr long kNapMinNs = 10000;            // then naps, each twice the last
constexpr long kNapMaxNs = AsyncPath::kNapMaxNs;      // (also the nap while the application serves),
constexpr long kNapSpareNs = AsyncPath::kNapSpareNs;  // or this while the rank leaves a core to spare
constexpr long kBusyWindowNs = 20000000;               // (judged on its CPU time over this long)
constexpr uint64_t kSliceNs = 100000;        // scheduler slice it asks for
constexpr long kReadNapNs = 50000;           // the longest nap while a reader's gets may come,
constexpr long kReadNapWindowNs = 1000000;   // for this long after its word (kOpReading)

// The scheduler slice this thread asks for: 0 the default, else a short one
// (Linux >= 6.12, EEVDF; no privilege needed, ignored where unsupported).
// Returns whether a short slice is now in force.
bool set_slice(uint64_t ns) {
  struct {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
  } attr{};
  attr.size = sizeof attr;  // SCHED_OTHER, nice 0
  attr.runtime = ns;
  return syscall(SYS_sched_setattr, 0, &attr, 0) == 0 && ns != 0;
}

inline uint64_t head(uint32_t op, Seg s) { return (uint64_t)op | ((uint64_t)(int)s << 32); }
// kOpTyped: the type in bits 40-47 of word 0, the operation in 48-55.
inline uint64_t head_typed(Seg s, AtomicType t, AtomicOp op) {
  return head(kOpTyped, s) | ((uint64_t)t << 40) | ((uint64_t)op << 48);
}

}  // namespace

AsyncPath::AsyncPath(MPI_Comm comm, int spin, const Segments& self, Path* near, const std::vector<uint8_t>& near_ranks,
                     AppWaiting& waiting, int cores, int sharers)
    : comm_(comm),
      spin_(spin),
      self_(self),
      near_(near),
      near_ranks_(near_ranks),
      waiting_(waiting),
      cores_(cores),
      sharers_(sharers) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &nranks_);
  batch_.assign(nranks_, Batch{});
  acks_.assign(nranks_, 0);
  late_.assign(nranks_, Late{});
  batches_sent_.assign(nranks_, 0);
  applied_.reset(new std::atomic<uint32_t>[nranks_]);
  for (int r = 0; r < nranks_; r++) applied_[r].store(0, std::memory_order_relaxed);
  released_to_.assign(nranks_, 0);
  // Sized once here: the application thread serves requests from inside the
  // fault handler (wait_mine), which must not allocate.
  req_buf_.resize(kMsgWords);
  app_out_.reserve(kMaxLoads);
  reqs_.reserve(2 * (size_t)nranks_);
  or_old_.reserve(1024);
  check(MPI_Comm_dup(comm_, &acomm_), "MPI_Comm_dup");
  if (nranks_ > 1) {
    // The thread takes no asynchronous signals: they stay the application's.
    sigset_t all, old;
    sigfillset(&all);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT}) sigdelset(&all, sig);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    idle_yield_.start();
    thread_ = std::thread([this] { serve(); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }
}

// Collective.  Every rank's requests are complete once it reaches the
// barrier (gets and atomics wait for their replies, puts are flushed here),
// so after it no request is in flight: each rank stops its own thread with a
// message to itself, which is the last message the thread receives.
AsyncPath::~AsyncPath() {
  settle_releases();  // served before the threads stop
  flush();
  if (thread_.joinable()) {
    MPI_Request rq;
    check(MPI_Ibarrier(comm_, &rq), "MPI_Ibarrier");
    wait_all(1, &rq, spin_);
    uint64_t m[kHdrWords] = {head(kOpStop, Seg::Meta), 0, 0, 0};
    check(MPI_Isend(m, (int)sizeof m, MPI_BYTE, rank_, kTagReq, acomm_, &rq), "MPI_Isend");
    wait_all(1, &rq, spin_);
    thread_.join();
    idle_yield_.stop();
  }
  if (acomm_ != MPI_COMM_NULL) MPI_Comm_free(&acomm_);
}

// The wait for a request is where the protocol thread meets the application
// on a shared core.  Yielding is the fast way to wait as long as the other
// threads on the core are pollers (a rank in a barrier or a lock, a rank
// waiting for a reply): they give the core back within microseconds.  Next
// to a thread that computes, one sched_yield hands it the core for a whole
// scheduler slice (1.5-3 ms measured here), and a request arriving meanwhile
// waits that long; a thread asleep in nanosleep instead comes back when its
// timer fires, and preempts the computing thread at once if it asked for a
// shorter slice.  So: spin a little after each request (bursts: page runs,
// lock hand-offs, flushes); yield-poll for up to 50 us unless a yield has
// recently come back late (someone computed on this core: no yields for
// 5-20 ms); then nap, 10 us doubling to 500 us, with a 100 us slice while
// napping (the default slice again before yielding: with a short slice a
// yield hardly gives the core away).  Each nap ends in an MPI call, and
// every wake takes a computing thread's core for a moment: with naps of up
// to 200 us a rank's protocol thread used 0.6 s of CPU in a 3 s SOR run
// across two hosts.  Naps of up to 500 us against 200 (the two builds
// alternated, 2 hosts x 1 rank, docs/results/issue10/nap500_*): SOR, LU,
// Linpack, CG, MG, EP 0.71-0.83x, IS 1.07x (ranges overlap); a page fetch
// 0.52-0.75x, barrier 0.80x, lock 1.02-1.07x (the raw CAS 1.02x), Jacobi
// 0.98x: fewer wakes of this thread beside the thread that serves or
// computes.
// Measured on 2 cores (medians of runs with other jobs on the machine):
//   yield-then-nap without the rules: barrier 2 ranks 7 us, 4 ranks 46 us;
//     a 2-rank Jacobi sweep 5-6 ms against 2 ms on rma (page requests
//     waited a slice behind the home's computation);
//   naps only: Jacobi 3-3.7 ms/sweep, barrier 2 ranks 40-90 us, 4 ranks 370 us;
//   these rules: barrier 7 / 46 us, Jacobi 4-4.6 ms/sweep; and mr_busy_home
//     (4 ranks, the home computing) with two CPU hogs running failed its
//     deadline 5 times in 6 without the short slice, 0 in 12 with it.
// Polling instead of napping where the rank has cores to spare (fb7d365,
// LOOM_POLL: poll when the affinity mask holds 2 cores per rank of the
// host; 16 cores, 2 emulated hosts x 1 rank pinned to 8 each, same build,
// runs alternated, docs/results/issue10/device16_poll/): a page fetch
// 0.90-0.96x, Jacobi 1.11-1.26x, and the applications mixed: LU 0.82, SOR
// and CG 0.94, MG 1.08, EP 1.22, Linpack 1.51 (2 runs each).  EP sends no
// message while it computes, so the poller took compute from its rank
// (the "spare" cores are probably hyperthreads of the ranks' cores, or
// share their caches): the naps stayed.
// Where the rank has a core to spare (cores.hpp: two physical cores under
// its affinity for each rank of the job that may run on them), and while
// its threads leave one spare (judge_cores: their CPU time over 20 ms; the
// hybrid build's 8 threads a rank on 8 cores do not), the naps stop at
// 50 us instead.  A page read is an MPI_Get that the home's MPI
// progresses inside any MPI call, so while the home computes it waits for
// this thread's next wake, and the thread cannot tell that it progressed
// one (its naps do not restart after it).  16 cores, 2 hosts x 1 rank
// pinned to 8 each (docs/results/issue10/device16_nap/): a fetch from a
// computing home 220 -> 47-61 us (490 -> 31-43 us when it comes 30 us
// after the last), a fetch from a home in a barrier unchanged (21 us); CG
// 0.85x, Linpack 0.83x, EP 1.09x (ranges overlap); naps of 20 us: 39-43 us.
// On shared cores (the 2-core machine's emulated hosts) nothing changes.
// A reader whose gets came slowly says so (kOpReading with off 1, while
// its reads come in a stream: Transport::before_read), and the naps stop
// at 50 us for 1 ms after each such word: 2 hosts x 1 on a core each, a
// fetch from a computing home with random gaps of 20-600 us 355 -> 77 us,
// a walk down a column of blocks 476 -> 118 us a window, the programs
// within their noise (docs/BENCHMARKS.md, "A slow home is told").
// Beside an application thread that computes on the same single core,
// this thread once woken may wait for that thread's scheduler slice:
// 1.3-3.4 ms right after a barrier (Linpack at 2 hosts x 1).  A wake-up
// at the barrier's end, no yields there, and nice -10 (root only) were
// tried; none made a program faster (docs/BENCHMARKS.md, "Linpack's
// first fetch after a barrier").
void AsyncPath::serve() {
  pthread_setname_np(pthread_self(), "loom-async");
  thread_mark_internal();
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);  // naps of microseconds, not +50 us
  std::vector<uint64_t> out;
  long ban_until = 0, ban_len = kBanMinNs, next_judge = 0, reads_until = 0;
  int fast_yields = 0;
  bool short_slice = false;
  while (!stop_.load(std::memory_order_acquire)) {
    long idle_since = 0, nap = kNapMinNs;
    for (int polls = 0;;) {
      if (waiting_.now()) {
        // The application thread serves while it waits: stay off MPI and
        // off the core, napping as long as when idle (no wake-up call when
        // the wait ends: a fault's wait ends thousands of times a second,
        // and each call cost a thread switch).
        if (!short_slice) short_slice = set_slice(kSliceNs);
        timespec ts{0, kNapMaxNs};
        nanosleep(&ts, nullptr);
        continue;
      }
      bool served, quiet, reads_slow;
      {
        std::lock_guard<std::mutex> hold(serve_mu_);
        quiet_ = reads_slow_ = false;
        served = serve_next(out);
        quiet = quiet_;
        reads_slow = reads_slow_;
      }
      // A word that asks nothing (kOpReading) is no sign of a burst of
      // requests: the pace goes on as it was.  But where the reader's gets
      // came slowly (while the application computed, each waited for this
      // thread's next MPI call), its naps stay short for a while.
      if (served && quiet) {
        if (reads_slow) reads_until = mono_ns() + kReadNapWindowNs;
        continue;
      }
      if (served || stop_.load(std::memory_order_acquire)) break;
      if (++polls <= kServeSpin) {
        relax();
        continue;
      }
      const long t = mono_ns();
      if (!idle_since) idle_since = t;
      if (t - idle_since < kYieldWindowNs && t >= ban_until) {
        if (short_slice) short_slice = set_slice(0);  // a short slice would make yields no-ops
        sched_yield();
        const long back = mono_ns();
        if (back - t > kSlowYieldNs) {
          ban_until = back + ban_len;
          ban_len = std::min(2 * ban_len, kBanMaxNs);
          fast_yields = 0;
        } else if (++fast_yields > 1000) {
          ban_len = kBanMinNs;
        }
      } else {
        if (!short_slice) short_slice = set_slice(kSliceNs);
        if (t < reads_until) nap = std::min(nap, kReadNapNs);
        timespec ts{0, nap};
        nanosleep(&ts, nullptr);
        if (t >= next_judge) next_judge = judge_cores(t);
        nap = std::min(2 * nap, nap_cap_ns_);
      }
    }
  }
}

// Whether the rank leaves a core to spare (cores.hpp), judged on its
// threads' CPU time since the last judgement (this thread's left out),
// which sets the idle thread's longest nap.  Returns when to judge again.
long AsyncPath::judge_cores(long now) {
  if (!cpu_spare_now(cores_, sharers_, 1.0)) {
    nap_cap_ns_ = kNapMaxNs;
    return LONG_MAX;
  }
  timespec p, s;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &s);
  const long proc = p.tv_sec * 1000000000L + p.tv_nsec, self = s.tv_sec * 1000000000L + s.tv_nsec;
  bool spare = true;  // the first judgement: the cores alone, as at init
  if (judged_at_ && now > judged_at_)
    spare = cpu_spare_now(cores_, sharers_, double((proc - judged_proc_) - (self - judged_self_)) / double(now - judged_at_));
  nap_cap_ns_ = spare ? kNapSpareNs : kNapMaxNs;
  judged_at_ = now;
  judged_proc_ = proc;
  judged_self_ = self;
  return now + kBusyWindowNs;
}

// One request, if one has come: the receive for requests is posted ahead
// (a posted receive was faster than MPI_Improbe: a lock hosted on the
// other host 47 -> 37 us) and shared by the two threads that serve; the
// caller holds serve_mu_, which also keeps each sender's requests in order
// (one is finished before the next is received).
bool AsyncPath::serve_next(std::vector<uint64_t>& out) {
  if (stop_.load(std::memory_order_relaxed)) return false;
  if (req_ == MPI_REQUEST_NULL) {
    req_buf_.resize(kMsgWords);
    check(MPI_Irecv(req_buf_.data(), (int)(kMsgWords * 8), MPI_BYTE, MPI_ANY_SOURCE, kTagReq, acomm_, &req_),
          "MPI_Irecv");
  }
  int flag = 0;
  MPI_Status st;
  check(MPI_Test(&req_, &flag, &st), "MPI_Test");
  if (!flag) return false;
  req_ = MPI_REQUEST_NULL;
  int bytes = 0;
  MPI_Get_count(&st, MPI_BYTE, &bytes);
  if (bytes < (int)(kHdrWords * 8)) fatal("async transport: a request of %d bytes from rank %d", bytes, st.MPI_SOURCE);
  if ((uint32_t)req_buf_[0] == kOpStop) {
    if (st.MPI_SOURCE != rank_) fatal("async transport: a stop request from rank %d", st.MPI_SOURCE);
    stop_.store(true, std::memory_order_release);
    return true;
  }
  serve_one(st.MPI_SOURCE, req_buf_.data(), bytes, out);
  return true;
}

bool AsyncPath::serve_waiting() {
  if (!thread_.joinable() || !serve_mu_.try_lock()) return false;
  const bool served = serve_next(app_out_);
  serve_mu_.unlock();
  return served;
}

// A request nobody answers, from the application thread: sent (the wait
// serving meanwhile) before the caller goes on.
void AsyncPath::send_unanswered(int r, const uint64_t* m, size_t bytes) {
  MPI_Request rq;
  check(MPI_Isend(m, (int)bytes, MPI_BYTE, r, kTagReq, acomm_, &rq), "MPI_Isend");
  wait_mine(1, &rq);
}

// The application thread's wait for its requests: while it waits it serves
// the requests other ranks sent this one (the protocol thread would have to
// be scheduled for them; this thread is running already).
void AsyncPath::wait_mine(int n, MPI_Request* rq) {
  WaitingIn in(waiting_);
  wait_all(n, rq, spin_, [](void* a) { static_cast<AsyncPath*>(a)->serve_waiting(); }, this);
}

// Perform one request on this rank's own memory and reply.
void AsyncPath::serve_one(int src, const uint64_t* m, int bytes, std::vector<uint64_t>& out) {
  const uint32_t op = (uint32_t)m[0];
  const Seg seg = (Seg)(int)((m[0] >> 32) & 0xff);
  const uint64_t off = m[1], a = m[2], b = m[3];
  auto base = [&](Seg s) { return self_.base[(int)s]; };
  auto inside = [&](Seg s, uint64_t o, uint64_t len) {
    if (!self_.inside(s, o, len))
      fatal("async transport: rank %d asked for bytes [%llu, +%llu) of segment %d", src, (unsigned long long)o,
            (unsigned long long)len, (int)s);
  };
  auto reply = [&](const void* p, size_t len) {
    MPI_Request rq;
    check(MPI_Isend(p, (int)len, MPI_BYTE, src, kTagReply, acomm_, &rq), "MPI_Isend");
    wait_all(1, &rq, spin_);
  };
  switch (op) {
    case kOpGet:
      inside(seg, off, a);
      if (a > kGetChunk) fatal("async transport: a get of %llu bytes", (unsigned long long)a);
      reply(base(seg) + off, a);
      return;
    case kOpPuts:
    case kOpPutsAck: {
      const PutRecordsApplied applied = apply_put_records(
          self_, reinterpret_cast<const uint8_t*>(m + kHdrWords), reinterpret_cast<const uint8_t*>(m) + bytes);
      if (applied.result == PutRecordsApplied::kTruncated)
        fatal("async transport: a malformed put batch from rank %d", src);
      if (applied.result == PutRecordsApplied::kOutside) inside(applied.seg, applied.off, applied.len);
      // The bytes are in place before the acknowledgement, or before any
      // later request of the sender is served (this thread, in order), and
      // before the count a barrier's agreement waits for (flush_late).
      std::atomic_thread_fence(std::memory_order_release);
      applied_[src].fetch_add(1, std::memory_order_release);
      if (op == kOpPutsAck) {
        static const uint64_t done = 1;
        reply(&done, 8);
      }
      return;
    }
    case kOpWords: {
      const uint64_t parts = a, total = b;
      const uint64_t words = (uint64_t)bytes / 8;
      if (total > kMaxLoads) fatal("async transport: a malformed word request from rank %d", src);
      out.resize(total);
      uint64_t at = kHdrWords, done = 0;
      for (uint64_t k = 0; k < parts; k++) {
        if (at + 3 > words) fatal("async transport: a malformed word request from rank %d", src);
        const uint64_t h = m[at], pa = m[at + 1], pb = m[at + 2], n = h >> 8;
        const WordOp wop = (WordOp)(h & 0xff);
        at += 3;
        if (n > words - at || n > total - done || (h & 0xff) > (uint64_t)WordOp::Or)
          fatal("async transport: a malformed word request from rank %d", src);
        for (uint64_t i = 0; i < n; i++) {
          const uint64_t o = m[at + i];
          inside(Seg::Meta, o, 8);
          if (o % 8) fatal("async transport: an unaligned atomic at %llu from rank %d", (unsigned long long)o, src);
          uint64_t* w = word(base(Seg::Meta) + o);
          uint64_t& r = out[done + i];
          if (wop == WordOp::Load) {
            r = __atomic_load_n(w, __ATOMIC_ACQUIRE);
          } else if (wop == WordOp::Or) {
            r = __atomic_fetch_or(w, pa, __ATOMIC_ACQ_REL);
          } else {
            r = pa;
            __atomic_compare_exchange_n(w, &r, pb, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
          }
        }
        at += n;
        done += n;
      }
      if (done != total) fatal("async transport: a malformed word request from rank %d", src);
      reply(out.data(), total * 8);
      return;
    }
    default:
      break;
  }
  if (op == kOpOrRange) {
    if (a == 0 || a > kMaxLoads) fatal("async transport: an OR over %llu words from rank %d", (unsigned long long)a, src);
    inside(seg, off, a * 8);
    if (off % 8) fatal("async transport: an unaligned atomic at %llu from rank %d", (unsigned long long)off, src);
    out.resize(a);
    for (uint64_t i = 0; i < a; i++)
      out[i] = __atomic_fetch_or(word(base(seg) + off + i * 8), b, __ATOMIC_ACQ_REL);
    if (bytes >= (int)((kHdrWords + 1) * 8)) {  // and a count
      const uint64_t c = m[kHdrWords];
      inside(seg, c, 8);
      if (c % 8) fatal("async transport: an unaligned count at %llu from rank %d", (unsigned long long)c, src);
      __atomic_fetch_add(word(base(seg) + c), 1, __ATOMIC_SEQ_CST);
    }
    reply(out.data(), a * 8);
    return;
  }
  if (op == kOpLockEnqueue || op == kOpLockRelease) {
    const uint64_t me = b;
    if (me == 0 || me > (uint64_t)nranks_) fatal("async transport: a lock request for rank %llu from rank %d", (unsigned long long)me, src);
    inside(Seg::Meta, off, 8);
    inside(Seg::Meta, a, (uint64_t)nranks_ * 8);
    if (off % 8 || a % 8) fatal("async transport: an unaligned lock word from rank %d", src);
    uint64_t* tail = word(base(Seg::Meta) + off);
    if (op == kOpLockEnqueue) {
      const uint64_t old = __atomic_exchange_n(tail, me, __ATOMIC_ACQ_REL);
      if (old & kLockQueueMask) {
        if ((old & kLockQueueMask) > (uint64_t)nranks_) fatal("async transport: a lock tail of %#llx", (unsigned long long)old);
        __atomic_store_n(word(base(Seg::Meta) + a + ((old & kLockQueueMask) - 1) * 8), me, __ATOMIC_RELEASE);
      }
      reply(&old, 8);
      return;
    }
    if (bytes < (int)((kHdrWords + 3) * 8)) fatal("async transport: a short lock release from rank %d", src);
    const uint64_t freed = m[kHdrWords], locked_off = m[kHdrWords + 1], handover = m[kHdrWords + 2];
    if (locked_off % 8 || !self_.inside(Seg::Meta, locked_off, 8))
      fatal("async transport: a lock release naming word %llu from rank %d", (unsigned long long)locked_off, src);
    uint64_t* link = word(base(Seg::Meta) + a + (me - 1) * 8);
    const uint64_t next = lock_release_here(
        me, freed, spin_,
        [&](uint64_t e, uint64_t d) {
          __atomic_compare_exchange_n(tail, &e, d, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
          return e;  // the old value either way
        },
        [&] { return __atomic_load_n(link, __ATOMIC_ACQUIRE); },
        [&](uint64_t v) { __atomic_store_n(link, v, __ATOMIC_RELAXED); });
    if (next > (uint64_t)nranks_) fatal("async transport: a lock link of %llu", (unsigned long long)next);
    if (next) store_for((int)next - 1, locked_off, handover);
    return;
  }
  if (op == kOpLockKick) {
    if (auto* fn = kick_.load(std::memory_order_acquire)) fn(off);
    return;
  }
  if (op == kOpReading) {
    // Only while the application thread waits: a word that finds it
    // computing says nothing of its next wait.
    if (waiting_.now()) idle_read_until.store(spin_mono_ns() + kReadWindowNs, std::memory_order_relaxed);
    quiet_ = true;
    reads_slow_ = off != 0;
    return;
  }
  if (op == kOpStoreQuiet) {
    inside(Seg::Meta, off, 8);
    if (off % 8) fatal("async transport: an unaligned store at %llu from rank %d", (unsigned long long)off, src);
    if (bytes > (int)(kHdrWords * 8)) {  // words to put at b first (signal_words)
      const size_t n = (size_t)bytes / 8 - kHdrWords;
      inside(Seg::Meta, b, n * 8);
      std::memcpy(base(Seg::Meta) + b, m + kHdrWords, n * 8);
    }
    __atomic_store_n(word(base(Seg::Meta) + off), a, __ATOMIC_RELEASE);
    return;
  }
  if (op == kOpTyped) {
    const AtomicType t = (AtomicType)((m[0] >> 40) & 0xff);
    const AtomicOp aop = (AtomicOp)((m[0] >> 48) & 0xff);
    if (!atomic_valid(t, aop)) fatal("async transport: an unknown typed atomic %#llx from rank %d", (unsigned long long)m[0], src);
    const size_t width = atomic_width(t);
    inside(seg, off, width);
    if (off % width) fatal("async transport: an unaligned atomic at %llu from rank %d", (unsigned long long)off, src);
    const uint64_t r = apply_atomic(base(seg) + off, t, aop, a, b);
    reply(&r, 8);
    return;
  }
  inside(seg, off, 8);
  if (off % 8) fatal("async transport: an unaligned atomic at %llu from rank %d", (unsigned long long)off, src);
  uint64_t* w = word(base(seg) + off);
  uint64_t r = 0;
  switch (op) {
    case kOpLoad: r = __atomic_load_n(w, __ATOMIC_ACQUIRE); break;
    case kOpStore: __atomic_store_n(w, a, __ATOMIC_RELEASE); break;
    case kOpCas: {
      uint64_t expected = a;
      __atomic_compare_exchange_n(w, &expected, b, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
      r = expected;  // the old value either way
      break;
    }
    case kOpAdd: r = __atomic_fetch_add(w, a, __ATOMIC_ACQ_REL); break;
    case kOpOr: r = __atomic_fetch_or(w, a, __ATOMIC_ACQ_REL); break;
    case kOpSwap: r = __atomic_exchange_n(w, a, __ATOMIC_ACQ_REL); break;
    default: fatal("async transport: unknown request %u from rank %d", op, src);
  }
  reply(&r, 8);
}

uint64_t AsyncPath::rpc_word(int r, uint64_t hdr, uint64_t off, uint64_t a, uint64_t b) {
  send_batch(r);
  uint64_t m[kHdrWords] = {hdr, off, a, b}, result = 0;
  MPI_Request rq[2];
  check(MPI_Irecv(&result, 8, MPI_BYTE, r, kTagReply, acomm_, &rq[0]), "MPI_Irecv");
  check(MPI_Isend(m, (int)sizeof m, MPI_BYTE, r, kTagReq, acomm_, &rq[1]), "MPI_Isend");
  wait_mine(2, rq);
  return result;
}

// A Meta store of the serving thread (a lock's hand-over): this rank's own
// word or a mapped peer's with a CPU store, another's by a message nobody
// answers (the serving thread never waits for another rank's reply).
void AsyncPath::store_for(int r, uint64_t off, uint64_t v) {
  if (r == rank_) {
    __atomic_store_n(word(self_.base[(int)Seg::Meta] + off), v, __ATOMIC_RELEASE);
  } else if (near_ranks_[r]) {
    near_->store(r, Seg::Meta, off, v);
  } else {
    uint64_t m[kHdrWords] = {head(kOpStoreQuiet, Seg::Meta), off, v, 0};
    MPI_Request rq;
    check(MPI_Isend(m, (int)sizeof m, MPI_BYTE, r, kTagReq, acomm_, &rq), "MPI_Isend");
    wait_all(1, &rq, spin_);
  }
}

uint64_t AsyncPath::lock_enqueue(int r, uint64_t tail_off, uint64_t link_base, uint64_t me) {
  return rpc_word(r, head(kOpLockEnqueue, Seg::Meta), tail_off, link_base, me);
}

void AsyncPath::lock_release(int r, uint64_t tail_off, uint64_t link_base, uint64_t me, uint64_t freed,
                             uint64_t locked_off, uint64_t handover) {
  send_batch(r);
  uint64_t m[kHdrWords + 3] = {head(kOpLockRelease, Seg::Meta), tail_off, link_base, me, freed, locked_off, handover};
  send_unanswered(r, m, sizeof m);
  sent_oneway(r);
}

void AsyncPath::lock_release_served(int r, uint64_t tail_off, uint64_t link_base, uint64_t me, uint64_t freed,
                                    uint64_t locked_off, uint64_t handover) {
  uint64_t m[kHdrWords + 3] = {head(kOpLockRelease, Seg::Meta), tail_off, link_base, me, freed, locked_off, handover};
  MPI_Request rq;
  check(MPI_Isend(m, (int)sizeof m, MPI_BYTE, r, kTagReq, acomm_, &rq), "MPI_Isend");
  wait_all(1, &rq, spin_);
  sent_oneway(r);
}

void AsyncPath::lock_kick(int r, uint64_t id) {
  uint64_t m[kHdrWords] = {head(kOpLockKick, Seg::Meta), id, 0, 0};
  send_unanswered(r, m, sizeof m);
  sent_oneway(r);
}

void AsyncPath::tell_reading(int r, bool slow) {
  uint64_t m[kHdrWords] = {head(kOpReading, Seg::Data), slow ? 1u : 0u, 0, 0};
  send_unanswered(r, m, sizeof m);
}

uint64_t AsyncPath::load(int r, Seg s, uint64_t off) { return rpc_word(r, head(kOpLoad, s), off, 0, 0); }

uint64_t AsyncPath::atomic_op(int r, Seg s, uint64_t off, AtomicType t, AtomicOp op, uint64_t a, uint64_t b) {
  return rpc_word(r, head_typed(s, t, op), off, a, b);
}

void AsyncPath::store(int r, Seg s, uint64_t off, uint64_t v) { rpc_word(r, head(kOpStore, s), off, v, 0); }

// The store without its reply: the serving thread at r does it in turn
// with this rank's other requests (one communicator, one tag: MPI keeps
// their order).  An arrive took a round trip per other member with the
// replied store; with this, on 2 cores (BENCHMARKS.md, "Group barriers'
// signals"): a split-phase barrier of 4 across 4 hosts 534 -> 361 us, of
// 3 ranks on 2 hosts x 2 363 -> 171 us, of 2 across 2 hosts 67 -> 49 us.
void AsyncPath::signal(int r, uint64_t off, uint64_t v) {
  send_batch(r);
  uint64_t m[kHdrWords] = {head(kOpStoreQuiet, Seg::Meta), off, v, 0};
  send_unanswered(r, m, sizeof m);
}

// The words ride in the signal's message: one message where a put and a
// signal were two, each a wake-up of the member's serving thread.
void AsyncPath::signal_words(int r, uint64_t off, uint64_t v, uint64_t data_off, const uint64_t* words, size_t n) {
  if (n == 0 || n > kBatchBytes / 8) return Path::signal_words(r, off, v, data_off, words, n);
  send_batch(r);
  sig_buf_.resize(kHdrWords + n);
  sig_buf_[0] = head(kOpStoreQuiet, Seg::Meta);
  sig_buf_[1] = off;
  sig_buf_[2] = v;
  sig_buf_[3] = data_off;
  std::memcpy(sig_buf_.data() + kHdrWords, words, n * 8);
  send_unanswered(r, sig_buf_.data(), (kHdrWords + n) * 8);
}

uint64_t AsyncPath::cas(int r, Seg s, uint64_t off, uint64_t expected, uint64_t desired) {
  return rpc_word(r, head(kOpCas, s), off, expected, desired);
}

uint64_t AsyncPath::fetch_add(int r, Seg s, uint64_t off, uint64_t v) { return rpc_word(r, head(kOpAdd, s), off, v, 0); }

uint64_t AsyncPath::fetch_or(int r, Seg s, uint64_t off, uint64_t v) { return rpc_word(r, head(kOpOr, s), off, v, 0); }

uint64_t AsyncPath::swap(int r, Seg s, uint64_t off, uint64_t v) { return rpc_word(r, head(kOpSwap, s), off, v, 0); }

void AsyncPath::get(int r, Seg s, uint64_t off, void* dst, size_t len) {
  send_batch(r);
  uint8_t* d = static_cast<uint8_t*>(dst);
  while (len > 0) {
    const size_t n = std::min(len, kGetChunk);
    uint64_t m[kHdrWords] = {head(kOpGet, s), off, n, 0};
    MPI_Request rq[2];
    check(MPI_Irecv(d, (int)n, MPI_BYTE, r, kTagReply, acomm_, &rq[0]), "MPI_Irecv");
    check(MPI_Isend(m, (int)sizeof m, MPI_BYTE, r, kTagReq, acomm_, &rq[1]), "MPI_Isend");
    wait_mine(2, rq);
    d += n;
    off += n;
    len -= n;
  }
}

void AsyncPath::send_batch(int r) {
  Batch& b = batch_[r];
  if (b.used == 0) return;
  b.buf[0] = head(kOpPuts, Seg::Data);
  MPI_Request rq;
  check(MPI_Isend(b.buf.data(), (int)(kHdrWords * 8 + b.used), MPI_BYTE, r, kTagReq, acomm_, &rq), "MPI_Isend");
  batches_sent_[r]++;
  wait_mine(1, &rq);
  b.used = 0;
}

// Rank r's batch, ready for a record of `need` bytes (sent first where it
// has no room for them).
AsyncPath::Batch& AsyncPath::batch_for(int r, size_t need) {
  Batch& b = batch_[r];
  if (late_[r].pending) settle_late(r);  // (its buffer may still be on its way)
  if (b.buf.empty()) b.buf.assign(kMsgWords, 0);
  b.unacked = true;
  if (b.used + need > kBatchBytes) send_batch(r);
  return b;
}

void AsyncPath::put(int r, Seg s, uint64_t off, const void* src, size_t len) {
  Batch& b = batch_for(r, 0);
  const uint8_t* p = static_cast<const uint8_t*>(src);
  while (len > 0) {
    if (b.used + kPutRecordHead + 8 > kBatchBytes) send_batch(r);
    const size_t n = std::min(len, (kBatchBytes - b.used - kPutRecordHead) & ~size_t(7));
    b.used += append_put_record(reinterpret_cast<uint8_t*>(b.buf.data() + kHdrWords) + b.used, s, off, p, n);
    p += n;
    off += n;
    len -= n;
  }
}

// A page's runs as one runs record (common.hpp) where there are two or
// more and it fits a batch: smaller than a record a run.
void AsyncPath::put_runs(int r, Seg s, uint64_t base, const uint8_t* src, const uint32_t* off, const uint32_t* len,
                         size_t n) {
  const size_t need = n >= 2 ? runs_record_bytes(off, len, n) : 0;
  if (need == 0 || need > kBatchBytes) {
    Path::put_runs(r, s, base, src, off, len, n);
    return;
  }
  Batch& b = batch_for(r, need);
  b.used += append_runs_record(reinterpret_cast<uint8_t*>(b.buf.data() + kHdrWords) + b.used, s, base, src, off, len, n);
}

// A page's diff as one mask record (common.hpp) where it fits a batch.
void AsyncPath::put_mask(int r, Seg s, uint64_t base, const uint8_t* src, const uint64_t* mask, size_t words) {
  const size_t need = mask_record_bytes(words, 64 * words);  // at most
  if (need > kBatchBytes) {
    Path::put_mask(r, s, base, src, mask, words);
    return;
  }
  Batch& b = batch_for(r, need);
  b.used += append_mask_record(reinterpret_cast<uint8_t*>(b.buf.data() + kHdrWords) + b.used, s, base, src, mask, words);
}

void AsyncPath::settle_releases() {
  // A barrier with no unlock since the last one scans nothing.
  if (!released_any_.exchange(false, std::memory_order_acquire)) return;
  for (int r = 0; r < nranks_; r++) {
    if (!__atomic_exchange_n(&released_to_[r], 0, __ATOMIC_RELAXED)) continue;
    (void)batch_for(r, 0);  // acknowledged at the flush
  }
  flush();
}

// Send every written rank its last batch (possibly only the header) asking
// for an acknowledgement, and wait for all of them: one round trip, to all
// targets at once.
void AsyncPath::flush() {
  settle_late(-1);
  reqs_.clear();
  for (int r = 0; r < nranks_; r++) {
    if (!batch_[r].unacked) continue;
    reqs_.resize(reqs_.size() + 2, MPI_REQUEST_NULL);
    send_acked(r, &reqs_[reqs_.size() - 2]);
  }
  if (reqs_.empty()) return;
  wait_mine((int)reqs_.size(), reqs_.data());
  for (Batch& b : batch_) {
    b.used = 0;
    b.unacked = false;
  }
}

// r's batch (possibly only the header) asking for an acknowledgement: its
// receive into rq[0], the send into rq[1].
void AsyncPath::send_acked(int r, MPI_Request* rq) {
  Batch& b = batch_[r];
  b.buf[0] = head(kOpPutsAck, Seg::Data);
  check(MPI_Irecv(&acks_[r], 8, MPI_BYTE, r, kTagReply, acomm_, &rq[0]), "MPI_Irecv");
  check(MPI_Isend(b.buf.data(), (int)(kHdrWords * 8 + b.used), MPI_BYTE, r, kTagReq, acomm_, &rq[1]), "MPI_Isend");
  batches_sent_[r]++;
}

// The same messages as flush(), the waits left for settle_late.  A reply
// from r matches its receives in the order they were posted (one tag, one
// communicator), and r answers its requests in the order sent, so the
// acknowledgement's receive posted here is matched by the acknowledgement
// whatever this rank asks r meanwhile.
void AsyncPath::flush_late() {
  settle_late(-1);
  for (int r = 0; r < nranks_; r++) {
    Batch& b = batch_[r];
    if (!b.unacked) continue;
    send_acked(r, late_[r].rq);
    late_[r].pending = true;
    b.used = 0;
    b.unacked = false;
  }
}

void AsyncPath::settle_late(int r) {
  if (r >= 0) {
    if (!late_[r].pending) return;
    wait_mine(2, late_[r].rq);
    late_[r].pending = false;
    return;
  }
  for (int q = 0; q < nranks_; q++) settle_late(q);
}

// The protocol thread writes this rank's segments with CPU stores and
// atomics: the facade's fence is all a load here needs.
void AsyncPath::sync_local() {}

void AsyncPath::words(const WordGroup* g, size_t k) {
  // Each group's words by rank; the near ranks' are done here.
  if (wg_.size() < k) wg_.resize(k);
  size_t remote = 0;
  for (size_t j = 0; j < k; j++) {
    WordsByRank& w = wg_[j];
    const size_t n = g[j].n;
    if (!n) {
      w.start.assign(nranks_ + 1, 0);
      continue;
    }
    remote += w.group(n, nranks_, g[j].at, near_ranks_.data());
    for (size_t i = 0; i < n; i++) {
      if (!near_ranks_[w.rank[i]]) continue;
      const int r = w.rank[i];
      g[j].out[i] = g[j].op == WordOp::Load  ? near_->load(r, Seg::Meta, w.off[i])
                    : g[j].op == WordOp::Or ? near_->fetch_or(r, Seg::Meta, w.off[i], g[j].a)
                                            : near_->cas(r, Seg::Meta, w.off[i], g[j].a, g[j].b);
    }
  }
  if (remote == 0) return;
  // Per rank, every group's words in one message (a part each), split
  // where a message would pass kBatchBytes; every reply is posted before
  // its request leaves, in the order of the requests to each rank.  A
  // protocol thread sharing its core with computing threads got the core
  // back once per message: three groups as three messages a rank took
  // 80-110 us, one 28-33 us (2 hosts x 1, a core each).
  constexpr size_t kCap = kMsgWords - kHdrWords;  // payload words a message
  lm_recv_.resize(remote);
  // Twice: the layout's size first (the buffers must not move once sent).
  for (int pass = 0; pass < 2; pass++) {
    const bool send = pass == 1;
    wparts_.clear();
    reqs_.clear();
    size_t sp = 0, rp = 0;
    for (int r = 0; r < nranks_; r++) {
      size_t head_at = SIZE_MAX, used = 0, parts = 0, total = 0, reply_at = 0;
      auto finish = [&] {
        if (head_at == SIZE_MAX) return;
        if (send) {
          uint64_t* m = &lm_send_[head_at];
          m[0] = head(kOpWords, Seg::Meta);
          m[1] = 0;
          m[2] = parts;
          m[3] = total;
          reqs_.push_back(MPI_REQUEST_NULL);
          check(MPI_Irecv(&lm_recv_[reply_at], (int)(total * 8), MPI_BYTE, r, kTagReply, acomm_, &reqs_.back()),
                "MPI_Irecv");
          reqs_.push_back(MPI_REQUEST_NULL);
          check(MPI_Isend(m, (int)((kHdrWords + used) * 8), MPI_BYTE, r, kTagReq, acomm_, &reqs_.back()),
                "MPI_Isend");
        }
        head_at = SIZE_MAX;
      };
      bool any = false;
      for (size_t j = 0; j < k; j++) any |= wg_[j].start[r + 1] > wg_[j].start[r];
      if (any && send) send_batch(r);  // this rank's puts first
      for (size_t j = 0; j < k; j++) {
        const WordsByRank& w = wg_[j];
        for (size_t i = w.start[r]; i < w.start[r + 1];) {
          if (head_at != SIZE_MAX && used + 4 > kCap) finish();
          if (head_at == SIZE_MAX) {
            head_at = sp;
            sp += kHdrWords;
            used = parts = total = 0;
            reply_at = rp;
          }
          const size_t n = std::min(w.start[r + 1] - i, kCap - used - 3);
          if (send) {
            uint64_t* part = &lm_send_[sp];
            part[0] = (uint64_t)g[j].op | (uint64_t)n << 8;
            part[1] = g[j].a;
            part[2] = g[j].b;
            for (size_t x = 0; x < n; x++) part[3 + x] = w.off[w.order[i + x]];
            wparts_.push_back(WordPart{j, i, n, rp});
          }
          sp += 3 + n;
          used += 3 + n;
          rp += n;
          parts++;
          total += n;
          i += n;
        }
      }
      finish();
    }
    if (!send) lm_send_.resize(sp);
  }
  wait_mine((int)reqs_.size(), reqs_.data());
  for (const WordPart& p : wparts_)
    for (size_t x = 0; x < p.n; x++) g[p.group].out[wg_[p.group].order[p.first + x]] = lm_recv_[p.reply + x];
}

void AsyncPath::or_range(int r, Seg s, uint64_t off, size_t n, uint64_t bits, uint64_t* old, uint64_t count_off) {
  for (size_t i = 0; i < n; i += kMaxLoads) {
    const size_t cnt = std::min(kMaxLoads, n - i);
    send_batch(r);
    // A fifth word, with the last request only: the count to raise after.
    const bool count = count_off != kNoCount && i + cnt == n;
    uint64_t m[kHdrWords + 1] = {head(kOpOrRange, s), off + i * 8, cnt, bits, count_off};
    or_old_.resize(cnt);
    MPI_Request rq[2];
    check(MPI_Irecv(or_old_.data(), (int)(cnt * 8), MPI_BYTE, r, kTagReply, acomm_, &rq[0]), "MPI_Irecv");
    check(MPI_Isend(m, (int)((kHdrWords + (count ? 1 : 0)) * 8), MPI_BYTE, r, kTagReq, acomm_, &rq[1]), "MPI_Isend");
    wait_mine(2, rq);
    if (old) std::memcpy(old + i, or_old_.data(), cnt * 8);
  }
}

}  // namespace loom
