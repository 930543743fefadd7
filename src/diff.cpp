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
