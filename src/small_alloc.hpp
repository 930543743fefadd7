// Small blocks of loom_alloc (small_alloc.cpp): sizes up to kSmallMax
// bytes are carved out of per-rank chunks of pages instead of taking whole
// pages each.  Thread safety: under the rank lock (threads.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "status.hpp"

namespace loom {

constexpr size_t kSmallMax = 2048;          // larger requests are whole-page blocks
constexpr int kSmallClasses = 14;           // size classes, 16 .. 2048 bytes
constexpr uint64_t kChunkPages = 16;        // one chunk: 64 KiB, one heap block
constexpr uint32_t kSmallSlots = 512;       // chunks per rank (then whole pages again)
constexpr uint64_t kChunkBitWords = 64;     // allocated-bits of a chunk: 4096 blocks of 16 bytes at most
constexpr uint64_t kSlotWords = 1 + kChunkBitWords;  // {first page + 1, bits...}
// Meta bytes of every rank's chunk table: a counter of frees by other
// ranks, then kSmallSlots slots.
constexpr uint64_t kSmallMetaBytes = 8 * (8 + (uint64_t)kSmallSlots * kSlotWords);

// This rank's view of its own chunks.  bits is a superset of the
// allocated-bits in Meta: only this rank sets bits there (allocation),
// other ranks only clear them (free), so a block clear here is free there.
struct SmallChunk {
  uint64_t first = 0;   // first page
  uint32_t cls = 0;     // size class
  uint32_t fresh = 0;   // blocks [fresh, n) were never handed out (read as zero)
  std::vector<uint64_t> bits;
};
struct SmallHeap {
  std::vector<SmallChunk> chunks;           // indexed by slot
  std::vector<uint32_t> by_class[kSmallClasses];  // slots of each class
  uint64_t remote_frees_seen = 0;           // the Meta counter when bits were last refreshed
  void init() {
    chunks.clear();
    for (auto& c : by_class) c.clear();
    remote_frees_seen = 0;
  }
};

// A block of `size` bytes (1 .. kSmallMax), 16-byte aligned, reading as
// zero.  *out = nullptr with OK when this rank has no chunk slot left (the
// caller takes whole pages instead).
Status small_alloc(size_t size, void** out);
// Free a block inside chunk [first, first + kChunkPages) whose heap tag is
// `tag` (any rank).  A pointer that is not the start of a live block gives
// LOOM_ERR_BAD_POINTER and changes nothing.
Status small_free(void* ptr, uint64_t first, uint32_t tag);
// The rank that owns the chunk whose heap tag is `tag`.
int small_chunk_owner(uint32_t tag);

}  // namespace loom
