// Whether a rank has a core to spare for its protocol thread
// (src/transport/cores.hpp), on the shapes Loom runs in: ranks on one
// kernel whose affinity masks meet share cores, whatever their "host" (the
// emulated cluster's hosts are namespaces of one machine); ranks on other
// kernels never count.
#include "transport/cores.hpp"

#include <vector>

#include "unit_check.hpp"

namespace {

using loom::CpuShare;

CpuShare on(uint64_t kernel, int first, int count) {
  CpuShare c;
  c.kernel = kernel;
  for (int cpu = first; cpu < first + count; cpu++) c.mask[cpu / 64] |= uint64_t(1) << (cpu % 64);
  c.cores = count;
  return c;
}

// At init: one thread computing a rank.
bool spare(const std::vector<CpuShare>& all, int r) {
  return loom::cpu_spare_now(all[r].cores, loom::cpu_sharers(all[r], all.data(), (int)all.size()), 1.0);
}

}  // namespace

int main() {
  // 2 emulated hosts x 1 rank on a 2-core machine, unpinned: 2 ranks on 2 cores.
  std::vector<CpuShare> two_cores{on(7, 0, 2), on(7, 0, 2)};
  CHECK(loom::cpu_sharers(two_cores[0], two_cores.data(), 2) == 2);
  CHECK(!spare(two_cores, 0) && !spare(two_cores, 1));
  // The same hosts pinned to a core each (LOOM_CLUSTER_CPUS=1): one core, one rank.
  std::vector<CpuShare> pinned1{on(7, 0, 1), on(7, 1, 1)};
  CHECK(loom::cpu_sharers(pinned1[1], pinned1.data(), 2) == 1);
  CHECK(!spare(pinned1, 0) && !spare(pinned1, 1));
  // 16 cores, 2 hosts pinned to 8 each, 1 rank and then 2 ranks a host: spare;
  // 4 ranks a host: 2 cores a rank, spare; 5 ranks: not.
  for (int per_host = 1; per_host <= 5; per_host++) {
    std::vector<CpuShare> all;
    for (int h = 0; h < 2; h++)
      for (int i = 0; i < per_host; i++) all.push_back(on(7, 8 * h, 8));
    CHECK(loom::cpu_sharers(all[0], all.data(), (int)all.size()) == per_host);
    for (size_t r = 0; r < all.size(); r++) CHECK(spare(all, (int)r) == (per_host <= 4));
  }
  // 16 ranks unpinned on a 16-core machine: no core to spare.
  std::vector<CpuShare> full(16, on(7, 0, 16));
  CHECK(!spare(full, 0) && !spare(full, 15));
  // Real hosts: the same masks on other kernels share nothing.
  std::vector<CpuShare> cluster;
  for (uint64_t k = 1; k <= 8; k++) cluster.push_back(on(k, 0, 2));
  CHECK(loom::cpu_sharers(cluster[3], cluster.data(), 8) == 1);
  CHECK(spare(cluster, 0) && spare(cluster, 7));
  // Masks above CPU 63 count, and meet only where they overlap.
  std::vector<CpuShare> high{on(7, 100, 4), on(7, 102, 4), on(7, 200, 4)};
  CHECK(loom::cpu_count(high[0]) == 4);
  CHECK(loom::cpu_sharers(high[0], high.data(), 3) == 2);
  CHECK(spare(high, 0) && spare(high, 2));
  CHECK(loom::cpu_sharers(high[2], high.data(), 3) == 1);
  // Hyperthreads: 16 CPUs that are 8 cores of 2 threads hold 4 ranks with a
  // core to spare each, not 8.
  for (int ranks : {4, 5, 8}) {
    std::vector<CpuShare> smt(ranks, on(7, 0, 16));
    for (CpuShare& c : smt) c.cores = 8;
    CHECK(spare(smt, 0) == (ranks <= 4));
  }
  // While the program runs: the rank's threads' CPUs lately.  One rank on 8
  // cores: spare up to 7.5 CPUs busy (8 threads computing: not); 2 ranks on
  // 8: up to 3.5 each; one rank on 2 cores computing on one thread with
  // MPI's and the kernel's work beside it (1.3): spare; no spare core at
  // init is never spare, however idle.
  CHECK(loom::cpu_spare_now(8, 1, 1.0) && loom::cpu_spare_now(8, 1, 7.4) && !loom::cpu_spare_now(8, 1, 8.0));
  CHECK(loom::cpu_spare_now(8, 2, 3.4) && !loom::cpu_spare_now(8, 2, 4.0));
  CHECK(loom::cpu_spare_now(2, 1, 1.3) && !loom::cpu_spare_now(2, 1, 2.0));
  CHECK(!loom::cpu_spare_now(2, 2, 0.0) && !loom::cpu_spare_now(16, 9, 0.0) && !loom::cpu_spare_now(8, 0, 0.0));
  // An affinity that could not be read: no core to spare.
  std::vector<CpuShare> unread{CpuShare{}};
  unread[0].kernel = 7;
  CHECK(!spare(unread, 0));
  // This process: its own mask and kernel, and it shares with itself.
  const CpuShare me = loom::cpu_share_self("somehost");
  CHECK(me.kernel != 0);
  CHECK(loom::cpu_count(me) >= 1);
  CHECK(me.cores >= 1 && me.cores <= loom::cpu_count(me));
  CHECK(loom::cpu_sharers(me, &me, 1) == 1);
  CHECK(loom::cpu_share_self("otherhost").kernel == me.kernel);  // the boot id, not the name, where readable
  return unit_result("cores_test");
}
