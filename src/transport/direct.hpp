// The direct path: ranks of one host map each other's memfds (through
// /proc/<pid>/fd/<n>) and reach them with plain loads, stores and CPU
// atomics: get/put are memcpy, and nothing ever waits for the peer to run.
// This is the physical limit, and what gives Loom its uncontended lock of
// 0.10 us and barrier of 0.19 us on one host (docs/BENCHMARKS.md).  A peer
// is mapped when it shares this rank's MPI shared-memory communicator and
// host name, LOOM_LOCAL_MAP is on and the kernel lets its memfds open.
#pragma once
#include <mpi.h>

#include <vector>

#include "transport/transport.hpp"

namespace loom {

class DirectPath final : public Path {
 public:
  // Serves this rank's own segments until map_peers adds the peers'.
  DirectPath(int rank, int nranks, uint8_t* self_data, uint8_t* self_meta, uint64_t data_size, uint64_t meta_size);
  ~DirectPath() override;  // unmaps the peers' segments (this rank's own are the facade's)

  // Collective over comm: find the ranks of this host and map their memfds
  // (when local_map).  Returns whether some peer is left unmapped.
  bool map_peers(MPI_Comm comm, int data_fd, int meta_fd, bool local_map);
  // Meta is no longer reached here (it is an MPI window now): unmap the
  // peers' Meta segments and forget this rank's.
  void drop_meta();
  bool maps_data(int r) const { return maps_[r].seg[(int)Seg::Data] != nullptr; }
  // Rank r's Data segment as mapped here (MAP_SHARED of its memfd), or nullptr.
  uint8_t* data_of(int r) const { return maps_[r].seg[(int)Seg::Data]; }
  // Rank r's Meta segment as mapped here, or nullptr (not mapped, or dropped).
  uint8_t* meta_of(int r) const { return maps_[r].seg[(int)Seg::Meta]; }
  // Whether rank r runs on this host (known after map_peers).
  bool same_host(int r) const { return r < (int)same_host_.size() && same_host_[r]; }
  // The physical cores under this rank's affinity, and the ranks of the
  // job that may run on them, this one included (cores.hpp; known after
  // map_peers).
  int cores() const { return cores_; }
  int core_sharers() const { return core_sharers_; }

  const char* name() const override { return "direct"; }
  // flush and sync_local do nothing: plain memory, complete on return
  void get(int r, Seg s, uint64_t off, void* dst, size_t len) override;
  void put(int r, Seg s, uint64_t off, const void* src, size_t len) override;
  void put_mask(int r, Seg s, uint64_t base, const uint8_t* src, const uint64_t* mask, size_t words) override;
  void flush() override;
  void sync_local() override;
  uint64_t load(int r, Seg s, uint64_t off) override;
  void store(int r, Seg s, uint64_t off, uint64_t v) override;
  uint64_t cas(int r, Seg s, uint64_t off, uint64_t expected, uint64_t desired) override;
  uint64_t fetch_add(int r, Seg s, uint64_t off, uint64_t v) override;
  uint64_t fetch_or(int r, Seg s, uint64_t off, uint64_t v) override;
  uint64_t swap(int r, Seg s, uint64_t off, uint64_t v) override;
  uint64_t atomic_op(int r, Seg s, uint64_t off, AtomicType t, AtomicOp op, uint64_t a, uint64_t b) override;
  void or_range(int r, Seg s, uint64_t off, size_t n, uint64_t bits, uint64_t* old, uint64_t count_off) override;
  void words(const WordGroup* g, size_t k) override;

 private:
  struct Map {
    uint8_t* seg[2] = {nullptr, nullptr};  // mapped Data and Meta segments, indexed by Seg
  };
  uint8_t* at(int r, Seg s, uint64_t off) const { return maps_[r].seg[(int)s] + off; }

  int rank_;
  uint64_t size_[2];
  std::vector<Map> maps_;  // per rank
  std::vector<uint8_t> same_host_;  // per rank
  int cores_ = 0, core_sharers_ = 0;
};

}  // namespace loom
