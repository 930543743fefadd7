// Whether a rank has a core to spare for its protocol thread: the physical
// cores under its affinity mask against the ranks of the job that may run
// on the same CPUs.  Ranks on the same kernel share CPUs even when they
// are on different "hosts": the emulated cluster's hosts are network
// namespaces of one machine, with one kernel (one boot id) and, unless
// pinned apart (LOOM_CLUSTER_CPUS), one set of cores.
//
// Why it matters (src/transport/async.cpp, serve()): a page read from a
// home on another host is an MPI_Get that the home's MPI progresses only
// inside an MPI call, and while the home computes that is its protocol
// thread's next wake.  Long naps spare a core that the rank computes on;
// where the rank has cores to spare, short naps cost it nothing.
#pragma once
#include <sched.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace loom {

// One rank's CPUs as the ranks exchange them at init.
struct CpuShare {
  static constexpr int kWords = 16;  // CPUs 0-1023
  uint64_t kernel = 0;               // a hash of the boot id (0: unknown)
  uint64_t mask[kWords] = {};
  int32_t cores = 0;                 // the physical cores under the mask (hyperthreads of one core count once)
  int32_t unused = 0;
};

// FNV-1a of a string: the boot id's 36 characters into one word.
inline uint64_t cpu_share_hash(const char* s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h ? h : 1;
}

// This process's kernel and affinity mask.  A kernel whose boot id cannot
// be read counts as its host name's (so ranks of one host still count as
// sharing); an affinity that cannot be read leaves the mask empty, which
// counts as no core to spare.
inline CpuShare cpu_share_self(const char* host) {
  CpuShare c;
  char id[64] = "";
  if (FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    if (!std::fgets(id, sizeof id, f)) id[0] = 0;
    std::fclose(f);
  }
  c.kernel = cpu_share_hash(id[0] ? id : host);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int cpu = 0; cpu < CpuShare::kWords * 64 && cpu < CPU_SETSIZE; cpu++)
      if (CPU_ISSET(cpu, &set)) c.mask[cpu / 64] |= uint64_t(1) << (cpu % 64);
  // A core is its package and core id (sysfs); a CPU whose topology cannot
  // be read counts as a core of its own.
  uint64_t seen[CpuShare::kWords * 64];
  int n = 0;
  for (int cpu = 0; cpu < CpuShare::kWords * 64; cpu++) {
    if (!(c.mask[cpu / 64] >> (cpu % 64) & 1)) continue;
    long id[2] = {-1, -1};
    const char* what[2] = {"physical_package_id", "core_id"};
    for (int k = 0; k < 2; k++) {
      char path[96];
      std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what[k]);
      if (FILE* f = std::fopen(path, "r")) {
        if (std::fscanf(f, "%ld", &id[k]) != 1) id[k] = -1;
        std::fclose(f);
      }
    }
    const uint64_t key = id[0] < 0 || id[1] < 0 ? ~(uint64_t)cpu : (uint64_t)id[0] << 32 | (uint32_t)id[1];
    bool dup = false;
    for (int i = 0; i < n && !dup; i++) dup = seen[i] == key;
    if (!dup) seen[n++] = key;
  }
  c.cores = n;
  return c;
}

inline int cpu_count(const CpuShare& c) {
  int n = 0;
  for (uint64_t w : c.mask) n += __builtin_popcountll(w);
  return n;
}

// The ranks among all[0..n) (me included, when it is there) on my kernel
// whose masks meet mine.
inline int cpu_sharers(const CpuShare& me, const CpuShare* all, int n) {
  int k = 0;
  for (int r = 0; r < n; r++) {
    if (all[r].kernel != me.kernel) continue;
    bool meet = false;
    for (int w = 0; w < CpuShare::kWords && !meet; w++) meet = (all[r].mask[w] & me.mask[w]) != 0;
    k += meet;
  }
  return k;
}

// Two cores of mine for each rank that may run on them (one to compute
// on, one for its protocol thread), and the rank's threads lately left one
// of its share spare: `busy` is the CPUs they used (its protocol thread
// left out), and each rank that shares the cores counts as using as many.
// So a rank computing on 8 threads over 8 cores has none to spare (the
// hybrid build); half a CPU of slack for MPI's and the kernel's work on the
// rank's behalf.  Cores, not CPUs: a hyperthread of a core that computes
// is not a core to spare (a thread that kept polling there slowed EP 1.22x
// and Linpack 1.51x: ARCHITECTURE.md, "Tried and not kept: polling where
// the rank has cores to spare").
inline bool cpu_spare_now(int cores, int sharers, double busy) {
  return sharers > 0 && cores >= 2 * sharers && busy + 1.0 <= (double)cores / sharers + 0.5;
}

}  // namespace loom
