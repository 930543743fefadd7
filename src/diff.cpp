// Page diffing implementation.
//
// Why this design: one scanner (diff_runs) finds maximal runs of changed
// bytes; everything that needs runs (diff_encode, the runtime's direct remote
// writes) is layered on it so the byte-exactness rules live in one place.
// The scan XORs 64-bit words loaded with memcpy (alignment-safe): a zero XOR
// skips the word, an XOR with no zero byte extends the run by 8 bytes at once,
// and only mixed words fall back to a per-byte loop. diff_count needs no run
// boundaries, so it counts nonzero XOR bytes with a bit trick and popcount.
#include "diff.hpp"

#include <bit>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace loom {
namespace {

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHigh = 0x8080808080808080ULL;
constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;

inline uint64_t load64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// True iff every byte of v is nonzero (exact test, no false answers).
inline bool no_zero_byte(uint64_t v) { return ((v - kOnes) & ~v & kHigh) == 0; }

// Open/close bookkeeping for the current run.
struct RunState {
    DiffRunFn fn;
    void* ctx;
    size_t start = 0;
    bool open = false;
    size_t total = 0;

    void begin(size_t i) {
        if (!open) { start = i; open = true; }
    }
    void end(size_t i) {
        if (!open) return;
        size_t n = i - start;
        if (fn) fn(static_cast<uint32_t>(start), static_cast<uint32_t>(n), ctx);
        total += n;
        open = false;
    }
    void byte(size_t i, bool changed) { changed ? begin(i) : end(i); }
};

struct EncodeCtx {
    const uint8_t* cur;
    uint8_t* out;
};

void encode_run(uint32_t offset, uint32_t len, void* p) {
    auto* e = static_cast<EncodeCtx*>(p);
    std::memcpy(e->out, &offset, 4);
    std::memcpy(e->out + 4, &len, 4);
    std::memcpy(e->out + 8, e->cur + offset, len);
    size_t padded = (static_cast<size_t>(len) + 7) & ~size_t{7};
    std::memset(e->out + 8 + len, 0, padded - len);
    e->out += 8 + padded;
}

}  // namespace

size_t diff_runs(const uint8_t* twin, const uint8_t* cur, size_t len, DiffRunFn fn, void* ctx) {
    RunState rs{fn, ctx};
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x = load64(twin + i) ^ load64(cur + i);
        if (x == 0) {
            rs.end(i);
        } else if (no_zero_byte(x)) {
            rs.begin(i);
        } else {
            for (size_t k = 0; k < 8; ++k) rs.byte(i + k, twin[i + k] != cur[i + k]);
        }
    }
    for (; i < len; ++i) rs.byte(i, twin[i] != cur[i]);
    rs.end(len);
    return rs.total;
}

size_t diff_count(const uint8_t* twin, const uint8_t* cur, size_t len) {
    size_t n = 0, i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x = load64(twin + i) ^ load64(cur + i);
        // High bit of each byte becomes set iff that byte of x is nonzero;
        // (b & 0x7f) + 0x7f <= 0xfe, so no carry crosses a byte boundary.
        uint64_t y = ((x & kLow7) + kLow7) | x;
        n += static_cast<size_t>(std::popcount(y & kHigh));
    }
    for (; i < len; ++i) n += twin[i] != cur[i];
    return n;
}

size_t diff_max_encoded(size_t len) {
    // Worst case: single-byte runs separated by single unchanged bytes, each
    // costing an 8-byte header plus 8 bytes of padded data.
    return ((len + 1) / 2) * 16;
}

size_t diff_encode(const uint8_t* twin, const uint8_t* cur, size_t len, uint8_t* out) {
    EncodeCtx e{cur, out};
    diff_runs(twin, cur, len, encode_run, &e);
    return static_cast<size_t>(e.out - out);
}

namespace {

// The byte mask of one word's XOR: bit k set iff byte k of x is nonzero.
// Each byte's "nonzero" lands in its high bit (diff_count's trick), then
// the multiply gathers the eight high bits into the top byte: byte k's bit,
// at 8k after the shift, meets the constant's byte 7 - k at bit 56 + k,
// and no two products share a bit position, so nothing carries.
inline uint64_t byte_mask(uint64_t x) {
  const uint64_t y = (((x & kLow7) + kLow7) | x) & kHigh;
  return ((y >> 7) * 0x0102040810204080ULL) >> 56;
}

// The mask of 64 bytes: bit k set iff byte k differs.  With SSE2 (every
// x86-64) a byte compare and a move of the compare's top bits give 16 bits
// at a time; elsewhere 8-byte XORs and byte_mask.
inline uint64_t block_mask(const uint8_t* twin, const uint8_t* cur) {
#if defined(__SSE2__)
  uint64_t m = 0;
  for (int k = 0; k < 4; k++) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(twin + 16 * k));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(cur + 16 * k));
    m |= (uint64_t)(uint16_t)~_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) << (16 * k);
  }
  return m;
#else
  uint64_t m = 0;
  for (size_t k = 0; k < 8; k++) {
    const uint64_t x = load64(twin + 8 * k) ^ load64(cur + 8 * k);
    if (x) m |= byte_mask(x) << (8 * k);
  }
  return m;
#endif
}

// Calls copy(offset, n) for the marked bytes of each mask word, whole
// 8-byte groups at once.
template <class Copy>
inline void each_marked(const uint64_t* mask, size_t words, Copy copy) {
  for (size_t w = 0; w < words; w++) {
    uint64_t m = mask[w];
    if (m == ~uint64_t{0}) {
      copy(w * 64, 64);
      continue;
    }
    while (m) {
      const unsigned k = static_cast<unsigned>(std::countr_zero(m));
      if ((k & 7) == 0 && ((m >> k) & 0xff) == 0xff) {
        copy(w * 64 + k, 8);
        m &= ~(uint64_t{0xff} << k);
      } else {
        copy(w * 64 + k, 1);
        m &= m - 1;
      }
    }
  }
}

// diff_mask's loop, inlined into each of its builds below: with the
// popcnt instruction where the CPU has it (x86-64's baseline lacks it, and
// the library is built for the baseline), a count a mask word is one
// instruction instead of a dozen.
[[gnu::always_inline]] inline DiffMask mask_loop(const uint8_t* twin, const uint8_t* cur, size_t len, uint64_t* mask) {
  DiffMask d;
  uint64_t carry = 0;  // the last byte of the word before changed
  for (size_t w = 0; w < len / 64; w++) {
    const uint64_t m = block_mask(twin + w * 64, cur + w * 64);
    mask[w] = m;
    if (m == 0) {  // most of a sparse page: 64 bytes unchanged
      carry = 0;
      continue;
    }
    d.bytes += static_cast<size_t>(std::popcount(m));
    d.runs += static_cast<size_t>(std::popcount(m & ~((m << 1) | carry)));
    carry = m >> 63;
  }
  return d;
}

#if defined(__x86_64__) && !defined(__POPCNT__)
[[gnu::target("popcnt")]] DiffMask mask_loop_popcnt(const uint8_t* twin, const uint8_t* cur, size_t len,
                                                      uint64_t* mask) {
  return mask_loop(twin, cur, len, mask);
}
#endif

}  // namespace

DiffMask diff_mask(const uint8_t* twin, const uint8_t* cur, size_t len, uint64_t* mask) {
#if defined(__x86_64__) && !defined(__POPCNT__)
  static const bool popcnt = __builtin_cpu_supports("popcnt");
  if (popcnt) return mask_loop_popcnt(twin, cur, len, mask);
#endif
  return mask_loop(twin, cur, len, mask);
}

void mask_runs(const uint64_t* mask, size_t words, DiffRunFn fn, void* ctx) {
  // A word's run starts (a set bit whose lower neighbour is clear) and
  // ends (a set bit whose upper neighbour is clear), across the words'
  // edges; each end closes the run opened last, in this word or before.
  constexpr size_t kNone = ~size_t{0};
  size_t open = kNone;
  for (size_t w = 0; w < words; w++) {
    const uint64_t m = mask[w];
    if (m == 0 || m == ~uint64_t{0}) {
      if (m && open == kNone) open = w * 64;  // a whole word: a run's middle, or its start
      if (m && (w + 1 == words || !(mask[w + 1] & 1))) {
        fn(static_cast<uint32_t>(open), static_cast<uint32_t>(w * 64 + 64 - open), ctx);
        open = kNone;
      }
      continue;
    }
    const uint64_t below = w ? mask[w - 1] >> 63 : 0;
    const uint64_t above = w + 1 < words ? mask[w + 1] & 1 : 0;
    uint64_t starts = m & ~((m << 1) | below);
    uint64_t ends = m & ~((m >> 1) | (above << 63));
    while (ends) {
      if (open == kNone) {
        open = w * 64 + static_cast<size_t>(std::countr_zero(starts));
        starts &= starts - 1;
      }
      const size_t e = w * 64 + static_cast<size_t>(std::countr_zero(ends)) + 1;
      ends &= ends - 1;
      fn(static_cast<uint32_t>(open), static_cast<uint32_t>(e - open), ctx);
      open = kNone;
    }
    if (starts) open = w * 64 + static_cast<size_t>(std::countr_zero(starts));  // runs on into the next word
  }
}

size_t mask_pack(uint8_t* out, const uint8_t* src, const uint64_t* mask, size_t words) {
  size_t n = 0;
  each_marked(mask, words, [&](size_t off, size_t len) {
    std::memcpy(out + n, src + off, len);
    n += len;
  });
  return n;
}

size_t mask_unpack(uint8_t* dst, const uint8_t* packed, const uint64_t* mask, size_t words) {
  size_t n = 0;
  each_marked(mask, words, [&](size_t off, size_t len) {
    std::memcpy(dst + off, packed + n, len);
    n += len;
  });
  return n;
}

void mask_store(uint8_t* dst, const uint8_t* src, const uint64_t* mask, size_t words) {
  each_marked(mask, words, [&](size_t off, size_t len) { std::memcpy(dst + off, src + off, len); });
}

bool diff_apply(uint8_t* page, size_t page_len, const uint8_t* enc, size_t enc_len) {
    size_t pos = 0;
    while (pos < enc_len) {
        if (enc_len - pos < 8) return false;
        uint32_t off, n;
        std::memcpy(&off, enc + pos, 4);
        std::memcpy(&n, enc + pos + 4, 4);
        size_t padded = (static_cast<size_t>(n) + 7) & ~size_t{7};
        if (enc_len - pos - 8 < padded) return false;                   // truncated
        if (off > page_len || page_len - off < n) return false;         // out of bounds
        std::memcpy(page + off, enc + pos + 8, n);
        pos += 8 + padded;
    }
    return true;
}

}  // namespace loom
