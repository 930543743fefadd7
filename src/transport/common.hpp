// What the transport's paths share: the MPI error check, the wait for MPI
// requests that gives the core away (several ranks share a core in the
// tests and on small machines), memfd segments, and put records, the
// encoding of a run of puts in one buffer.  The async path sends put records
// as its put batches and its protocol thread applies them.
#pragma once
#include <mpi.h>
#include <sched.h>
#include <time.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "spin.hpp"
#include "transport/transport.hpp"

namespace loom {

// An MPI call that failed mid-protocol: fatal (see transport.hpp).
void check(int err, const char* what);

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// A queue lock's release at its home, for whoever does it there (the
// facade for a mapped home, the home's protocol thread for a message): the
// tail back to `freed` if it is still `me`, and 0; otherwise the successor
// (rank + 1) once its link is in place (a mapped rank stores it right after
// its swap; a request stores it with the swap), the link cleared.  The
// caller hands the lock over.
template <class CasTail, class LoadLink, class StoreLink>
uint64_t lock_release_here(uint64_t me, uint64_t freed, int spin, CasTail cas_tail, LoadLink load_link,
                           StoreLink store_link) {
  if (cas_tail(me, freed) == me) return 0;
  uint64_t next = 0;
  for (SpinPhase phase(spin); (next = load_link()) == 0;) {
    if (phase.keep()) relax();
    else sched_yield();
  }
  store_link(0);
  return next;
}

inline long mono_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

// How many of Loom's waits the application thread is in (nested waits
// count).  While it waits it calls MPI itself, which progresses MPI (and on
// the async path serves requests), so the rank's helper thread stays off
// MPI and off the core: two threads polling MPI on one core contend for its
// lock, and every wake-up of the helper takes the core from the
// application.  One per process (the facade's, given to the paths).
struct AppWaiting {
  static constexpr long kRecentNs = 50000;
  std::atomic<int> n{0};
  std::atomic<long> left{0};  // mono_ns() when the last wait ended
  bool now() const { return n.load(std::memory_order_relaxed) > 0; }
  // Or left one less than kRecentNs ago: a rank that faults page after page
  // is in MPI most of the time (the rma progress thread; the async one must
  // serve as soon as the application thread stops, which serves only while
  // it waits).
  bool recently() const { return now() || mono_ns() - left.load(std::memory_order_relaxed) < kRecentNs; }
  void enter() { n.fetch_add(1, std::memory_order_relaxed); }
  void leave() {
    left.store(mono_ns(), std::memory_order_relaxed);
    n.fetch_sub(1, std::memory_order_relaxed);
  }
};
class WaitingIn {  // scope guard: the application thread waits in here (unless !on)
 public:
  explicit WaitingIn(AppWaiting& w, bool on = true) : w_(on ? &w : nullptr) {
    if (w_) w_->enter();
  }
  ~WaitingIn() {
    if (w_) w_->leave();
  }
  WaitingIn(const WaitingIn&) = delete;
  WaitingIn& operator=(const WaitingIn&) = delete;

 private:
  AppWaiting* w_;
};


// Wait for n requests: poll `spin` times (at most spin x 50 ns: spin.hpp),
// then yield the core on every poll
// (several ranks per core must progress; MPICH's blocking calls poll without
// yielding), calling between(ctx) after each poll when given (a waiting
// application thread serves the requests sent to its rank).
void wait_all(int n, MPI_Request* rq, int spin, void (*between)(void*) = nullptr, void* ctx = nullptr);

// A memfd of `size` bytes, and a shared read-write mapping of one.
Status make_memfd(const char* name, uint64_t size, int* fd_out);
void* map_fd(int fd, uint64_t size);  // nullptr on failure

inline uint64_t* word(uint8_t* p) { return reinterpret_cast<uint64_t*>(p); }

// Zero [p, p + len) writing only the bytes that are not zero already: in
// fresh anonymous memory a read maps the kernel's zero page, so untouched
// pages stay untouched (an MPI window's Meta; Transport::zero_self_meta).
inline void zero_where_set(uint8_t* p, uint64_t len) {
  uint64_t i = 0;
  if ((uintptr_t)p % 8 == 0)
    for (uint64_t* w = word(p); i + 8 <= len; i += 8, w++)
      if (*w) *w = 0;
  for (; i < len; i++)
    if (p[i]) p[i] = 0;
}

// A typed atomic (transport.hpp, AtomicType) on the word at p, with CPU
// atomics: what the direct path does to a mapped peer's memory and the
// async protocol thread to its own.  p is aligned to the word's width.
uint64_t apply_atomic(uint8_t* p, AtomicType t, AtomicOp op, uint64_t a, uint64_t b);

// This rank's own segments, as a target applies operations to them.
struct Segments {
  uint8_t* base[2];   // indexed by Seg
  uint64_t size[2];
  // Whether s names a segment and [off, off + len) lies inside it.
  bool inside(Seg s, uint64_t off, uint64_t len) const {
    if (s != Seg::Data && s != Seg::Meta) return false;
    const uint64_t n = size[(int)s];
    return off <= n && len <= n - off;
  }
};

// The words of a load_many grouped by rank (a counting sort), so that a
// path sends one request per rank: after group(), positions start[r] ..
// start[r+1]-1 of `order` name rank r's words, in the order given; rank[i]
// and off[i] are word i's.  Words of ranks r with skip[r] set are left out
// of `order` (the caller reads them itself; skip may be null).  Returns how
// many were grouped.
struct WordsByRank {
  std::vector<int> rank;
  std::vector<uint64_t> off;
  std::vector<size_t> start, order;
  size_t group(size_t n, int nranks, void (*at)(size_t i, int* rank, uint64_t* off), const uint8_t* skip = nullptr);
};

// Put records: each is two words {seg | len << 8, off}, then the len bytes
// padded to 8.  A buffer holds any number of them, applied in order.
constexpr size_t kPutRecordHead = 16;
constexpr size_t put_record_bytes(size_t len) { return kPutRecordHead + ((len + 7) & ~size_t(7)); }
// Write the record of a put of len bytes from src to off of segment s at
// `at` (room for put_record_bytes(len)); returns put_record_bytes(len).
size_t append_put_record(uint8_t* at, Seg s, uint64_t off, const void* src, size_t len);
// Apply the records in [p, end) to `to`, in order, up to the first bad one:
// its length runs past `end` (truncated), or it names bytes outside its
// segment (outside; seg, off and len say which).
struct PutRecordsApplied {
  enum Result { kOk, kTruncated, kOutside } result;
  Seg seg;
  uint64_t off, len;
};
PutRecordsApplied apply_put_records(const Segments& to, const uint8_t* p, const uint8_t* end);
// A runs record: the n runs of one put_runs in a single record,
// {seg | kRunsRecord | n << 8, base}, then n (16-bit offset from base,
// 16-bit length) pairs padded to 8, then the runs' bytes back to back,
// padded to 8.  A diff of many short runs (IS changes one byte of four)
// then costs 4 bytes a run beside its bytes, not a 16-byte head and its
// bytes padded to 8 (24 bytes a changed byte); apply_put_records takes
// both kinds.  Returns 0 where a run ends past base + 65535 (no record:
// put one record a run).
constexpr uint64_t kRunsRecord = 0x80;
size_t runs_record_bytes(const uint32_t* off, const uint32_t* len, size_t n);
size_t append_runs_record(uint8_t* at, Seg s, uint64_t base, const uint8_t* src, const uint32_t* off,
                          const uint32_t* len, size_t n);
// A mask record: a diff by its mask (diff.hpp), {seg | kMaskRecord | words
// << 8, base}, the mask's words (bit b: byte base + b changed), then the
// marked bytes back to back, padded to 8.  Smaller than a runs record where
// a page has more runs than a quarter of its mask's bytes (over 128 runs a
// 4 KiB page), and made and applied at a cost by the page's words, not by
// its runs.
constexpr uint64_t kMaskRecord = 0x40;
constexpr uint64_t kRecordSeg = 0x3f;  // the segment's bits of a record's first word
constexpr size_t mask_record_bytes(size_t words, size_t bytes) {
  return kPutRecordHead + 8 * words + ((bytes + 7) & ~size_t(7));
}
size_t append_mask_record(uint8_t* at, Seg s, uint64_t base, const uint8_t* src, const uint64_t* mask, size_t words);

}  // namespace loom
