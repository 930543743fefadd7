// Checkpoint and restart (checkpoint.hpp has the design and the files).
#include "checkpoint.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "protocol/protocol.hpp"
#include "runtime.hpp"
#include "vm.hpp"

namespace loom {
namespace {

// 2: a small-block chunk's heap tag names its owner in bits 13-24 (more
// than 64 ranks); a checkpoint of format 1 is refused, not misread.
constexpr char kMagic[8] = {'L', 'O', 'O', 'M', 'C', 'K', 'P', '2'};

struct Header {
  char magic[8];
  uint32_t rank, nranks;
  uint64_t seq, mem_size, base, npages;
  uint64_t dir_bytes, heap_bytes, nhome, ncoll;
};

struct Latest {
  char magic[8];
  uint64_t seq, nranks, mem_size, base;
};

std::string ckpt_dir(const char* dir, uint64_t seq) { return std::string(dir) + "/ckpt-" + std::to_string(seq); }
std::string rank_file(const char* dir, uint64_t seq, int r) {
  return ckpt_dir(dir, seq) + "/rank-" + std::to_string(r) + ".bin";
}

Status io_fail(const std::string& what) {
  int e = errno;
  return fail(LOOM_ERR_SYSTEM, "checkpoint: %s: %s", what.c_str(), std::strerror(e));
}

Status write_all(int fd, const void* p, size_t n, const std::string& path) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  while (n) {
    ssize_t w = ::write(fd, b, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return io_fail("write of " + path);
    b += w;
    n -= (size_t)w;
  }
  return Status::ok();
}

Status read_all(int fd, void* p, size_t n, const std::string& path) {
  uint8_t* b = static_cast<uint8_t*>(p);
  while (n) {
    ssize_t r = ::read(fd, b, n);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      errno = EIO;
      return fail(LOOM_ERR_SYSTEM, "checkpoint: %s is shorter than its header says (a torn file?)", path.c_str());
    }
    if (r < 0) return io_fail("read of " + path);
    b += r;
    n -= (size_t)r;
  }
  return Status::ok();
}

// Every page's block protocol, a byte a page, moved through a buffer a
// chunk at a time: the page table keeps them in a FillArray (page_arrays.hpp),
// whose untouched pages cost nothing and stay untouched where a restart
// brings back the value they already read as.
Status write_modes(int fd, const std::string& path) {
  uint8_t buf[16384];
  for (uint64_t p = 0; p < rt.npages; p += sizeof buf) {
    const uint64_t n = std::min<uint64_t>(sizeof buf, rt.npages - p);
    for (uint64_t i = 0; i < n; i++) buf[i] = rt.pages.mode[p + i];
    LOOM_TRY(write_all(fd, buf, n, path));
  }
  return Status::ok();
}

Status read_modes(int fd, const std::string& path) {
  uint8_t buf[16384];
  for (uint64_t p = 0; p < rt.npages; p += sizeof buf) {
    const uint64_t n = std::min<uint64_t>(sizeof buf, rt.npages - p);
    LOOM_TRY(read_all(fd, buf, n, path));
    for (uint64_t i = 0; i < n; i++)
      if (rt.pages.mode[p + i] != buf[i]) rt.pages.mode[p + i] = buf[i];
  }
  return Status::ok();
}

// Write a file whole under a temporary name, sync it, rename it into place
// and sync the directory: the name holds either the old file or all of the
// new one.
template <class F>
Status write_atomically(const std::string& dir, const std::string& path, F&& body) {
  const std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return io_fail("open of " + tmp);
  Status s = body(fd, tmp);
  if (s.is_ok() && fsync(fd) != 0) s = io_fail("fsync of " + tmp);
  if (close(fd) != 0 && s.is_ok()) s = io_fail("close of " + tmp);
  if (s.is_ok() && rename(tmp.c_str(), path.c_str()) != 0) s = io_fail("rename to " + path);
  if (!s.is_ok()) {
    unlink(tmp.c_str());
    return s;
  }
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return Status::ok();
}

uint64_t dir_region() { return (rt.npages + (uint64_t)rt.nranks - 1) / (uint64_t)rt.nranks * dir_entry_bytes(); }
uint64_t heap_region() { return rt.meta.copyset - rt.meta.heap; }

Status read_latest(const char* dir, Latest* out) {
  const std::string path = std::string(dir) + "/LATEST";
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_fail("open of " + path);
  Status s = read_all(fd, out, sizeof *out, path);
  close(fd);
  if (s.is_ok() && std::memcmp(out->magic, kMagic, 8) != 0)
    s = fail(LOOM_ERR_CONFIG, "checkpoint: %s is not a Loom checkpoint of this version's format", path.c_str());
  return s;
}

}  // namespace

bool checkpoint_peek_range(const char* dir, uint64_t* base, uint64_t* mem_size) {
  char path[4096];
  if (std::snprintf(path, sizeof path, "%s/LATEST", dir) >= (int)sizeof path) return false;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Latest l;
  const ssize_t n = ::read(fd, &l, sizeof l);
  close(fd);
  if (n != (ssize_t)sizeof l || std::memcmp(l.magic, kMagic, 8) != 0) return false;
  *base = l.base;
  *mem_size = l.mem_size;
  return true;
}

Status checkpoint_write(const char* dir) {
  PageTable& pt = rt.pages;
  // The sequence number: one past the newest in the directory.
  uint64_t seq = rt.ckpt.seq + 1;
  if (rt.rank == 0 && rt.ckpt.seq == 0 && access((std::string(dir) + "/LATEST").c_str(), F_OK) == 0) {
    Latest l;
    if (read_latest(dir, &l).is_ok()) seq = l.seq + 1;
  }
  MPI_Bcast(&seq, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  const std::string cdir = ckpt_dir(dir, seq);
  if (rt.rank == 0) {
    mkdir(dir, 0700);
    if (mkdir(cdir.c_str(), 0700) != 0 && errno != EEXIST) {
      Status s = io_fail("mkdir of " + cdir);
      (void)s;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  static std::vector<uint64_t>& homes = *new std::vector<uint64_t>();  // never destroyed: see runtime.hpp
  homes.clear();
  for (uint64_t p = 0; p < rt.npages; p++)
    if (pt.home[p] == rt.rank && (pt.flags[p] & kAlloc)) homes.push_back(p);
  const auto& coll = rt.ckpt.collective;
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.rank = (uint32_t)rt.rank;
  h.nranks = (uint32_t)rt.nranks;
  h.seq = seq;
  h.mem_size = rt.size;
  h.base = (uint64_t)(uintptr_t)rt.base;
  h.npages = rt.npages;
  h.dir_bytes = dir_region();
  h.heap_bytes = rt.rank == 0 ? heap_region() : 0;
  h.nhome = homes.size();
  h.ncoll = coll.size();
  const uint8_t* meta = rt.tp.self_meta();
  Status s = write_atomically(cdir, rank_file(dir, seq, rt.rank), [&](int fd, const std::string& path) -> Status {
    LOOM_TRY(write_all(fd, &h, sizeof h, path));
    LOOM_TRY(write_all(fd, meta + rt.meta.dir, h.dir_bytes, path));
    if (h.heap_bytes) LOOM_TRY(write_all(fd, meta + rt.meta.heap, h.heap_bytes, path));
    LOOM_TRY(write_modes(fd, path));
    if (!coll.empty()) LOOM_TRY(write_all(fd, coll.data(), coll.size() * sizeof coll[0], path));
    if (!homes.empty()) LOOM_TRY(write_all(fd, homes.data(), homes.size() * 8, path));
    // Runs of consecutive pages in one write each (the self view is contiguous).
    for (size_t i = 0; i < homes.size();) {
      size_t j = i + 1;
      while (j < homes.size() && homes[j] == homes[j - 1] + 1) j++;
      LOOM_TRY(write_all(fd, slot(homes[i]), (j - i) * kPage, path));
      i = j;
    }
    return Status::ok();
  });
  // Every rank's file is in place before LATEST names them.
  int ok = s.is_ok() ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!s.is_ok()) return s;
  if (!all) return fail(LOOM_ERR_SYSTEM, "checkpoint: another rank could not write its file (see its error)");
  Status l;
  if (rt.rank == 0) {
    Latest lt{};
    std::memcpy(lt.magic, kMagic, 8);
    lt.seq = seq;
    lt.nranks = (uint64_t)rt.nranks;
    lt.mem_size = rt.size;
    lt.base = h.base;
    l = write_atomically(dir, std::string(dir) + "/LATEST", [&](int fd, const std::string& path) {
      return write_all(fd, &lt, sizeof lt, path);
    });
    if (l.is_ok() && seq > 1) {  // the previous checkpoint is no longer named: remove it
      const std::string old = ckpt_dir(dir, seq - 1);
      for (int r = 0; r < rt.nranks; r++) unlink(rank_file(dir, seq - 1, r).c_str());
      rmdir(old.c_str());
    }
  }
  ok = l.is_ok() ? 1 : 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!l.is_ok()) return l;
  if (!all) return fail(LOOM_ERR_SYSTEM, "checkpoint: rank 0 could not write LATEST (see its error)");
  rt.ckpt.seq = seq;
  return Status::ok();
}

Status checkpoint_plan(const char* dir, uint64_t* base, uint64_t* mem_size) {
  Latest l;
  LOOM_TRY(read_latest(dir, &l));
  if (l.nranks != (uint64_t)rt.nranks)
    return fail(LOOM_ERR_CONFIG, "LOOM_RESTART=%s: the checkpoint was taken with %llu ranks; restart it with %llu",
                dir, (unsigned long long)l.nranks, (unsigned long long)l.nranks);
  *base = l.base;
  *mem_size = l.mem_size;
  rt.ckpt.seq = l.seq;
  return Status::ok();
}

Status checkpoint_restore(const char* dir) {
  PageTable& pt = rt.pages;
  const std::string path = rank_file(dir, rt.ckpt.seq, rt.rank);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_fail("open of " + path);
  Status s = [&]() -> Status {
    Header h;
    LOOM_TRY(read_all(fd, &h, sizeof h, path));
    if (std::memcmp(h.magic, kMagic, 8) != 0 || h.rank != (uint32_t)rt.rank || h.nranks != (uint32_t)rt.nranks ||
        h.seq != rt.ckpt.seq || h.mem_size != rt.size || h.npages != rt.npages || h.dir_bytes != dir_region() ||
        (h.heap_bytes && h.heap_bytes != heap_region()))
      return fail(LOOM_ERR_CONFIG, "checkpoint: %s does not belong to this checkpoint (rank, size or layout differ)",
                  path.c_str());
    uint8_t* meta = rt.tp.self_meta();
    LOOM_TRY(read_all(fd, meta + rt.meta.dir, h.dir_bytes, path));
    // No rank holds a copy after a restart: the writer sets start empty.
    const uint64_t entry = dir_entry_bytes();  // {home+1, the writer set's planes}
    for (uint64_t off = 0; off < h.dir_bytes; off += entry) std::memset(meta + rt.meta.dir + off + 8, 0, entry - 8);
    if (h.heap_bytes) LOOM_TRY(read_all(fd, meta + rt.meta.heap, h.heap_bytes, path));
    LOOM_TRY(read_modes(fd, path));
    rt.ckpt.replay.resize(h.ncoll);
    if (h.ncoll) LOOM_TRY(read_all(fd, rt.ckpt.replay.data(), h.ncoll * sizeof rt.ckpt.replay[0], path));
    std::vector<uint64_t> homes(h.nhome);
    if (h.nhome) LOOM_TRY(read_all(fd, homes.data(), h.nhome * 8, path));
    for (size_t i = 0; i < homes.size();) {
      size_t j = i + 1;
      while (j < homes.size() && homes[j] == homes[j - 1] + 1) j++;
      if (homes[j - 1] >= rt.npages)
        return fail(LOOM_ERR_CONFIG, "checkpoint: %s names page %llu", path.c_str(), (unsigned long long)homes[j - 1]);
      LOOM_TRY(read_all(fd, slot(homes[i]), (j - i) * kPage, path));
      for (size_t k = i; k < j; k++) pt.home[homes[k]] = (int16_t)rt.rank;
      i = j;
    }
    return Status::ok();
  }();
  close(fd);
  if (!s.is_ok()) return s;
  rt.tp.sync_local();
  rt.ckpt.restarted = true;
  rt.ckpt.replayed = 0;
  return Status::ok();
}

namespace {

// With LOOM_RESTART in the environment, the checkpoint's address is held from
// the moment the library loads: MPI_Init's segments, thread stacks and malloc
// arenas, all placed at random, come later and go elsewhere.
__attribute__((constructor)) void hold_restart_range() {
  const char* dir = std::getenv("LOOM_RESTART");
  uint64_t base = 0, size = 0;
  if (dir && dir[0] && checkpoint_peek_range(dir, &base, &size)) vm_hold_early(base, size);
}

}  // namespace

}  // namespace loom
