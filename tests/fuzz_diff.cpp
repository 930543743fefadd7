// fuzz_diff: a seeded random fuzzer for the diff codec (src/diff.hpp).
//
// Why seeded and not coverage-guided: gcc has no libFuzzer, and a
// deterministic generator gives the same inputs on every run, so a failure
// in CI is reproduced by running the same seed.  The generator aims at what
// the word-at-a-time scanner gets wrong: lengths that are not multiples of 8,
// unaligned buffers, runs that start, end or stop one byte short of a word
// boundary, words with some bytes changed, and bytes written back to their
// old value (no change).
//
// Each iteration checks, against a plain byte-by-byte model:
//  - diff_runs gives exactly the maximal runs of changed bytes: in bounds,
//    sorted, non-empty, not overlapping and not touching; every byte in a run
//    changed and every byte outside one not; the returned total is the sum of
//    the run lengths and equals diff_count;
//  - applying the runs of twin->cur to twin yields cur exactly;
//  - diff_encode fits in diff_max_encoded (the buffer is exactly that size,
//    so ASan sees any write past it), and diff_apply of it onto twin yields
//    cur;
//  - byte-exactness: two writers changing disjoint bytes of one twin, their
//    diffs applied in either order, give the same merged page;
//  - diff_apply of a damaged encoding (truncated, or a header overwritten)
//    never touches bytes outside the page and agrees with the model on
//    whether it is valid and on the resulting page.
//
// Usage: fuzz_diff [iterations] [seed]  (defaults: 20000, 1).  Exit status
// nonzero on the first failed property, with the seed and iteration.
#include "diff.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fuzz_rng.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using loom::DiffRun;

unsigned long long g_seed = 1, g_iter = 0;

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "fuzz_diff: FAIL at seed %llu iteration %llu: %s\n", g_seed, g_iter, what);
  std::exit(1);
}
#define REQUIRE(c) \
  do {             \
    if (!(c)) die(#c); \
  } while (0)

void collect(uint32_t off, uint32_t len, void* ctx) { static_cast<std::vector<DiffRun>*>(ctx)->push_back({off, len}); }

// The model: maximal runs of differing bytes, one byte at a time.
std::vector<DiffRun> model_runs(const uint8_t* a, const uint8_t* b, size_t len) {
  std::vector<DiffRun> r;
  size_t i = 0;
  while (i < len) {
    if (a[i] == b[i]) {
      i++;
      continue;
    }
    size_t j = i;
    while (j < len && a[j] != b[j]) j++;
    r.push_back({(uint32_t)i, (uint32_t)(j - i)});
    i = j;
  }
  return r;
}

size_t pick_len(Rng& g) {
  switch (g.below(6)) {
    case 0: return g.below(17);                     // tiny: tail loop only
    case 1: return 4096;                            // a page
    case 2: return 8 * g.below(64) + g.below(8);    // near word multiples
    case 3: return 4096 * (1 + g.below(3)) + g.below(9) - 4;
    default: return g.below(9000);
  }
}

// Change some bytes of `cur` (a copy of the twin) in shapes that stress the
// scanner; `mask`, when given, limits the changes to bytes where mask is set.
void mutate(Rng& g, uint8_t* cur, size_t len, const uint8_t* mask) {
  if (!len) return;
  auto set = [&](size_t i, uint8_t v) {
    if (i < len && (!mask || mask[i])) cur[i] = v;
  };
  auto changed = [&](size_t i) { return (uint8_t)(cur[i] ^ (1 + g.below(255))); };  // never equal
  const bool many = g.below(4) == 0;
  const size_t edits = many ? 1 + len / 16 : 1 + g.below(12);
  for (size_t e = 0; e < edits; e++) {
    size_t at = g.below(len);
    switch (g.below(7)) {
      case 0: set(at, changed(at)); break;                                   // one byte
      case 1: {                                                              // a run
        size_t n = 1 + g.below(!many && g.chance(20) ? len : 40);
        for (size_t k = 0; k < n && at + k < len; k++) set(at + k, changed(at + k));
        break;
      }
      case 2: {                                                              // a whole aligned word
        size_t w = at & ~size_t{7};
        for (size_t k = 0; k < 8; k++) set(w + k, changed(std::min(w + k, len - 1)));
        break;
      }
      case 3: {                                                              // some bytes of a word
        size_t w = at & ~size_t{7};
        for (size_t k = 0; k < 8; k++)
          if (g.chance(50) && w + k < len) set(w + k, changed(w + k));
        break;
      }
      case 4: set(at, cur[at]); break;                                       // written, same value
      case 5: {                                                              // up to a word boundary
        size_t end = (at | 7) + (g.below(3)) - 1;
        for (size_t k = at; k <= end && k < len; k++) set(k, changed(k));
        break;
      }
      default: {                                                             // every other byte
        size_t n = 2 * (1 + g.below(32));
        for (size_t k = 0; k < n; k += 2) set(at + k, changed(std::min(at + k, len - 1)));
        break;
      }
    }
  }
}

// Apply runs of `src` onto `dst`.
void apply_runs(uint8_t* dst, const uint8_t* src, const std::vector<DiffRun>& runs) {
  for (const DiffRun& r : runs) std::memcpy(dst + r.offset, src + r.offset, r.len);
}

// The model of diff_apply: the same record format, read independently.
bool model_apply(uint8_t* page, size_t page_len, const uint8_t* enc, size_t enc_len) {
  size_t pos = 0;
  while (pos != enc_len) {
    if (pos + 8 > enc_len) return false;
    uint32_t off = 0, n = 0;
    std::memcpy(&off, enc + pos, 4);
    std::memcpy(&n, enc + pos + 4, 4);
    uint64_t data_end = (uint64_t)pos + 8 + (((uint64_t)n + 7) / 8) * 8;
    if (data_end > enc_len) return false;
    if ((uint64_t)off + n > page_len) return false;
    for (uint32_t k = 0; k < n; k++) page[off + k] = enc[pos + 8 + k];
    pos = (size_t)data_end;
  }
  return true;
}

void check_runs(const uint8_t* twin, const uint8_t* cur, size_t len) {
  std::vector<DiffRun> runs;
  size_t total = loom::diff_runs(twin, cur, len, collect, &runs);
  const std::vector<DiffRun> want = model_runs(twin, cur, len);
  size_t sum = 0;
  for (size_t k = 0; k < runs.size(); k++) {
    REQUIRE(runs[k].len > 0);
    REQUIRE((uint64_t)runs[k].offset + runs[k].len <= len);
    if (k) REQUIRE(runs[k - 1].offset + runs[k - 1].len < runs[k].offset);  // sorted, apart
    for (uint32_t b = 0; b < runs[k].len; b++) REQUIRE(twin[runs[k].offset + b] != cur[runs[k].offset + b]);
    sum += runs[k].len;
  }
  REQUIRE(runs.size() == want.size());
  for (size_t k = 0; k < runs.size(); k++) REQUIRE(runs[k].offset == want[k].offset && runs[k].len == want[k].len);
  REQUIRE(total == sum);
  REQUIRE(loom::diff_runs(twin, cur, len, nullptr, nullptr) == total);
  REQUIRE(loom::diff_count(twin, cur, len) == total);

  Bytes page(twin, twin + len);
  apply_runs(page.data(), cur, runs);
  REQUIRE(page == Bytes(cur, cur + len));
}

// Encode into a buffer of exactly diff_max_encoded bytes; returns the encoding.
Bytes encode(const uint8_t* twin, const uint8_t* cur, size_t len) {
  const size_t max = loom::diff_max_encoded(len);
  uint8_t* out = static_cast<uint8_t*>(std::malloc(max ? max : 1));
  REQUIRE(out);
  size_t n = loom::diff_encode(twin, cur, len, out);
  REQUIRE(n <= max);
  REQUIRE(n % 8 == 0);
  Bytes enc(out, out + n);
  std::free(out);
  return enc;
}

void one_iteration(Rng& g) {
  const size_t len = pick_len(g);
  // Buffers at a random misalignment, with guard bytes that must not change.
  const size_t shift = g.below(8), guard = 16;
  Bytes tbuf(len + shift + guard), cbuf(len + shift + guard);
  uint8_t* twin = tbuf.data() + shift;
  uint8_t* cur = cbuf.data() + shift;
  const unsigned fill = (unsigned)g.below(3);
  for (size_t i = 0; i < len; i++)
    twin[i] = fill == 0 ? 0 : fill == 1 ? (uint8_t)g.next() : (uint8_t)(i * 7);
  std::memcpy(cur, twin, len);
  mutate(g, cur, len, nullptr);

  check_runs(twin, cur, len);

  // Encode and apply.
  Bytes enc = encode(twin, cur, len);
  Bytes page(twin, twin + len);
  page.resize(len + guard, 0xa5);
  REQUIRE(loom::diff_apply(page.data(), len, enc.data(), enc.size()));
  REQUIRE(std::memcmp(page.data(), cur, len) == 0);
  for (size_t i = len; i < len + guard; i++) REQUIRE(page[i] == 0xa5);

  // Two writers on disjoint bytes of the same twin: either order merges.
  if (len) {
    Bytes mask_a(len), mask_b(len);
    for (size_t i = 0; i < len; i++) mask_a[i] = (uint8_t)g.chance(50), mask_b[i] = !mask_a[i];
    Bytes a(twin, twin + len), b(twin, twin + len);
    mutate(g, a.data(), len, mask_a.data());
    mutate(g, b.data(), len, mask_b.data());
    Bytes merged(twin, twin + len);
    for (size_t i = 0; i < len; i++) merged[i] = mask_a[i] ? a[i] : b[i];
    Bytes ea = encode(twin, a.data(), len), eb = encode(twin, b.data(), len);
    Bytes p1(twin, twin + len), p2(twin, twin + len);
    REQUIRE(loom::diff_apply(p1.data(), len, ea.data(), ea.size()));
    REQUIRE(loom::diff_apply(p1.data(), len, eb.data(), eb.size()));
    REQUIRE(loom::diff_apply(p2.data(), len, eb.data(), eb.size()));
    REQUIRE(loom::diff_apply(p2.data(), len, ea.data(), ea.size()));
    REQUIRE(p1 == merged && p2 == merged);
  }

  // A damaged encoding: never writes outside the page, and agrees with the
  // model on validity and on the bytes it applied (records before the bad one).
  if (!enc.empty() || g.chance(30)) {
    Bytes bad = enc;
    switch (g.below(4)) {
      case 0: bad.resize(g.below(bad.size() + 1)); break;                      // truncated
      case 1: if (bad.size() >= 8) {                                           // a header overwritten
          size_t rec = 8 * g.below(bad.size() / 8);
          uint32_t v = g.chance(50) ? (uint32_t)g.next() : (uint32_t)(len + g.below(16) - 8);
          std::memcpy(&bad[rec + 4 * g.below(2)], &v, 4);
        }
        break;
      case 2: for (size_t i = 0, n = 1 + g.below(24); i < n; i++) bad.push_back((uint8_t)g.next()); break;  // junk
      default: bad.assign(g.below(64), 0); for (auto& x : bad) x = (uint8_t)g.next(); break;           // noise
    }
    const size_t plen = g.chance(20) ? g.below(len + 1) : len;  // maybe a smaller page
    Bytes p1(plen + guard, 0x5a), p2(plen + guard, 0x5a);
    // Exactly-sized copies so that ASan sees any read past the encoding.
    uint8_t* e = static_cast<uint8_t*>(std::malloc(bad.size() ? bad.size() : 1));
    REQUIRE(e);
    if (!bad.empty()) std::memcpy(e, bad.data(), bad.size());
    bool got = loom::diff_apply(p1.data(), plen, e, bad.size());
    bool want = model_apply(p2.data(), plen, e, bad.size());
    std::free(e);
    REQUIRE(got == want);
    REQUIRE(p1 == p2);
    for (size_t i = plen; i < plen + guard; i++) REQUIRE(p1[i] == 0x5a);
  }

  for (size_t i = 0; i < guard; i++) REQUIRE(tbuf[shift + len + i] == 0 && cbuf[shift + len + i] == 0);
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long long iters = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 20000;
  g_seed = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 1;
  Rng g{g_seed};
  // Fixed cases first: empty, all equal, all different.
  for (size_t len : {0, 1, 7, 8, 9, 4096}) {
    Bytes a(len, 0x11), b(len, 0x11), c(len, 0x22);
    check_runs(a.data(), b.data(), len);
    check_runs(a.data(), c.data(), len);
  }
  for (g_iter = 0; g_iter < iters; g_iter++) one_iteration(g);
  std::printf("fuzz_diff: seed %llu: %llu passed, 0 failed\n", g_seed, iters);
  return 0;
}
