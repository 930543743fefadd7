// Small blocks for loom_alloc.  SPLASH-style programs allocate thousands of
// blocks of a few dozen bytes (WATER: NumProcs * NMOL * 3 blocks of 24);
// as whole pages each took a page, a heap-table entry, the heap lock and a
// release.  Here a rank carves size classes (16, 32, 48, 64, 96, ...,
// 1536, 2048 bytes: multiples of 16, so every block is 16-byte aligned)
// out of chunks of kChunkPages pages that it takes from the heap
// (heap_alloc, kind kHeapSmall) and never gives back.  The heap entry's tag
// names the chunk's owner rank, its slot and its class, so any rank finds
// a block's size and state from the pointer alone.
//
// Each rank's Meta holds its chunks' slots: {first page + 1, one bit per
// block, set while allocated}.  Only the owner allocates from its chunks,
// so only it sets bits (one atomic OR on its own Meta, no lock, no release);
// any rank frees by clearing a bit (CAS), which also detects a double free.
// The owner keeps a local copy of its bits that is a superset of Meta's,
// and reads Meta's again only when the counter of other ranks' frees has
// moved and its chunks of the class look full.  Only a new chunk costs the
// heap lock and a release, as a whole-page loom_alloc does.
//
// To the coherence protocol a chunk is ordinary memory: freeing a block
// forgets no page (unlike loom_free of a whole block, which every rank
// forgets).  Memory reads as zero when handed out: a chunk's blocks are
// zero until first used; the freeing rank zeroes a block and releases
// before clearing its bit (so the homes hold zeros), and the owner zeroes
// a reused block again before handing it out (its own copy may predate the
// free).
#include "small_alloc.hpp"

#include <cstring>

#include "heap.hpp"
#include "protocol/protocol.hpp"
#include "runtime.hpp"

namespace loom {
namespace {

constexpr uint32_t kClassSize[kSmallClasses] = {16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048};

int class_of(size_t size) {
  int c = 0;
  while (kClassSize[c] < size) c++;
  return c;
}
uint32_t blocks_of(int cls) { return (uint32_t)(kChunkPages * kPage / kClassSize[cls]); }

// Tag: class in bits 0-3, slot in 4-12, owner rank in 13-24.
static_assert(kSmallClasses <= 16 && kSmallSlots <= 512 && kMaxRanks <= 4096 && kHeapTagBits >= 25, "the tag's fields");
uint32_t make_tag(int cls, uint32_t slot, int owner) { return (uint32_t)cls | slot << 4 | (uint32_t)owner << 13; }
int tag_class(uint32_t t) { return (int)(t & 15); }
uint32_t tag_slot(uint32_t t) { return (t >> 4) & 511; }
int tag_owner(uint32_t t) { return (int)(t >> 13); }

uint64_t frees_off() { return rt.meta.small; }
uint64_t slot_off(uint32_t slot) { return rt.meta.small + 8 * (8 + (uint64_t)slot * kSlotWords); }
uint64_t bits_off(uint32_t slot, uint32_t word) { return slot_off(slot) + 8 * (1 + (uint64_t)word); }

// A block of chunk `slot`, if this rank's view has one free.
bool take(uint32_t slot, void** out) {
  SmallChunk& c = rt.small.chunks[slot];
  const uint32_t n = blocks_of((int)c.cls);
  uint32_t i = n;
  bool reused = false;
  if (c.fresh < n) {
    i = c.fresh++;
  } else {
    for (uint32_t w = 0; w < (n + 63) / 64 && i == n; w++) {
      uint64_t freeb = ~c.bits[w];
      if (w == n / 64) freeb &= (1ull << (n % 64)) - 1;  // past the last block
      if (freeb) i = w * 64 + (uint32_t)__builtin_ctzll(freeb);
    }
    if (i == n) return false;
    reused = true;
  }
  const uint64_t bit = 1ull << (i % 64);
  c.bits[i / 64] |= bit;
  const uint64_t was = rt.tp.fetch_or(rt.rank, Seg::Meta, bits_off(slot, i / 64), bit);
  LOOM_ASSERT(!(was & bit));  // only this rank sets bits, and its view said free
  uint8_t* p = rt.base + c.first * kPage + (uint64_t)i * kClassSize[c.cls];
  if (reused) std::memset(p, 0, kClassSize[c.cls]);
  *out = p;
  return true;
}

// Other ranks freed blocks of this rank's chunks since the last look:
// read the bits of the class's chunks again (Meta's bits are what is
// allocated; every block clear there is free).
bool refresh(int cls) {
  const uint64_t frees = rt.tp.load(rt.rank, Seg::Meta, frees_off());
  if (frees == rt.small.remote_frees_seen) return false;
  rt.small.remote_frees_seen = frees;
  for (uint32_t slot : rt.small.by_class[cls]) {
    SmallChunk& c = rt.small.chunks[slot];
    for (uint32_t w = 0; w < (blocks_of(cls) + 63) / 64; w++) c.bits[w] = rt.tp.load(rt.rank, Seg::Meta, bits_off(slot, w));
  }
  return true;
}

Status new_chunk(int cls, uint32_t* slot_out, bool* none_left) {
  SmallHeap& h = rt.small;
  *none_left = h.chunks.size() >= kSmallSlots;
  if (*none_left) return Status::ok();
  const uint32_t slot = (uint32_t)h.chunks.size();
  uint64_t first = 0;
  LOOM_TRY(heap_alloc(kChunkPages, kHeapSmall, &first, make_tag(cls, slot, rt.rank)));
  // As for a whole-page block (api.cpp, loom_alloc): the pages may have
  // had an earlier life that a free on another rank ended.
  proto_release();
  notices_process();
  proto_forget_copies(first, kChunkPages, true);
  for (uint32_t w = 0; w < kChunkBitWords; w++) rt.tp.store(rt.rank, Seg::Meta, bits_off(slot, w), 0);
  rt.tp.store(rt.rank, Seg::Meta, slot_off(slot), first + 1);
  SmallChunk c;
  c.first = first;
  c.cls = (uint32_t)cls;
  c.bits.assign(kChunkBitWords, 0);
  h.chunks.push_back(std::move(c));
  h.by_class[cls].push_back(slot);
  *slot_out = slot;
  return Status::ok();
}

}  // namespace

Status small_alloc(size_t size, void** out) {
  LOOM_ASSERT(size >= 1 && size <= kSmallMax);
  const int cls = class_of(size);
  SmallHeap& h = rt.small;
  for (int round = 0; round < 2; round++) {
    // Newest chunk first: it is the one with fresh blocks.
    const std::vector<uint32_t>& mine = h.by_class[cls];
    for (size_t k = mine.size(); k-- > 0;)
      if (take(mine[k], out)) return Status::ok();
    if (round == 0 && !refresh(cls)) break;
  }
  uint32_t slot = 0;
  bool none_left = false;
  LOOM_TRY(new_chunk(cls, &slot, &none_left));
  if (none_left) {
    *out = nullptr;
    return Status::ok();
  }
  const bool taken = take(slot, out);
  LOOM_ASSERT(taken);
  return Status::ok();
}

Status small_free(void* ptr, uint64_t first, uint32_t tag) {
  const int cls = tag_class(tag), owner = tag_owner(tag);
  const uint32_t slot = tag_slot(tag);
  if (cls >= kSmallClasses || owner >= rt.nranks || slot >= kSmallSlots)
    return fail(LOOM_ERR_BAD_POINTER, "loom_free of %p: its chunk's heap entry is malformed (tag %#x)", ptr, tag);
  const uint32_t size = kClassSize[cls];
  const uint64_t off = (uint64_t)((uint8_t*)ptr - (rt.base + first * kPage));
  if (off % size || off / size >= blocks_of(cls))
    return fail(LOOM_ERR_BAD_POINTER, "loom_free of %p: not the start of a Loom block (it lies in a block of %u bytes at %p)",
                ptr, size, (void*)(rt.base + first * kPage + off / size * size));
  const uint32_t i = (uint32_t)(off / size);
  if (rt.tp.load(owner, Seg::Meta, slot_off(slot)) != first + 1)
    return fail(LOOM_ERR_BAD_POINTER,
                "loom_free of %p: rank %d no longer knows the chunk of this block (a block allocated before a restart "
                "cannot be freed; it stays allocated)",
                ptr, owner);
  const uint64_t bit = 1ull << (i % 64), woff = bits_off(slot, i / 64);
  uint64_t cur = rt.tp.load(owner, Seg::Meta, woff);
  if (!(cur & bit))
    return fail(LOOM_ERR_BAD_POINTER, "loom_free of %p: a %u-byte block that is not allocated (already freed?)", ptr,
                size);
  // The homes hold zeros for the block before anyone can reuse it; this
  // rank's writes to it, and the zeros, reach them by the release.
  std::memset(ptr, 0, size);
  proto_release();
  for (;;) {
    const uint64_t seen = rt.tp.cas(owner, Seg::Meta, woff, cur, cur & ~bit);
    if (seen == cur) break;
    cur = seen;
    if (!(cur & bit))
      return fail(LOOM_ERR_BAD_POINTER, "loom_free of %p: freed twice at once (by another rank too)", ptr);
  }
  if (owner == rt.rank) rt.small.chunks[slot].bits[i / 64] &= ~bit;
  else rt.tp.fetch_add(owner, Seg::Meta, frees_off(), 1);
  return Status::ok();
}

int small_chunk_owner(uint32_t tag) { return tag_owner(tag); }

}  // namespace loom
