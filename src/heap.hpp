// Allocation of global memory (heap.cpp): one block table in rank 0's Meta,
// changed under an internal lock, read lock-free by the fault handler.
#pragma once
#include <cstdint>

#include "status.hpp"

namespace loom {

constexpr uint32_t kHeapMax = 16384;  // allocated blocks at once
// Kinds of blocks: loom_alloc's whole-page blocks, collective blocks, and
// chunks of the small-block allocator (small_alloc.hpp), never freed.
enum : uint32_t { kHeapSingle = 1, kHeapCollective = 2, kHeapSmall = 3 };
constexpr uint64_t kHeapTagBits = 25;  // a block's tag: what its kind needs to say (chunks: owner, slot, class)

struct HeapBlock {
  uint64_t first, npages;
  uint32_t kind, tag;
};

// A block of npages pages, first fit, under the heap lock; `tag` (less
// than 2^kHeapTagBits) is kept with it for heap_find.
Status heap_alloc(uint64_t npages, uint32_t kind, uint64_t* first_page, uint32_t tag = 0);
Status heap_free(uint64_t first_page, uint32_t kind, uint64_t* npages);
// Fault path: if page p lies in an allocated block, mark the block's pages
// allocated here and return true.
bool heap_mark_if_allocated(uint64_t p);
// The block holding page p, read without the heap lock (seqlock); false
// when p is in no block.
bool heap_find(uint64_t p, HeapBlock* out);
Status heap_lookup(uint64_t first_page, uint32_t* kind, uint64_t* npages);
// For a page of a loom_alloc block: is the block still allocated?  Costs one
// load of the table's version when the table has not changed since the
// page's last check.  Clears the page's block flags when it was freed.
bool heap_still_allocated(uint64_t p);
// Says which blocks lie nearest below and above byte offset off of Loom
// memory (for the message of a fault no block covers); no lock, no
// allocation.  Returns the length written, as snprintf.
size_t heap_describe_near(uint64_t off, char* buf, size_t len);

}  // namespace loom
