// Transport implementation: direct mapping between ranks of one host, MPI-3
// one-sided windows to the rest.  See transport.hpp for the contract and
// docs/ARCHITECTURE.md for the measurements behind the choice.
#include "transport.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

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

}  // namespace

Status Transport::init(MPI_Comm comm, const TransportOptions& opt) {
  opt_ = opt;
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &nranks_);
  peers_.assign(nranks_, Peer{});

  uint8_t* meta_map = nullptr;
  Status local = [&]() -> Status {
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
    if (ok) return fail(LOOM_ERR_SYSTEM, "another rank could not create its shared-memory segments");
    return local;
  }

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
}

void Transport::get(int r, Seg s, uint64_t off, void* dst, size_t len) {
  if (s == Seg::Data ? peers_[r].data != nullptr : peers_[r].meta != nullptr) {
    std::memcpy(dst, direct_ptr(r, s, off), len);
    return;
  }
  MPI_Win w = win(s);
  check(MPI_Get(dst, (int)len, MPI_BYTE, r, (MPI_Aint)off, (int)len, MPI_BYTE, w), "MPI_Get");
  check(MPI_Win_flush(r, w), "MPI_Win_flush");
}

void Transport::put(int r, Seg s, uint64_t off, const void* src, size_t len) {
  if (s == Seg::Data ? peers_[r].data != nullptr : peers_[r].meta != nullptr) {
    std::memcpy(direct_ptr(r, s, off), src, len);
    return;
  }
  check(MPI_Put(src, (int)len, MPI_BYTE, r, (MPI_Aint)off, (int)len, MPI_BYTE, win(s)), "MPI_Put");
  dirty_puts_ = true;
}

void Transport::flush() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (dirty_puts_) {
    check(MPI_Win_flush_all(data_win_), "MPI_Win_flush_all");
    check(MPI_Win_flush_all(meta_win_), "MPI_Win_flush_all");
    dirty_puts_ = false;
  }
}

void Transport::sync_local() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (any_remote_) {
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
  uint64_t zero = 0;
  return mpi_atomic(r, s, off, &zero, nullptr, MPI_NO_OP);
}

void Transport::store(int r, Seg s, uint64_t off, uint64_t v) {
  if (atomics_direct(r)) {
    __atomic_store_n(word(direct_ptr(r, s, off)), v, __ATOMIC_RELEASE);
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
  return mpi_atomic(r, s, off, &desired, &expected, MPI_OP_NULL);
}

uint64_t Transport::fetch_add(int r, Seg s, uint64_t off, uint64_t v) {
  if (atomics_direct(r)) return __atomic_fetch_add(word(direct_ptr(r, s, off)), v, __ATOMIC_ACQ_REL);
  return mpi_atomic(r, s, off, &v, nullptr, MPI_SUM);
}

uint64_t Transport::fetch_or(int r, Seg s, uint64_t off, uint64_t v) {
  if (atomics_direct(r)) return __atomic_fetch_or(word(direct_ptr(r, s, off)), v, __ATOMIC_ACQ_REL);
  return mpi_atomic(r, s, off, &v, nullptr, MPI_BOR);
}

uint64_t Transport::swap(int r, Seg s, uint64_t off, uint64_t v) {
  if (atomics_direct(r)) return __atomic_exchange_n(word(direct_ptr(r, s, off)), v, __ATOMIC_ACQ_REL);
  return mpi_atomic(r, s, off, &v, nullptr, MPI_REPLACE);
}

void Transport::load_many(size_t n, void (*at)(size_t, int*, uint64_t*), uint64_t* out) {
  if (n == 0) return;
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

}  // namespace loom
