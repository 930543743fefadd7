// Helpers shared by the transport's paths (common.hpp says what and why).
#include "transport/common.hpp"

#include <sched.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "diff.hpp"

namespace loom {

void check(int err, const char* what) {
  if (err != MPI_SUCCESS) {
    Status s = fail_mpi(err, what);
    (void)s;
    fatal("%s", last_error());
  }
}

void wait_all(int n, MPI_Request* rq, int spin, void (*between)(void*), void* ctx) {
  SpinPhase phase(spin);
  for (;;) {
    int done = 0;
    check(MPI_Testall(n, rq, &done, MPI_STATUSES_IGNORE), "MPI_Testall");
    if (done) return;
    if (between) between(ctx);
    if (phase.keep()) relax();
    else sched_yield();
  }
}

// The trust model is that of MPI libraries' shared memory: processes of the
// same user are trusted.  So the file is readable and writable by its owner
// only (memfds start with mode 0777), and sealed at its size: a process that
// can open it cannot shrink it under the ranks that map it (which would turn
// their accesses into SIGBUS) or grow it.
Status make_memfd(const char* name, uint64_t size, int* fd_out) {
  int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return fail_errno(LOOM_ERR_SYSTEM, "memfd_create");
  Status s;
  if (fchmod(fd, 0600) != 0) s = fail_errno(LOOM_ERR_SYSTEM, "fchmod of the shared-memory file");
  else if (ftruncate(fd, (off_t)size) != 0) s = fail_errno(LOOM_ERR_SYSTEM, "ftruncate of the shared-memory file");
  else if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    s = fail_errno(LOOM_ERR_SYSTEM, "sealing the shared-memory file");
  if (!s.is_ok()) {
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

size_t append_put_record(uint8_t* at, Seg s, uint64_t off, const void* src, size_t len) {
  const uint64_t rec[2] = {(uint64_t)(int)s | ((uint64_t)len << 8), off};
  std::memcpy(at, rec, sizeof rec);
  std::memcpy(at + sizeof rec, src, len);
  return put_record_bytes(len);
}

size_t runs_record_bytes(const uint32_t* off, const uint32_t* len, size_t n) {
  uint64_t bytes = 0;
  for (size_t i = 0; i < n; i++) {
    if ((uint64_t)off[i] + len[i] > 0xffff) return 0;
    bytes += len[i];
  }
  return kPutRecordHead + ((4 * n + 7) & ~size_t(7)) + ((bytes + 7) & ~uint64_t(7));
}

size_t append_runs_record(uint8_t* at, Seg s, uint64_t base, const uint8_t* src, const uint32_t* off,
                          const uint32_t* len, size_t n) {
  const uint64_t rec[2] = {(uint64_t)(int)s | kRunsRecord | ((uint64_t)n << 8), base};
  std::memcpy(at, rec, sizeof rec);
  uint8_t* table = at + sizeof rec;
  const size_t table_bytes = (4 * n + 7) & ~size_t(7);
  std::memset(table + 4 * n, 0, table_bytes - 4 * n);
  uint8_t* data = table + table_bytes;
  size_t bytes = 0;
  for (size_t i = 0; i < n; i++) {
    const uint16_t pair[2] = {(uint16_t)off[i], (uint16_t)len[i]};
    std::memcpy(table + 4 * i, pair, sizeof pair);
    std::memcpy(data + bytes, src + off[i], len[i]);
    bytes += len[i];
  }
  std::memset(data + bytes, 0, ((bytes + 7) & ~size_t(7)) - bytes);
  return sizeof rec + table_bytes + ((bytes + 7) & ~size_t(7));
}

size_t append_mask_record(uint8_t* at, Seg s, uint64_t base, const uint8_t* src, const uint64_t* mask, size_t words) {
  const uint64_t rec[2] = {(uint64_t)(int)s | kMaskRecord | ((uint64_t)words << 8), base};
  std::memcpy(at, rec, sizeof rec);
  std::memcpy(at + sizeof rec, mask, 8 * words);
  uint8_t* data = at + sizeof rec + 8 * words;
  const size_t bytes = mask_pack(data, src, mask, words);
  std::memset(data + bytes, 0, ((bytes + 7) & ~size_t(7)) - bytes);
  return mask_record_bytes(words, bytes);
}

PutRecordsApplied apply_put_records(const Segments& to, const uint8_t* p, const uint8_t* end) {
  while (p < end) {
    uint64_t rec[2];
    if ((size_t)(end - p) < sizeof rec) return {PutRecordsApplied::kTruncated, Seg::Data, 0, 0};
    std::memcpy(rec, p, sizeof rec);
    const Seg s = (Seg)(int)(rec[0] & kRecordSeg);
    const uint64_t len = rec[0] >> 8;
    p += sizeof rec;
    if (rec[0] & kMaskRecord) {  // len is the number of mask words
      if (len > (uint64_t)(end - p) / 8) return {PutRecordsApplied::kTruncated, s, rec[1], len};
      if (len > ~uint64_t(0) / 64 || !to.inside(s, rec[1], 64 * len)) return {PutRecordsApplied::kOutside, s, rec[1], 64 * len};
      uint64_t mask[64];  // the mask copied out a chunk at a time: a record's bytes promise no alignment
      const uint8_t* m = p;
      p += 8 * len;
      uint64_t bytes = 0;
      for (uint64_t i = 0; i < len; i++) {
        uint64_t w;
        std::memcpy(&w, m + 8 * i, 8);
        bytes += (uint64_t)__builtin_popcountll(w);
      }
      if (bytes > (uint64_t)(end - p)) return {PutRecordsApplied::kTruncated, s, rec[1], bytes};
      uint8_t* dst = to.base[(int)s] + rec[1];
      for (uint64_t i = 0; i < len; i += 64) {  // a chunk of the mask at a time
        const size_t n = (size_t)std::min<uint64_t>(64, len - i);
        std::memcpy(mask, m + 8 * i, 8 * n);
        p += mask_unpack(dst + 64 * i, p, mask, n);
      }
      p += ((bytes + 7) & ~uint64_t(7)) - bytes;
      continue;
    }
    if (rec[0] & kRunsRecord) {  // len is the number of runs
      if (rec[1] > ~uint64_t(0) - 0xffff) return {PutRecordsApplied::kOutside, s, rec[1], 0};
      const uint64_t table = (4 * len + 7) & ~uint64_t(7);
      if (len > (uint64_t)(end - p) / 4 || table > (uint64_t)(end - p)) return {PutRecordsApplied::kTruncated, s, rec[1], len};
      const uint8_t* pairs = p;
      p += table;
      uint64_t bytes = 0;
      for (uint64_t i = 0; i < len; i++) {
        uint16_t pair[2];
        std::memcpy(pair, pairs + 4 * i, sizeof pair);
        bytes += pair[1];
      }
      if (bytes > (uint64_t)(end - p)) return {PutRecordsApplied::kTruncated, s, rec[1], bytes};
      const uint8_t* data = p;
      for (uint64_t i = 0; i < len; i++) {
        uint16_t pair[2];
        std::memcpy(pair, pairs + 4 * i, sizeof pair);
        if (!to.inside(s, rec[1] + pair[0], pair[1])) return {PutRecordsApplied::kOutside, s, rec[1] + pair[0], pair[1]};
        std::memcpy(to.base[(int)s] + rec[1] + pair[0], data, pair[1]);
        data += pair[1];
      }
      p += (bytes + 7) & ~uint64_t(7);
      continue;
    }
    if (len > (uint64_t)(end - p)) return {PutRecordsApplied::kTruncated, s, rec[1], len};
    if (!to.inside(s, rec[1], len)) return {PutRecordsApplied::kOutside, s, rec[1], len};
    std::memcpy(to.base[(int)s] + rec[1], p, len);
    p += (len + 7) & ~uint64_t(7);
  }
  return {PutRecordsApplied::kOk, Seg::Data, 0, 0};
}

size_t WordsByRank::group(size_t n, int nranks, void (*at)(size_t, int*, uint64_t*), const uint8_t* skip) {
  rank.resize(n);
  off.resize(n);
  start.assign(nranks + 1, 0);
  for (size_t i = 0; i < n; i++) {
    at(i, &rank[i], &off[i]);
    if (!skip || !skip[rank[i]]) start[rank[i] + 1]++;
  }
  for (int r = 0; r < nranks; r++) start[r + 1] += start[r];
  const size_t grouped = start[nranks];
  order.resize(grouped);
  for (size_t i = 0; i < n; i++)  // start[r] advances to the end of rank r's words
    if (!skip || !skip[rank[i]]) order[start[rank[i]]++] = i;
  for (int r = nranks; r > 0; r--) start[r] = start[r - 1];
  start[0] = 0;
  return grouped;
}

namespace {

template <class W>
uint64_t apply_int(W* w, AtomicOp op, W a, W b) {
  switch (op) {
    case AtomicOp::Load: return __atomic_load_n(w, __ATOMIC_ACQUIRE);
    case AtomicOp::Store: __atomic_store_n(w, a, __ATOMIC_RELEASE); return 0;
    case AtomicOp::Cas: {
      W expected = a;
      __atomic_compare_exchange_n(w, &expected, b, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
      return expected;  // the old value either way
    }
    case AtomicOp::Add: return __atomic_fetch_add(w, a, __ATOMIC_ACQ_REL);
    case AtomicOp::Swap: return __atomic_exchange_n(w, a, __ATOMIC_ACQ_REL);
  }
  return 0;
}

// A float's add: CPUs have no atomic floating add, so a CAS loop on the bits.
template <class F, class W>
uint64_t add_float(W* w, W add_bits) {
  F add;
  std::memcpy(&add, &add_bits, sizeof add);
  W old = __atomic_load_n(w, __ATOMIC_RELAXED);
  for (;;) {
    F f;
    std::memcpy(&f, &old, sizeof f);
    f += add;
    W desired;
    std::memcpy(&desired, &f, sizeof desired);
    if (__atomic_compare_exchange_n(w, &old, desired, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) return old;
  }
}

}  // namespace

uint64_t apply_atomic(uint8_t* p, AtomicType t, AtomicOp op, uint64_t a, uint64_t b) {
  uint32_t* w32 = reinterpret_cast<uint32_t*>(p);
  uint64_t* w64 = reinterpret_cast<uint64_t*>(p);
  switch (t) {
    case AtomicType::U32: return apply_int<uint32_t>(w32, op, (uint32_t)a, (uint32_t)b);
    case AtomicType::U64: return apply_int<uint64_t>(w64, op, a, b);
    case AtomicType::F32:
      if (op == AtomicOp::Add) return add_float<float, uint32_t>(w32, (uint32_t)a);
      return apply_int<uint32_t>(w32, op, (uint32_t)a, (uint32_t)b);
    case AtomicType::F64:
      if (op == AtomicOp::Add) return add_float<double, uint64_t>(w64, a);
      return apply_int<uint64_t>(w64, op, a, b);
  }
  return 0;
}

}  // namespace loom
