// Allocation of global memory.  One table of allocated blocks, sorted by
// first page, lives in rank 0's Meta segment and is changed only under an
// internal queue lock, so any rank can allocate or free at any time without
// rank 0 taking part (it need not even be in Loom at the moment).  Blocks are
// whole pages: the page is the unit of coherence, and a block that shares no
// page with another can be given its own home policy.  First fit.  Small
// loom_alloc blocks share pages inside chunks, which are blocks of this
// table (kind kHeapSmall; small_alloc.cpp carves them).
//
// A version word makes the table readable without the lock (seqlock): the
// fault handler of a rank that touches a block another rank allocated looks
// the block up that way, since it must not wait for a lock.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <vector>

#include "heap.hpp"

#include "protocol/protocol.hpp"
#include "runtime.hpp"
#include "small_alloc.hpp"

namespace loom {
namespace {

// npages in the low 31 bits (a block is less than 8 TiB; LOOM_MEM_SIZE is
// at most 16 TiB), the tag in the next 25, the kind in the top 8.
constexpr uint64_t kPagesBits = 31;
static_assert(kPagesBits + kHeapTagBits == 56, "the kind keeps the top byte");
struct Block {
  uint64_t first;
  uint64_t npages_kind;
  uint64_t npages() const { return npages_kind & ((1ull << kPagesBits) - 1); }
  uint32_t tag() const { return (uint32_t)((npages_kind >> kPagesBits) & ((1ull << kHeapTagBits) - 1)); }
  uint32_t kind() const { return (uint32_t)(npages_kind >> 56); }
};
// Header words: [0] version (odd while being changed), [1] count.
constexpr uint64_t kVersion = 0, kCount = 8, kEntries = 64;

void read_table(std::vector<Block>& t) {
  uint64_t n = rt.tp.load(0, Seg::Meta, rt.meta.heap + kCount);
  t.resize(n);
  if (n) rt.tp.get(0, Seg::Meta, rt.meta.heap + kEntries, t.data(), n * sizeof(Block));
}

// Write entries [from, end) and the count, bracketed by version changes.
// The fences make the order hold on weakly ordered machines too (aarch64):
// the odd version is visible before any entry changes, and every entry
// before the even version (the transports' flush orders remote writes).
void write_table(const std::vector<Block>& t, size_t from) {
  Transport& tp = rt.tp;
  uint64_t v = tp.load(0, Seg::Meta, rt.meta.heap + kVersion);
  tp.store(0, Seg::Meta, rt.meta.heap + kVersion, v + 1);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (from < t.size())
    tp.put(0, Seg::Meta, rt.meta.heap + kEntries + from * sizeof(Block), &t[from], (t.size() - from) * sizeof(Block));
  tp.flush();
  tp.store(0, Seg::Meta, rt.meta.heap + kCount, t.size());
  std::atomic_thread_fence(std::memory_order_release);
  tp.store(0, Seg::Meta, rt.meta.heap + kVersion, v + 2);
}

size_t find(const std::vector<Block>& t, uint64_t first) {
  auto it = std::lower_bound(t.begin(), t.end(), first, [](const Block& b, uint64_t f) { return b.first < f; });
  return (size_t)(it - t.begin());
}

}  // namespace

Status heap_alloc(uint64_t npages, uint32_t kind, uint64_t* first_page, uint32_t tag) {
  LOOM_ASSERT(tag < (1u << kHeapTagBits));
  if (npages >= (1ull << kPagesBits))
    return fail(LOOM_ERR_NO_MEMORY, "allocation of %llu bytes: one block is less than %llu bytes",
                (unsigned long long)(npages * kPage), (unsigned long long)((1ull << kPagesBits) * kPage));
  std::vector<Block> t;
  sync_lock_raw(rt.heap_lock);
  read_table(t);
  uint64_t at = 0;
  size_t i = 0;
  for (; i < t.size(); i++) {
    if (t[i].first - at >= npages) break;
    at = t[i].first + t[i].npages();
  }
  bool fits = (i < t.size() || rt.npages - at >= npages) && t.size() < kHeapMax;
  if (fits) {
    t.insert(t.begin() + (ptrdiff_t)i, Block{at, npages | ((uint64_t)tag << kPagesBits) | ((uint64_t)kind << 56)});
    write_table(t, i);
  }
  sync_unlock_raw(rt.heap_lock);
  if (!fits) {
    if (t.size() >= kHeapMax)
      return fail(LOOM_ERR_NO_MEMORY, "allocation of %llu pages: %u blocks are allocated already (the limit)",
                  (unsigned long long)npages, kHeapMax);
    return fail(LOOM_ERR_NO_MEMORY,
                "allocation of %llu bytes: no free range that large in the %llu-byte global memory "
                "(raise LOOM_MEM_SIZE)",
                (unsigned long long)(npages * kPage), (unsigned long long)rt.size);
  }
  *first_page = at;
  return Status::ok();
}

Status heap_free(uint64_t first_page, uint32_t kind, uint64_t* npages) {
  std::vector<Block> t;
  sync_lock_raw(rt.heap_lock);
  read_table(t);
  size_t i = find(t, first_page);
  Status st;
  if (i == t.size() || t[i].first != first_page) {
    st = fail(LOOM_ERR_BAD_POINTER, "free of %p: not a block Loom allocated, or already freed",
              (void*)(rt.base + first_page * kPage));
  } else if (t[i].kind() != kind) {
    st = fail(LOOM_ERR_BAD_POINTER, "free of %p: the block came from %s, so free it with %s",
              (void*)(rt.base + first_page * kPage),
              t[i].kind() == kHeapCollective ? "loom_alloc_collective" : "loom_alloc",
              t[i].kind() == kHeapCollective ? "loom_free_collective" : "loom_free");
  } else {
    *npages = t[i].npages();
    // The block's pages forget their homes and holders before the range
    // can be handed out again (collective blocks: api.cpp, on every rank).
    if (kind == kHeapSingle) proto_free_block(first_page, *npages);
    t.erase(t.begin() + (ptrdiff_t)i);
    write_table(t, i);
  }
  sync_unlock_raw(rt.heap_lock);
  return st;
}

Status heap_lookup(uint64_t first_page, uint32_t* kind, uint64_t* npages) {
  std::vector<Block> t;
  sync_lock_raw(rt.heap_lock);
  read_table(t);
  sync_unlock_raw(rt.heap_lock);
  size_t i = find(t, first_page);
  if (i == t.size() || t[i].first != first_page)
    return fail(LOOM_ERR_BAD_POINTER, "%p is not the start of a block Loom allocated (or it was freed)",
                (void*)(rt.base + first_page * kPage));
  *kind = t[i].kind();
  *npages = t[i].npages();
  return Status::ok();
}

namespace {
// Binary search of the table's n entries for page p, entry by entry (no
// allocation in a signal handler).
bool search(uint64_t n, uint64_t p, Block* out) {
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    uint64_t mid = (lo + hi) / 2;
    Block m;
    rt.tp.get(0, Seg::Meta, rt.meta.heap + kEntries + mid * sizeof(Block), &m, sizeof m);
    if (m.first + m.npages() <= p) lo = mid + 1;
    else if (m.first > p) hi = mid;
    else {
      *out = m;
      return true;
    }
  }
  return false;
}

// Find the block holding page p with a seqlock read (no lock: used by the
// fault handler, which should not queue behind allocations).  Returns the
// table version the answer is valid for.  A reader that keeps losing the
// race to writers reads under the heap lock instead, so the answer is
// never torn and never given up on (the fault handler may take the lock:
// this rank holds it only inside heap_alloc/heap_free, which touch no Loom
// page).
constexpr int kSeqlockTries = 64;
bool find_block(uint64_t p, Block* out, uint64_t* version) {
  Transport& tp = rt.tp;
  for (int attempt = 0; attempt < kSeqlockTries; attempt++) {
    const uint64_t v0 = tp.load(0, Seg::Meta, rt.meta.heap + kVersion);
    if (!(v0 & 1)) {
      Block b{};
      const bool found = search(tp.load(0, Seg::Meta, rt.meta.heap + kCount), p, &b);
      std::atomic_thread_fence(std::memory_order_acquire);  // the entries were read before the check
      if (tp.load(0, Seg::Meta, rt.meta.heap + kVersion) == v0) {
        *out = b;
        *version = v0;
        return found;
      }
    }
    sched_yield();
  }
  sync_lock_raw(rt.heap_lock);
  *version = tp.load(0, Seg::Meta, rt.meta.heap + kVersion);
  const bool found = search(tp.load(0, Seg::Meta, rt.meta.heap + kCount), p, out);
  sync_unlock_raw(rt.heap_lock);
  return found;
}
}  // namespace

bool heap_find(uint64_t p, HeapBlock* out) {
  Block b;
  uint64_t v;
  if (!find_block(p, &b, &v)) return false;
  *out = HeapBlock{b.first, b.npages(), b.kind(), b.tag()};
  return true;
}

// Pages of chunks count as loom_alloc pages (kSingle: re-checked against
// the table when it changed), like the blocks carved from them.
bool heap_mark_if_allocated(uint64_t p) {
  Block b;
  uint64_t v;
  if (!find_block(p, &b, &v)) return false;
  uint8_t f = b.kind() != kHeapCollective ? kAlloc | kSingle : kAlloc;
  for (uint64_t q = b.first; q < b.first + b.npages(); q++) {
    rt.pages.flags[q] |= f;
    rt.pages.heap_checked[q] = (uint32_t)v;
  }
  rt.pages.mark_block(b.first, b.npages());
  return true;
}

bool heap_still_allocated(uint64_t p) {
  uint64_t v = rt.tp.load(0, Seg::Meta, rt.meta.heap + kVersion);
  if ((uint32_t)v == rt.pages.heap_checked[p] && !(v & 1)) return true;
  Block b;
  if (find_block(p, &b, &v) && b.kind() != kHeapCollective) {
    rt.pages.heap_checked[p] = (uint32_t)v;
    return true;
  }
  rt.pages.flags[p] &= (uint8_t)~(kAlloc | kSingle);
  return false;
}

// For the message of a fault no block covers (vm.cpp): the blocks just
// below and just above byte offset off, read with the seqlock alone (a
// crashing rank must not wait for the heap lock).
size_t heap_describe_near(uint64_t off, char* buf, size_t len) {
  const uint64_t p = off / kPage;
  Transport& tp = rt.tp;
  Block below{}, above{};
  bool has_below = false, has_above = false, consistent = false;
  for (int attempt = 0; attempt < kSeqlockTries && !consistent; attempt++) {
    const uint64_t v0 = tp.load(0, Seg::Meta, rt.meta.heap + kVersion);
    if (v0 & 1) continue;
    const uint64_t n = tp.load(0, Seg::Meta, rt.meta.heap + kCount);
    uint64_t lo = 0, hi = n;  // the first block starting above p
    while (lo < hi) {
      const uint64_t mid = (lo + hi) / 2;
      Block m;
      tp.get(0, Seg::Meta, rt.meta.heap + kEntries + mid * sizeof(Block), &m, sizeof m);
      if (m.first <= p) lo = mid + 1;
      else hi = mid;
    }
    has_below = lo > 0, has_above = lo < n;
    if (has_below) tp.get(0, Seg::Meta, rt.meta.heap + kEntries + (lo - 1) * sizeof(Block), &below, sizeof below);
    if (has_above) tp.get(0, Seg::Meta, rt.meta.heap + kEntries + lo * sizeof(Block), &above, sizeof above);
    std::atomic_thread_fence(std::memory_order_acquire);
    consistent = tp.load(0, Seg::Meta, rt.meta.heap + kVersion) == v0;
  }
  if (!consistent) return (size_t)std::snprintf(buf, len, "the allocation table was changing; no nearest block");
  auto what = [](const Block& b, char* out, size_t n) {
    void* start = rt.base + b.first * kPage;
    const unsigned long long bytes = b.npages() * kPage;
    if (b.kind() == kHeapCollective)
      std::snprintf(out, n, "the collective block at %p (%llu bytes, pages of loom_alloc_collective)", start, bytes);
    else if (b.kind() == kHeapSmall)
      std::snprintf(out, n, "rank %d's chunk of small loom_alloc blocks at %p (%llu bytes)", small_chunk_owner(b.tag()), start, bytes);
    else
      std::snprintf(out, n, "the block at %p (%llu bytes in whole pages) that rank %u allocated with loom_alloc", start,
                    bytes, b.tag());
  };
  char a[200], b[200];
  int k = 0;
  if (has_below) {
    what(below, a, sizeof a);
    k = std::snprintf(buf, len, "%llu bytes past the end of %s",
                      (unsigned long long)(off - (below.first + below.npages()) * kPage), a);
  }
  if (has_above && k >= 0 && (size_t)k < len) {
    what(above, b, sizeof b);
    k += std::snprintf(buf + k, len - (size_t)k, "%s%llu bytes before %s", has_below ? "; " : "",
                       (unsigned long long)(above.first * kPage - off), b);
  }
  if (!has_below && !has_above) k = std::snprintf(buf, len, "nothing is allocated in Loom memory now");
  return k < 0 ? 0 : (size_t)k;
}

}  // namespace loom

