// The direct path (direct.hpp): host discovery, mapping of same-host peers'
// memfds, and memcpy / CPU atomics on the mappings.  Plain memory needs no
// progress from the peer; the work is done once, at init (one allgather,
// one shared-memory split, two opens and mmaps per same-host peer).
#include "transport/direct.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "transport/common.hpp"

namespace loom {
namespace {

constexpr int kMaxHost = 256;

// What a rank tells the others so that they can map its segments.
struct Exposed {
  int pid;
  int data_fd;
  int meta_fd;
  char host[kMaxHost];
};

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
  me.data_fd = data_fd;
  me.meta_fd = meta_fd;
  gethostname(me.host, kMaxHost - 1);
  std::vector<Exposed> all(nranks);
  check(MPI_Allgather(&me, sizeof me, MPI_BYTE, all.data(), sizeof me, MPI_BYTE, comm), "MPI_Allgather");
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
  std::vector<uint8_t>& same_host = same_host_;
  same_host.assign(nranks, 0);
  for (int r : wr) same_host[r] = std::strcmp(all[r].host, me.host) == 0;
  for (int r = 0; r < nranks; r++) {
    if (r == rank_) continue;
    Map& m = maps_[r];
    if (local_map && same_host[r]) {
      m.seg[(int)Seg::Data] = (uint8_t*)map_peer(all[r].pid, all[r].data_fd, size_[(int)Seg::Data]);
      m.seg[(int)Seg::Meta] = (uint8_t*)map_peer(all[r].pid, all[r].meta_fd, size_[(int)Seg::Meta]);
      if (!m.seg[0] || !m.seg[1]) {
        for (int s = 0; s < 2; s++)
          if (m.seg[s]) munmap(m.seg[s], size_[s]);
        m = Map{};
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

void DirectPath::get(int r, Seg s, uint64_t off, void* dst, size_t len) { std::memcpy(dst, at(r, s, off), len); }

void DirectPath::put(int r, Seg s, uint64_t off, const void* src, size_t len) { std::memcpy(at(r, s, off), src, len); }

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

void DirectPath::or_range(int r, Seg s, uint64_t off, size_t n, uint64_t bits, uint64_t* old) {
  for (size_t i = 0; i < n; i++) {
    uint64_t o = __atomic_fetch_or(word(at(r, s, off + i * 8)), bits, __ATOMIC_ACQ_REL);
    if (old) old[i] = o;
  }
}

void DirectPath::load_many(size_t n, void (*at_i)(size_t, int*, uint64_t*), uint64_t* out) {
  for (size_t i = 0; i < n; i++) {
    int r;
    uint64_t off;
    at_i(i, &r, &off);
    out[i] = __atomic_load_n(word(at(r, Seg::Meta, off)), __ATOMIC_ACQUIRE);
  }
}

}  // namespace loom
