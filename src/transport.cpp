// Transport implementation.  rma: direct mapping between ranks of one host,
// MPI-3 one-sided windows to the rest.  async: requests to a protocol thread
// on every rank (the section "async" below).  See transport.hpp for the
// contract and docs/ARCHITECTURE.md for the measurements behind the choice.
#include "transport.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

namespace loom {
namespace {

constexpr int kMaxHost = 256;

struct Exposed {
  int pid;
  int data_fd;
  int meta_fd;
  char host[kMaxHost];
};

void check(int err, const char* what) {
  if (err != MPI_SUCCESS) {
    Status s = fail_mpi(err, what);
    (void)s;
    fatal("%s", last_error());
  }
}

Status make_memfd(const char* name, uint64_t size, int* fd_out) {
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return fail_errno(LOOM_ERR_SYSTEM, "memfd_create");
  if (ftruncate(fd, (off_t)size) != 0) {
    Status s = fail_errno(LOOM_ERR_SYSTEM, "ftruncate of the shared-memory file");
    close(fd);
    return s;
  }
  *fd_out = fd;
  return Status::ok();
}

void* map_fd(int fd, uint64_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// Map a same-host peer's memfd through /proc.  Returns nullptr (and the
// caller treats the peer as remote) when the kernel refuses.
void* map_peer(int pid, int fd, uint64_t size) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
  int local = open(path, O_RDWR | O_CLOEXEC);
  if (local < 0) return nullptr;
  void* p = map_fd(local, size);
  close(local);
  return p;
}

std::atomic<bool> g_progress_stop{false};

// async: the operations a request names (word 0 of a message, low half).
enum : uint32_t {
  kOpGet = 1,      // reply: the bytes
  kOpPuts = 2,     // records {seg | len << 8, off, bytes padded to 8}; no reply
  kOpPutsAck = 3,  // the same, then a reply of one word once applied
  kOpLoad = 4,     // atomics: reply one word (the old value; store replies 0)
  kOpStore = 5,
  kOpCas = 6,
  kOpAdd = 7,
  kOpOr = 8,
  kOpSwap = 9,
  kOpLoads = 10,   // n Meta offsets follow the header; reply n words
  kOpStop = 11,    // from this rank itself at finalize: the thread exits
  kOpOrRange = 12, // OR b into a words from off; reply their old values
};

}  // namespace

Status Transport::init(MPI_Comm comm, const TransportOptions& opt) {
  opt_ = opt;
  if (opt_.spin < 0) opt_.spin = 0;
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &nranks_);
  peers_.assign(nranks_, Peer{});

  uint8_t* meta_map = nullptr;
  Status local = [&]() -> Status {
    if (opt.kind == LOOM_TRANSPORT_ASYNC) {
      // The protocol thread calls MPI while the application thread does.
      int level = 0;
      MPI_Query_thread(&level);
      if (level < MPI_THREAD_MULTIPLE)
        return fail(LOOM_ERR_MPI,
                    "LOOM_TRANSPORT=async needs MPI_THREAD_MULTIPLE for its protocol thread, but MPI was "
                    "initialized with thread level %d (initialize MPI with MPI_Init_thread(..., "
                    "MPI_THREAD_MULTIPLE, ...), or let loom_init do it, or use LOOM_TRANSPORT=rma)",
                    level);
    }
    LOOM_TRY(make_memfd("loom-data", opt.data_size, &data_fd_));
    self_data_ = (uint8_t*)map_fd(data_fd_, opt.data_size);
    if (!self_data_) return fail_errno(LOOM_ERR_SYSTEM, "mmap of this rank's data segment");
    LOOM_TRY(make_memfd("loom-meta", opt.meta_size, &meta_fd_));
    meta_map = (uint8_t*)map_fd(meta_fd_, opt.meta_size);
    if (!meta_map) return fail_errno(LOOM_ERR_SYSTEM, "mmap of this rank's metadata segment");
    return Status::ok();
  }();
  // Agree before any further collective, so that one rank's failure is every
  // rank's error instead of a hang.
  int ok = local.is_ok() ? 1 : 0, all_ok = 0;
  check(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
  if (!all_ok) {
    if (meta_map) munmap(meta_map, opt.meta_size);
    if (self_data_) munmap(self_data_, opt.data_size);
    if (data_fd_ >= 0) close(data_fd_);
    if (meta_fd_ >= 0) close(meta_fd_);
    self_data_ = nullptr;
    data_fd_ = meta_fd_ = -1;
    MPI_Comm_free(&comm_);
    if (ok) return fail(LOOM_ERR_SYSTEM, "another rank could not set up its transport (see that rank's error)");
    return local;
  }
  if (opt.kind == LOOM_TRANSPORT_ASYNC) return init_async(meta_map);

  // Who shares this host?  Ranks in one MPI shared-memory communicator do;
  // the host name guards against an MPI that splits differently.
  Exposed me{};
  me.pid = getpid();
  me.data_fd = data_fd_;
  me.meta_fd = meta_fd_;
  gethostname(me.host, kMaxHost - 1);
  std::vector<Exposed> all(nranks_);
  check(MPI_Allgather(&me, sizeof me, MPI_BYTE, all.data(), sizeof me, MPI_BYTE, comm_), "MPI_Allgather");
  MPI_Comm node;
  check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  MPI_Group wg, ng;
  MPI_Comm_group(comm_, &wg);
  MPI_Comm_group(node, &ng);
  int nnode;
  MPI_Comm_size(node, &nnode);
  std::vector<int> nr(nnode), wr(nnode);
  for (int i = 0; i < nnode; i++) nr[i] = i;
  MPI_Group_translate_ranks(ng, nnode, nr.data(), wg, wr.data());
  MPI_Group_free(&wg);
  MPI_Group_free(&ng);
  MPI_Comm_free(&node);

  bool local_remote = false;
  std::vector<bool> same_host(nranks_, false);
  for (int r : wr) same_host[r] = std::strcmp(all[r].host, me.host) == 0;
  for (int r = 0; r < nranks_; r++) {
    if (r == rank_) {
      peers_[r].data = self_data_;
      peers_[r].meta = meta_map;
      continue;
    }
    if (opt.local_map && same_host[r]) {
      peers_[r].data = (uint8_t*)map_peer(all[r].pid, all[r].data_fd, opt.data_size);
      peers_[r].meta = (uint8_t*)map_peer(all[r].pid, all[r].meta_fd, opt.meta_size);
      if (!peers_[r].data || !peers_[r].meta) {
        if (peers_[r].data) munmap(peers_[r].data, opt.data_size);
        if (peers_[r].meta) munmap(peers_[r].meta, opt.meta_size);
        peers_[r] = Peer{};
      }
    }
    if (!peers_[r].data) local_remote = true;
  }
  int any = local_remote ? 1 : 0, all_any = 0;
  check(MPI_Allreduce(&any, &all_any, 1, MPI_INT, MPI_MAX, comm_), "MPI_Allreduce");
  any_remote_ = all_any != 0;

  if (any_remote_) {
    // Every atomic must go through MPI now (see the atomicity rule), so the
    // metadata lives in an MPI-allocated window; direct peers keep only Data.
    for (int r = 0; r < nranks_; r++)
      if (r != rank_ && peers_[r].meta) {
        munmap(peers_[r].meta, opt.meta_size);
        peers_[r].meta = nullptr;
      }
    munmap(meta_map, opt.meta_size);
    close(meta_fd_);
    meta_fd_ = -1;
    peers_[rank_].meta = nullptr;
    void* base = nullptr;
    check(MPI_Win_allocate((MPI_Aint)opt.meta_size, 1, MPI_INFO_NULL, comm_, &base, &meta_win_), "MPI_Win_allocate");
    self_meta_ = (uint8_t*)base;
    std::memset(self_meta_, 0, opt.meta_size);
    check(MPI_Win_create(self_data_, (MPI_Aint)opt.data_size, 1, MPI_INFO_NULL, comm_, &data_win_), "MPI_Win_create");
    check(MPI_Win_lock_all(MPI_MODE_NOCHECK, meta_win_), "MPI_Win_lock_all");
    check(MPI_Win_lock_all(MPI_MODE_NOCHECK, data_win_), "MPI_Win_lock_all");
    check(MPI_Barrier(comm_), "MPI_Barrier");
    if (opt.progress == 1 || (opt.progress == -1 && local_remote)) start_progress();
  } else {
    self_meta_ = meta_map;
    check(MPI_Barrier(comm_), "MPI_Barrier");
  }
  return Status::ok();
}

int Transport::direct_peers() const {
  int n = 0;
  for (int r = 0; r < nranks_; r++) n += (r != rank_ && peers_[r].data) ? 1 : 0;
  return n;
}

void Transport::start_progress() {
  int level = 0;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_MULTIPLE) {
    Status s = fail(LOOM_ERR_MPI,
                    "the MPI library gives thread level %d, not MPI_THREAD_MULTIPLE, so no progress thread runs: "
                    "page fetches from a computing rank wait until it calls MPI (initialize MPI with "
                    "MPI_THREAD_MULTIPLE or let loom_init do it)",
                    level);
    (void)s;
    return;
  }
  g_progress_stop = false;
  MPI_Comm pc;
  MPI_Comm_dup(comm_, &pc);
  progress_ = new std::thread([pc]() mutable {
    // Calling into MPI is what makes MPICH and Open MPI serve RMA requests
    // that target this rank's MPI_Win_create window.
    while (!g_progress_stop.load(std::memory_order_relaxed)) {
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, 0x4c4f, pc, &flag, MPI_STATUS_IGNORE);
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    MPI_Comm_free(&pc);
  });
  progress_on_ = true;
}

void Transport::finalize() {
  if (async_) finalize_async();
  if (progress_) {
    g_progress_stop = true;
    auto* t = static_cast<std::thread*>(progress_);
    t->join();
    delete t;
    progress_ = nullptr;
    progress_on_ = false;
  }
  if (data_win_ != MPI_WIN_NULL) {
    MPI_Win_unlock_all(data_win_);
    MPI_Win_free(&data_win_);
  }
  if (meta_win_ != MPI_WIN_NULL) {
    MPI_Win_unlock_all(meta_win_);
    MPI_Win_free(&meta_win_);
    self_meta_ = nullptr;
  }
  for (int r = 0; r < nranks_ && !peers_.empty(); r++) {
    if (peers_[r].data) munmap(peers_[r].data, opt_.data_size);
    if (peers_[r].meta) munmap(peers_[r].meta, opt_.meta_size);
  }
  peers_.clear();
  self_data_ = nullptr;
  self_meta_ = nullptr;
  if (data_fd_ >= 0) close(data_fd_);
  if (meta_fd_ >= 0) close(meta_fd_);
  data_fd_ = meta_fd_ = -1;
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  async_ = false;
  any_remote_ = false;
  batch_.clear();
}

void Transport::get(int r, Seg s, uint64_t off, void* dst, size_t len) {
  if (s == Seg::Data ? peers_[r].data != nullptr : peers_[r].meta != nullptr) {
    std::memcpy(dst, direct_ptr(r, s, off), len);
    return;
  }
  if (async_) return async_get(r, s, off, dst, len);
  MPI_Win w = win(s);
  check(MPI_Get(dst, (int)len, MPI_BYTE, r, (MPI_Aint)off, (int)len, MPI_BYTE, w), "MPI_Get");
  check(MPI_Win_flush(r, w), "MPI_Win_flush");
}

void Transport::put(int r, Seg s, uint64_t off, const void* src, size_t len) {
  if (s == Seg::Data ? peers_[r].data != nullptr : peers_[r].meta != nullptr) {
    std::memcpy(direct_ptr(r, s, off), src, len);
    return;
  }
  if (async_) return async_put(r, s, off, src, len);
  check(MPI_Put(src, (int)len, MPI_BYTE, r, (MPI_Aint)off, (int)len, MPI_BYTE, win(s)), "MPI_Put");
  dirty_puts_ = true;
}

void Transport::flush() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (async_) return async_flush();
  if (dirty_puts_) {
    check(MPI_Win_flush_all(data_win_), "MPI_Win_flush_all");
    check(MPI_Win_flush_all(meta_win_), "MPI_Win_flush_all");
    dirty_puts_ = false;
  }
}

void Transport::sync_local() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (any_remote_ && !async_) {
    check(MPI_Win_sync(data_win_), "MPI_Win_sync");
    check(MPI_Win_sync(meta_win_), "MPI_Win_sync");
  }
}

uint64_t Transport::mpi_atomic(int r, Seg s, uint64_t off, const uint64_t* origin, const uint64_t* compare, MPI_Op op) {
  uint64_t result = 0;
  MPI_Win w = win(s);
  if (compare)
    check(MPI_Compare_and_swap(origin, compare, &result, MPI_UINT64_T, r, (MPI_Aint)off, w), "MPI_Compare_and_swap");
  else
    check(MPI_Fetch_and_op(origin, &result, MPI_UINT64_T, r, (MPI_Aint)off, op, w), "MPI_Fetch_and_op");
  check(MPI_Win_flush(r, w), "MPI_Win_flush");
  return result;
}

static inline uint64_t* word(uint8_t* p) { return reinterpret_cast<uint64_t*>(p); }

uint64_t Transport::load(int r, Seg s, uint64_t off) {
  if (atomics_direct(r)) return __atomic_load_n(word(direct_ptr(r, s, off)), __ATOMIC_ACQUIRE);
  if (async_) return rpc_word(r, kOpLoad, s, off, 0, 0);
  uint64_t zero = 0;
  return mpi_atomic(r, s, off, &zero, nullptr, MPI_NO_OP);
}

void Transport::store(int r, Seg s, uint64_t off, uint64_t v) {
  if (atomics_direct(r)) {
    __atomic_store_n(word(direct_ptr(r, s, off)), v, __ATOMIC_RELEASE);
    return;
  }
  if (async_) {
    rpc_word(r, kOpStore, s, off, v, 0);
    return;
  }
  mpi_atomic(r, s, off, &v, nullptr, MPI_REPLACE);
}

uint64_t Transport::cas(int r, Seg s, uint64_t off, uint64_t expected, uint64_t desired) {
  if (atomics_direct(r)) {
    __atomic_compare_exchange_n(word(direct_ptr(r, s, off)), &expected, desired, false, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    return expected;  // holds the old value either way
  }
  if (async_) return rpc_word(r, kOpCas, s, off, expected, desired);
  return mpi_atomic(r, s, off, &desired, &expected, MPI_OP_NULL);
}

uint64_t Transport::fetch_add(int r, Seg s, uint64_t off, uint64_t v) {
  if (atomics_direct(r)) return __atomic_fetch_add(word(direct_ptr(r, s, off)), v, __ATOMIC_ACQ_REL);
  if (async_) return rpc_word(r, kOpAdd, s, off, v, 0);
  return mpi_atomic(r, s, off, &v, nullptr, MPI_SUM);
}

uint64_t Transport::fetch_or(int r, Seg s, uint64_t off, uint64_t v) {
  if (atomics_direct(r)) return __atomic_fetch_or(word(direct_ptr(r, s, off)), v, __ATOMIC_ACQ_REL);
  if (async_) return rpc_word(r, kOpOr, s, off, v, 0);
  return mpi_atomic(r, s, off, &v, nullptr, MPI_BOR);
}

uint64_t Transport::swap(int r, Seg s, uint64_t off, uint64_t v) {
  if (atomics_direct(r)) return __atomic_exchange_n(word(direct_ptr(r, s, off)), v, __ATOMIC_ACQ_REL);
  if (async_) return rpc_word(r, kOpSwap, s, off, v, 0);
  return mpi_atomic(r, s, off, &v, nullptr, MPI_REPLACE);
}

void Transport::load_many(size_t n, void (*at)(size_t, int*, uint64_t*), uint64_t* out) {
  if (n == 0) return;
  if (async_) return async_load_many(n, at, out);
  if (!any_remote_) {
    for (size_t i = 0; i < n; i++) {
      int r;
      uint64_t off;
      at(i, &r, &off);
      out[i] = __atomic_load_n(word(direct_ptr(r, Seg::Meta, off)), __ATOMIC_ACQUIRE);
    }
    return;
  }
  uint64_t zero = 0;
  for (size_t i = 0; i < n; i++) {
    int r;
    uint64_t off;
    at(i, &r, &off);
    check(MPI_Get_accumulate(&zero, 1, MPI_UINT64_T, &out[i], 1, MPI_UINT64_T, r, (MPI_Aint)off, 1, MPI_UINT64_T,
                             MPI_NO_OP, meta_win_),
          "MPI_Get_accumulate");
  }
  check(MPI_Win_flush_all(meta_win_), "MPI_Win_flush_all");
}


// ---------------------------------------------------------------------------
// async: two-sided requests served by a protocol thread on every rank.
//
// A message is a header of four words {op | seg << 32, off, a, b} followed,
// for put batches and load_many, by a payload:
//   get      a = length; the reply (tag kTagReply) is the bytes themselves,
//            received straight into the caller's buffer.
//   atomics  a, b = operands (cas: expected, desired); reply one word.
//   puts     records {seg | len << 8, off} + len bytes padded to 8, at most
//            kBatchBytes per message; kOpPutsAck replies one word when done.
//   loads    a = n, then n Meta offsets; reply n words.
// Requests go to tag kTagReq (only the protocol thread receives it), replies
// to tag kTagReply (only the application thread receives it), both on a
// private duplicate of the communicator.  The application thread has at
// most one reply outstanding per target (several for one load_many, posted
// in the order the requests are sent), and a target's protocol thread
// handles one sender's messages in the order sent, so replies match by
// order alone and unacknowledged put batches are applied before any later
// request from the same rank.
// ---------------------------------------------------------------------------

namespace {

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
constexpr long kNapMaxNs = 200000;
constexpr uint64_t kSliceNs = 100000;        // scheduler slice it asks for

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

inline long mono_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

// Wait for n requests: poll `spin` times, then yield the core on every poll
// (several ranks per core must progress; MPICH's blocking calls poll without
// yielding).
void wait_all(int n, MPI_Request* rq, int spin) {
  for (int polls = 0;;) {
    int done = 0;
    check(MPI_Testall(n, rq, &done, MPI_STATUSES_IGNORE), "MPI_Testall");
    if (done) return;
    if (++polls > spin) sched_yield();
    else relax();
  }
}

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

}  // namespace

Status Transport::init_async(uint8_t* meta_map) {
  async_ = true;
  any_remote_ = nranks_ > 1;  // no peer is mapped
  self_meta_ = meta_map;
  peers_[rank_].data = self_data_;
  peers_[rank_].meta = meta_map;
  batch_.assign(nranks_, Batch{});
  acks_.assign(nranks_, 0);
  lm_start_.assign(nranks_ + 1, 0);
  check(MPI_Comm_dup(comm_, &acomm_), "MPI_Comm_dup");
  if (nranks_ > 1) {
    // The thread takes no asynchronous signals: they stay the application's.
    sigset_t all, old;
    sigfillset(&all);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT}) sigdelset(&all, sig);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    progress_ = new std::thread([this] { serve(); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    progress_on_ = true;
  }
  check(MPI_Barrier(comm_), "MPI_Barrier");
  return Status::ok();
}

// Collective.  Every rank's requests are complete once it reaches the
// barrier (gets and atomics wait for their replies, puts are flushed here),
// so after it no request is in flight: each rank stops its own thread with a
// message to itself, which is the last message the thread receives.
void Transport::finalize_async() {
  async_flush();
  if (progress_) {
    MPI_Request rq;
    check(MPI_Ibarrier(comm_, &rq), "MPI_Ibarrier");
    wait_all(1, &rq, opt_.spin);
    uint64_t m[kHdrWords] = {head(kOpStop, Seg::Meta), 0, 0, 0};
    check(MPI_Isend(m, (int)sizeof m, MPI_BYTE, rank_, kTagReq, acomm_, &rq), "MPI_Isend");
    wait_all(1, &rq, opt_.spin);
    auto* t = static_cast<std::thread*>(progress_);
    t->join();
    delete t;
    progress_ = nullptr;
    progress_on_ = false;
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
// 5-20 ms); then nap, 10 us doubling to 200 us, with a 100 us slice while
// napping (the default slice again before yielding: with a short slice a
// yield hardly gives the core away).
// Measured on 2 cores (medians of runs with other jobs on the machine):
//   yield-then-nap without the rules: barrier 2 ranks 7 us, 4 ranks 46 us;
//     a 2-rank Jacobi sweep 5-6 ms against 2 ms on rma (page requests
//     waited a slice behind the home's computation);
//   naps only: Jacobi 3-3.7 ms/sweep, barrier 2 ranks 40-90 us, 4 ranks 370 us;
//   these rules: barrier 7 / 46 us, Jacobi 4-4.6 ms/sweep; and mr_busy_home
//     (4 ranks, the home computing) with two CPU hogs running failed its
//     deadline 5 times in 6 without the short slice, 0 in 12 with it.
void Transport::serve() {
  pthread_setname_np(pthread_self(), "loom-async");
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);  // naps of microseconds, not +50 us
  std::vector<uint64_t> in(kMsgWords), out;
  long ban_until = 0, ban_len = kBanMinNs;
  int fast_yields = 0;
  bool short_slice = false;
  for (;;) {
    MPI_Request rq;
    MPI_Status st;
    check(MPI_Irecv(in.data(), (int)(kMsgWords * 8), MPI_BYTE, MPI_ANY_SOURCE, kTagReq, acomm_, &rq), "MPI_Irecv");
    long idle_since = 0, nap = kNapMinNs;
    for (int polls = 0;;) {
      int flag = 0;
      check(MPI_Test(&rq, &flag, &st), "MPI_Test");
      if (flag) break;
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
        timespec ts{0, nap};
        nanosleep(&ts, nullptr);
        nap = std::min(2 * nap, kNapMaxNs);
      }
    }
    int bytes = 0;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    if (bytes < (int)(kHdrWords * 8)) fatal("async transport: a request of %d bytes from rank %d", bytes, st.MPI_SOURCE);
    if ((uint32_t)in[0] == kOpStop) {
      if (st.MPI_SOURCE != rank_) fatal("async transport: a stop request from rank %d", st.MPI_SOURCE);
      return;
    }
    serve_one(st.MPI_SOURCE, in.data(), bytes, out);
  }
}

// Perform one request on this rank's own memory and reply.
void Transport::serve_one(int src, const uint64_t* m, int bytes, std::vector<uint64_t>& out) {
  const uint32_t op = (uint32_t)m[0];
  const Seg seg = (Seg)(int)(m[0] >> 32);
  const uint64_t off = m[1], a = m[2], b = m[3];
  auto base = [&](Seg s) { return s == Seg::Data ? self_data_ : self_meta_; };
  auto inside = [&](Seg s, uint64_t o, uint64_t len) {
    uint64_t size = s == Seg::Data ? opt_.data_size : opt_.meta_size;
    if ((s != Seg::Data && s != Seg::Meta) || o > size || len > size - o)
      fatal("async transport: rank %d asked for bytes [%llu, +%llu) of segment %d", src, (unsigned long long)o,
            (unsigned long long)len, (int)s);
  };
  auto reply = [&](const void* p, size_t len) {
    MPI_Request rq;
    check(MPI_Isend(p, (int)len, MPI_BYTE, src, kTagReply, acomm_, &rq), "MPI_Isend");
    wait_all(1, &rq, opt_.spin);
  };
  switch (op) {
    case kOpGet:
      inside(seg, off, a);
      if (a > kGetChunk) fatal("async transport: a get of %llu bytes", (unsigned long long)a);
      reply(base(seg) + off, a);
      return;
    case kOpPuts:
    case kOpPutsAck: {
      const uint8_t* p = reinterpret_cast<const uint8_t*>(m + kHdrWords);
      const uint8_t* end = reinterpret_cast<const uint8_t*>(m) + bytes;
      while (p < end) {
        uint64_t rec[2];
        std::memcpy(rec, p, sizeof rec);
        const Seg s = (Seg)(int)(rec[0] & 0xff);
        const uint64_t len = rec[0] >> 8;
        p += sizeof rec;
        if (len > (uint64_t)(end - p)) fatal("async transport: a malformed put batch from rank %d", src);
        inside(s, rec[1], len);
        std::memcpy(base(s) + rec[1], p, len);
        p += (len + 7) & ~uint64_t(7);
      }
      // The bytes are in place before the acknowledgement, or before any
      // later request of the sender is served (this thread, in order).
      std::atomic_thread_fence(std::memory_order_release);
      if (op == kOpPutsAck) {
        static const uint64_t done = 1;
        reply(&done, 8);
      }
      return;
    }
    case kOpLoads: {
      const uint64_t n = a;
      if (n > kMaxLoads || (uint64_t)bytes < (kHdrWords + n) * 8)
        fatal("async transport: a malformed load request from rank %d", src);
      out.resize(n);
      for (uint64_t i = 0; i < n; i++) {
        const uint64_t o = m[kHdrWords + i];
        inside(Seg::Meta, o, 8);
        if (o % 8) fatal("async transport: an unaligned atomic at %llu from rank %d", (unsigned long long)o, src);
        out[i] = __atomic_load_n(reinterpret_cast<uint64_t*>(self_meta_ + o), __ATOMIC_ACQUIRE);
      }
      reply(out.data(), n * 8);
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
      out[i] = __atomic_fetch_or(reinterpret_cast<uint64_t*>(base(seg) + off + i * 8), b, __ATOMIC_ACQ_REL);
    reply(out.data(), a * 8);
    return;
  }
  inside(seg, off, 8);
  if (off % 8) fatal("async transport: an unaligned atomic at %llu from rank %d", (unsigned long long)off, src);
  uint64_t* w = reinterpret_cast<uint64_t*>(base(seg) + off);
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

uint64_t Transport::rpc_word(int r, uint32_t op, Seg s, uint64_t off, uint64_t a, uint64_t b) {
  send_batch(r);
  uint64_t m[kHdrWords] = {head(op, s), off, a, b}, result = 0;
  MPI_Request rq[2];
  check(MPI_Irecv(&result, 8, MPI_BYTE, r, kTagReply, acomm_, &rq[0]), "MPI_Irecv");
  check(MPI_Isend(m, (int)sizeof m, MPI_BYTE, r, kTagReq, acomm_, &rq[1]), "MPI_Isend");
  wait_all(2, rq, opt_.spin);
  return result;
}

void Transport::async_get(int r, Seg s, uint64_t off, void* dst, size_t len) {
  send_batch(r);
  uint8_t* d = static_cast<uint8_t*>(dst);
  while (len > 0) {
    const size_t n = std::min(len, kGetChunk);
    uint64_t m[kHdrWords] = {head(kOpGet, s), off, n, 0};
    MPI_Request rq[2];
    check(MPI_Irecv(d, (int)n, MPI_BYTE, r, kTagReply, acomm_, &rq[0]), "MPI_Irecv");
    check(MPI_Isend(m, (int)sizeof m, MPI_BYTE, r, kTagReq, acomm_, &rq[1]), "MPI_Isend");
    wait_all(2, rq, opt_.spin);
    d += n;
    off += n;
    len -= n;
  }
}

void Transport::send_batch(int r) {
  Batch& b = batch_[r];
  if (b.used == 0) return;
  b.buf[0] = head(kOpPuts, Seg::Data);
  MPI_Request rq;
  check(MPI_Isend(b.buf.data(), (int)(kHdrWords * 8 + b.used), MPI_BYTE, r, kTagReq, acomm_, &rq), "MPI_Isend");
  wait_all(1, &rq, opt_.spin);
  b.used = 0;
}

void Transport::async_put(int r, Seg s, uint64_t off, const void* src, size_t len) {
  Batch& b = batch_[r];
  if (b.buf.empty()) b.buf.assign(kMsgWords, 0);
  const uint8_t* p = static_cast<const uint8_t*>(src);
  b.unacked = true;
  while (len > 0) {
    if (b.used + 16 + 8 > kBatchBytes) send_batch(r);
    const size_t n = std::min(len, (kBatchBytes - b.used - 16) & ~size_t(7));
    uint8_t* at = reinterpret_cast<uint8_t*>(b.buf.data() + kHdrWords) + b.used;
    const uint64_t rec[2] = {(uint64_t)(int)s | ((uint64_t)n << 8), off};
    std::memcpy(at, rec, sizeof rec);
    std::memcpy(at + sizeof rec, p, n);
    b.used += sizeof rec + ((n + 7) & ~size_t(7));
    p += n;
    off += n;
    len -= n;
  }
}

// Send every written rank its last batch (possibly only the header) asking
// for an acknowledgement, and wait for all of them: one round trip, to all
// targets at once.
void Transport::async_flush() {
  reqs_.clear();
  for (int r = 0; r < nranks_; r++) {
    Batch& b = batch_[r];
    if (!b.unacked) continue;
    b.buf[0] = head(kOpPutsAck, Seg::Data);
    reqs_.push_back(MPI_REQUEST_NULL);
    check(MPI_Irecv(&acks_[r], 8, MPI_BYTE, r, kTagReply, acomm_, &reqs_.back()), "MPI_Irecv");
    reqs_.push_back(MPI_REQUEST_NULL);
    check(MPI_Isend(b.buf.data(), (int)(kHdrWords * 8 + b.used), MPI_BYTE, r, kTagReq, acomm_, &reqs_.back()),
          "MPI_Isend");
  }
  if (reqs_.empty()) return;
  wait_all((int)reqs_.size(), reqs_.data(), opt_.spin);
  for (Batch& b : batch_) {
    b.used = 0;
    b.unacked = false;
  }
}

void Transport::async_load_many(size_t n, void (*at)(size_t, int*, uint64_t*), uint64_t* out) {
  // Sort the words by rank (counting sort); this rank's own are read here.
  lm_rank_.resize(n);
  lm_off_.resize(n);
  std::fill(lm_start_.begin(), lm_start_.end(), 0);
  for (size_t i = 0; i < n; i++) {
    at(i, &lm_rank_[i], &lm_off_[i]);
    if (lm_rank_[i] == rank_) {
      out[i] = __atomic_load_n(word(self_meta_ + lm_off_[i]), __ATOMIC_ACQUIRE);
      lm_rank_[i] = -1;
    } else {
      lm_start_[lm_rank_[i] + 1]++;
    }
  }
  for (int r = 0; r < nranks_; r++) lm_start_[r + 1] += lm_start_[r];
  const size_t remote = lm_start_[nranks_];
  if (remote == 0) return;
  lm_order_.resize(remote);
  {
    std::vector<size_t>& fill = lm_start_;  // advanced per rank, restored below
    for (size_t i = 0; i < n; i++)
      if (lm_rank_[i] >= 0) lm_order_[fill[lm_rank_[i]]++] = i;
    for (int r = nranks_; r > 0; r--) fill[r] = fill[r - 1];
    fill[0] = 0;
  }
  // One message per rank and kMaxLoads words; every reply is posted before
  // any request leaves, in the order of the requests to each rank.
  size_t msgs = 0;
  for (int r = 0; r < nranks_; r++) msgs += (lm_start_[r + 1] - lm_start_[r] + kMaxLoads - 1) / kMaxLoads;
  lm_send_.resize(msgs * kHdrWords + remote);
  lm_recv_.resize(remote);
  reqs_.assign(2 * msgs, MPI_REQUEST_NULL);
  size_t sp = 0, k = 0;
  for (int r = 0; r < nranks_; r++) {
    if (lm_start_[r + 1] > lm_start_[r]) send_batch(r);
    for (size_t j = lm_start_[r]; j < lm_start_[r + 1]; j += kMaxLoads) {
      const size_t cnt = std::min(kMaxLoads, lm_start_[r + 1] - j);
      uint64_t* m = &lm_send_[sp];
      m[0] = head(kOpLoads, Seg::Meta);
      m[1] = 0;
      m[2] = cnt;
      m[3] = 0;
      for (size_t q = 0; q < cnt; q++) m[kHdrWords + q] = lm_off_[lm_order_[j + q]];
      check(MPI_Irecv(&lm_recv_[j], (int)(cnt * 8), MPI_BYTE, r, kTagReply, acomm_, &reqs_[k++]), "MPI_Irecv");
      check(MPI_Isend(m, (int)((kHdrWords + cnt) * 8), MPI_BYTE, r, kTagReq, acomm_, &reqs_[k++]), "MPI_Isend");
      sp += kHdrWords + cnt;
    }
  }
  wait_all((int)reqs_.size(), reqs_.data(), opt_.spin);
  for (size_t j = 0; j < remote; j++) out[lm_order_[j]] = lm_recv_[j];
}

void Transport::or_range(int r, Seg s, uint64_t off, size_t n, uint64_t bits, uint64_t* old) {
  if (n == 0) return;
  if (atomics_direct(r)) {
    for (size_t i = 0; i < n; i++) {
      uint64_t o = __atomic_fetch_or(word(direct_ptr(r, s, off + i * 8)), bits, __ATOMIC_ACQ_REL);
      if (old) old[i] = o;
    }
    return;
  }
  if (async_) {
    for (size_t i = 0; i < n; i += kMaxLoads) {
      const size_t cnt = std::min(kMaxLoads, n - i);
      send_batch(r);
      uint64_t m[kHdrWords] = {head(kOpOrRange, s), off + i * 8, cnt, bits};
      or_old_.resize(cnt);
      MPI_Request rq[2];
      check(MPI_Irecv(or_old_.data(), (int)(cnt * 8), MPI_BYTE, r, kTagReply, acomm_, &rq[0]), "MPI_Irecv");
      check(MPI_Isend(m, (int)sizeof m, MPI_BYTE, r, kTagReq, acomm_, &rq[1]), "MPI_Isend");
      wait_all(2, rq, opt_.spin);
      if (old) std::memcpy(old + i, or_old_.data(), cnt * 8);
    }
    return;
  }
  or_buf_.assign(n, bits);
  or_old_.resize(n);
  MPI_Win w = win(s);
  check(MPI_Get_accumulate(or_buf_.data(), (int)n, MPI_UINT64_T, or_old_.data(), (int)n, MPI_UINT64_T, r, (MPI_Aint)off,
                           (int)n, MPI_UINT64_T, MPI_BOR, w),
        "MPI_Get_accumulate");
  check(MPI_Win_flush(r, w), "MPI_Win_flush");
  if (old) std::memcpy(old, or_old_.data(), n * 8);
}

}  // namespace loom
