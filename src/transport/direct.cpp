// The direct path (direct.hpp): host discovery, mapping of same-host peers'
// memfds, and memcpy / CPU atomics on the mappings.  Plain memory needs no
// progress from the peer; the work is done once, at init (one allgather,
// one shared-memory split, two opens and mmaps per same-host peer).
#include "transport/direct.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "diff.hpp"
#include "transport/common.hpp"
#include "transport/cores.hpp"

namespace loom {
namespace {

constexpr int kMaxHost = 256;

// What a rank tells the others so that they can map its segments, and
// check that what they opened is that (a pid can name another process: a
// rank in a private PID namespace that shares the host name and IPC).
struct Exposed {
  int pid;
  int fd[2];         // Data, Meta memfds
  uint64_t dev[2];   // their identity (fstat)
  uint64_t ino[2];
  char host[kMaxHost];
  CpuShare cpus;     // its kernel and affinity (cores.hpp)
};

// Map a same-host peer's memfd through /proc, after checking that the file
// opened is the one the peer exposed (device, inode, size).  Returns nullptr
// with the reason in `why` (the caller treats the peer as remote) when the
// kernel refuses or the file is another.
void* map_peer(const Exposed& e, int s, uint64_t size, char* why, size_t why_len) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/fd/%d", e.pid, e.fd[s]);
  int local = open(path, O_RDWR | O_CLOEXEC);
  if (local < 0) {
    std::snprintf(why, why_len, "open of %s: %s", path, std::strerror(errno));
    return nullptr;
  }
  struct stat st;
  if (fstat(local, &st) != 0 || (uint64_t)st.st_dev != e.dev[s] || (uint64_t)st.st_ino != e.ino[s] ||
      (uint64_t)st.st_size != size) {
    std::snprintf(why, why_len,
                  "%s is not its shared memory (device %llu inode %llu, %llu bytes; expected device %llu inode "
                  "%llu, %llu bytes): is the rank in another PID namespace?",
                  path, (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                  (unsigned long long)st.st_size, (unsigned long long)e.dev[s], (unsigned long long)e.ino[s],
                  (unsigned long long)size);
    close(local);
    return nullptr;
  }
  void* p = map_fd(local, size);
  if (!p) std::snprintf(why, why_len, "mmap of %s: %s", path, std::strerror(errno));
  close(local);
  return p;
}

}  // namespace

DirectPath::DirectPath(int rank, int nranks, uint8_t* self_data, uint8_t* self_meta, uint64_t data_size,
                       uint64_t meta_size)
    : rank_(rank), size_{data_size, meta_size}, maps_(nranks) {
  maps_[rank].seg[(int)Seg::Data] = self_data;
  maps_[rank].seg[(int)Seg::Meta] = self_meta;
}

DirectPath::~DirectPath() {
  for (int r = 0; r < (int)maps_.size(); r++)
    for (int s = 0; s < 2; s++)
      if (r != rank_ && maps_[r].seg[s]) munmap(maps_[r].seg[s], size_[s]);
}

bool DirectPath::map_peers(MPI_Comm comm, int data_fd, int meta_fd, bool local_map) {
  const int nranks = (int)maps_.size();
  // Who shares this host?  Ranks in one MPI shared-memory communicator do;
  // the host name guards against an MPI that splits differently.
  Exposed me{};
  me.pid = getpid();
  me.fd[0] = data_fd;
  me.fd[1] = meta_fd;
  for (int s = 0; s < 2; s++) {
    struct stat st;
    if (fstat(me.fd[s], &st) == 0) {
      me.dev[s] = (uint64_t)st.st_dev;
      me.ino[s] = (uint64_t)st.st_ino;
    }
  }
  gethostname(me.host, kMaxHost - 1);
  me.cpus = cpu_share_self(me.host);
  std::vector<Exposed> all(nranks);
  check(MPI_Allgather(&me, sizeof me, MPI_BYTE, all.data(), sizeof me, MPI_BYTE, comm), "MPI_Allgather");
  std::vector<CpuShare> cpus(nranks);
  for (int r = 0; r < nranks; r++) cpus[r] = all[r].cpus;
  cores_ = me.cpus.cores;
  core_sharers_ = cpu_sharers(me.cpus, cpus.data(), nranks);
  MPI_Comm node;
  check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  MPI_Group wg, ng;
  MPI_Comm_group(comm, &wg);
  MPI_Comm_group(node, &ng);
  int nnode;
  MPI_Comm_size(node, &nnode);
  std::vector<int> nr(nnode), wr(nnode);
  for (int i = 0; i < nnode; i++) nr[i] = i;
  MPI_Group_translate_ranks(ng, nnode, nr.data(), wg, wr.data());
  MPI_Group_free(&wg);
  MPI_Group_free(&ng);
  MPI_Comm_free(&node);

  bool unmapped = false;
  int unmapped_said = 0;
  std::vector<uint8_t>& same_host = same_host_;
  same_host.assign(nranks, 0);
  for (int r : wr) same_host[r] = std::strcmp(all[r].host, me.host) == 0;
  for (int r = 0; r < nranks; r++) {
    if (r == rank_) continue;
    Map& m = maps_[r];
    if (local_map && same_host[r]) {
      char why[512] = "";
      for (int s = 0; s < 2 && (s == 0 || m.seg[0]); s++)
        m.seg[s] = (uint8_t*)map_peer(all[r], s, size_[s], why, sizeof why);
      if (!m.seg[0] || !m.seg[1]) {
        for (int s = 0; s < 2; s++)
          if (m.seg[s]) munmap(m.seg[s], size_[s]);
        m = Map{};
        // Said once per rank: the job still runs, through MPI, but slower
        // than a user who asked for mapping expects.
        if (!unmapped_said++)
          std::fprintf(stderr, "loom: rank %d cannot map same-host rank %d (pid %d): %s; reaching it through MPI\n",
                       rank_, r, all[r].pid, why);
      }
    }
    if (!m.seg[(int)Seg::Data]) unmapped = true;
  }
  return unmapped;
}

void DirectPath::drop_meta() {
  for (int r = 0; r < (int)maps_.size(); r++) {
    uint8_t*& meta = maps_[r].seg[(int)Seg::Meta];
    if (r != rank_ && meta) munmap(meta, size_[(int)Seg::Meta]);
    meta = nullptr;
  }
}

// Plain memory: every operation is complete on return, and other ranks'
// stores are visible without a synchronization call.
void DirectPath::flush() {}
void DirectPath::sync_local() {}

// Meta words change under atomics (other ranks', a protocol thread's):
// read word by word with atomic loads, not a memcpy racing with them
// (each word is whole, old or new, as the callers expect).
void DirectPath::get(int r, Seg s, uint64_t off, void* dst, size_t len) {
  if (s == Seg::Meta && off % 8 == 0 && len % 8 == 0 && (uintptr_t)dst % 8 == 0) {
    const uint64_t* from = word(at(r, s, off));
    uint64_t* to = static_cast<uint64_t*>(dst);
    for (size_t i = 0; i < len / 8; i++) to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
    return;
  }
  std::memcpy(dst, at(r, s, off), len);
}

void DirectPath::put(int r, Seg s, uint64_t off, const void* src, size_t len) { std::memcpy(at(r, s, off), src, len); }

void DirectPath::put_mask(int r, Seg s, uint64_t base, const uint8_t* src, const uint64_t* mask, size_t words) {
  mask_store(at(r, s, base), src, mask, words);
}

uint64_t DirectPath::load(int r, Seg s, uint64_t off) { return __atomic_load_n(word(at(r, s, off)), __ATOMIC_ACQUIRE); }

void DirectPath::store(int r, Seg s, uint64_t off, uint64_t v) {
  __atomic_store_n(word(at(r, s, off)), v, __ATOMIC_RELEASE);
}

uint64_t DirectPath::cas(int r, Seg s, uint64_t off, uint64_t expected, uint64_t desired) {
  __atomic_compare_exchange_n(word(at(r, s, off)), &expected, desired, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  return expected;  // holds the old value either way
}

uint64_t DirectPath::fetch_add(int r, Seg s, uint64_t off, uint64_t v) {
  return __atomic_fetch_add(word(at(r, s, off)), v, __ATOMIC_ACQ_REL);
}

uint64_t DirectPath::fetch_or(int r, Seg s, uint64_t off, uint64_t v) {
  return __atomic_fetch_or(word(at(r, s, off)), v, __ATOMIC_ACQ_REL);
}

uint64_t DirectPath::swap(int r, Seg s, uint64_t off, uint64_t v) {
  return __atomic_exchange_n(word(at(r, s, off)), v, __ATOMIC_ACQ_REL);
}

uint64_t DirectPath::atomic_op(int r, Seg s, uint64_t off, AtomicType t, AtomicOp op, uint64_t a, uint64_t b) {
  return apply_atomic(at(r, s, off), t, op, a, b);
}

void DirectPath::or_range(int r, Seg s, uint64_t off, size_t n, uint64_t bits, uint64_t* old, uint64_t count_off) {
  for (size_t i = 0; i < n; i++) {
    uint64_t o = __atomic_fetch_or(word(at(r, s, off + i * 8)), bits, __ATOMIC_ACQ_REL);
    if (old) old[i] = o;
  }
  if (count_off != kNoCount) __atomic_fetch_add(word(at(r, s, count_off)), 1, __ATOMIC_SEQ_CST);
}

void DirectPath::words(const WordGroup* g, size_t k) {
  for (size_t j = 0; j < k; j++)
    for (size_t i = 0; i < g[j].n; i++) {
      int r;
      uint64_t off;
      g[j].at(i, &r, &off);
      uint64_t* w = word(at(r, Seg::Meta, off));
      uint64_t& out = g[j].out[i];
      switch (g[j].op) {
        case WordOp::Load: out = __atomic_load_n(w, __ATOMIC_ACQUIRE); break;
        case WordOp::Cas: out = cas(r, Seg::Meta, off, g[j].a, g[j].b); break;
        case WordOp::Or: out = __atomic_fetch_or(w, g[j].a, __ATOMIC_ACQ_REL); break;
      }
    }
}

}  // namespace loom
