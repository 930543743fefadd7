// Page diffing for Loom's multiple-writer protocol.
//
// Why this design: a writer keeps a twin (pristine copy) of a page and, at
// release, ships only the bytes it changed to the page's home. Several
// processes may write different bytes of the same page -- even of the same
// 8-byte word -- concurrently, and their diffs may reach the home in either
// order. A diff is therefore byte-exact: a run never contains a byte equal to
// its twin byte, so applying one writer's diff can never overwrite another
// writer's bytes with stale values. Speed comes from comparing 64-bit words:
// equal words are skipped and fully different words extend a run without a
// per-byte look; only partially different words are inspected byte by byte.
//
// Thread-safety: all functions are pure (they touch only their arguments and
// keep no state) and are safe to call concurrently, provided the caller does
// not mutate the buffers being read or written during the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom {

// One run of changed bytes: `len` bytes at `offset` within the page.
struct DiffRun {
    uint32_t offset;
    uint32_t len;
};

// Encoded diff format in a byte buffer: a sequence of records, each
//   uint32_t offset, uint32_t len (native byte order), then `len` data bytes,
//   then zero padding to a multiple of 8,
// followed by nothing (the buffer's used length marks the end).
// Returns the number of bytes written to `out`. `out` must have room for
// diff_max_encoded(len) bytes. `len` must fit in uint32_t.
size_t diff_encode(const uint8_t* twin, const uint8_t* cur, size_t len, uint8_t* out);

// Worst case encoded size (alternating changed/unchanged bytes).
size_t diff_max_encoded(size_t len);

// Apply an encoded diff (from diff_encode) of `enc_len` bytes to `page`
// (length page_len). Records are applied in order; returns false (and applies
// nothing from the bad record onwards) if a record is out of bounds or
// truncated.
bool diff_apply(uint8_t* page, size_t page_len, const uint8_t* enc, size_t enc_len);

// Callback form used by the runtime to write runs straight into a remote home
// without an intermediate buffer: calls fn(offset, len, ctx) for every maximal
// run of changed bytes, in increasing offset order; returns the total number
// of changed bytes. `fn` may be null (then only the count is computed).
using DiffRunFn = void (*)(uint32_t offset, uint32_t len, void* ctx);

// The runs of one diff as two lists, filled by passing DiffRunList::add and
// the list to diff_runs or mask_runs.
struct DiffRunList {
  std::vector<uint32_t> off, len;
  void clear() {
    off.clear();
    len.clear();
  }
  static void add(uint32_t offset, uint32_t n, void* list) {
    static_cast<DiffRunList*>(list)->off.push_back(offset);
    static_cast<DiffRunList*>(list)->len.push_back(n);
  }
};
size_t diff_runs(const uint8_t* twin, const uint8_t* cur, size_t len, DiffRunFn fn, void* ctx);

// Number of changed bytes only (no output).
size_t diff_count(const uint8_t* twin, const uint8_t* cur, size_t len);

// A diff as a mask of its changed bytes: bit b of mask[b / 64] is set iff
// byte b changed.  Every step over a mask costs by the page's words, not by
// its runs: a page of dense short runs (IS changes one byte in four: 1,024
// runs a page) is scanned without a branch a byte, and stored byte-exact
// without a call a run.  `len` is a multiple of 64; `mask` has len / 64 words.
struct DiffMask {
  size_t bytes = 0;  // changed bytes
  size_t runs = 0;   // maximal runs of them (as diff_runs finds)
};
DiffMask diff_mask(const uint8_t* twin, const uint8_t* cur, size_t len, uint64_t* mask);

// The mask's maximal runs in increasing offset order: fn(offset, len, ctx).
void mask_runs(const uint64_t* mask, size_t words, DiffRunFn fn, void* ctx);

// The marked bytes of src, back to back, written to out; returns how many.
size_t mask_pack(uint8_t* out, const uint8_t* src, const uint64_t* mask, size_t words);
// The inverse: packed bytes stored at the marked offsets of dst, no other
// byte of dst written; returns how many were read.
size_t mask_unpack(uint8_t* dst, const uint8_t* packed, const uint64_t* mask, size_t words);
// The marked bytes of src stored at the same offsets of dst, no other byte
// of dst written (a mapped home's copy of a diff).
void mask_store(uint8_t* dst, const uint8_t* src, const uint64_t* mask, size_t words);

}  // namespace loom
