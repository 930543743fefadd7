// Coherence under release consistency: barrier-separated phases see each
// other's writes (with owners rotating so pages change writers and homes
// differ from writers), concurrent writes by several ranks to different bytes
// of one page all survive, and a chain of write-after-read hand-offs across
// ranks carries the latest values.
#include <cstdint>
#include <cstring>

#include "mr.h"

static uint64_t val(uint64_t i, int phase) { return (i * 2654435761u) ^ ((uint64_t)phase << 40) ^ 0x5a5a; }

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();

  // 1. Rotating owners over 64 pages, 6 phases.
  const uint64_t M = 64 * 512;  // uint64 per page: 512
  uint64_t* a = nullptr;
  CHECK_OK(loom_alloc_collective(M * 8, (void**)&a));
  const uint64_t chunk = 700;  // not a page multiple: owners share pages
  for (int phase = 0; phase < 6; phase++) {
    for (uint64_t i = 0; i < M; i++)
      if ((int)((i / chunk + phase) % n) == r) a[i] = val(i, phase);
    CHECK_OK(loom_barrier());
    uint64_t bad = 0;
    for (uint64_t i = 0; i < M; i++) bad += a[i] != val(i, phase);
    CHECK(bad == 0);
    CHECK_OK(loom_barrier());
  }

  // 2. False sharing, byte-granular: rank r writes bytes b with b % n == r,
  // including bytes that share an 8-byte word with other ranks' bytes.
  uint8_t* page = nullptr;
  CHECK_OK(loom_alloc_collective(2 * 4096, (void**)&page));
  for (int round = 0; round < 4; round++) {
    for (int b = 0; b < 2 * 4096; b++)
      if (b % n == r) page[b] = (uint8_t)(b * 7 + round * 13 + 1);
    CHECK_OK(loom_barrier());
    int bad = 0;
    for (int b = 0; b < 2 * 4096; b++) bad += page[b] != (uint8_t)(b * 7 + round * 13 + 1);
    CHECK(bad == 0);
    CHECK_OK(loom_barrier());
  }

  // 3. A token passed around the ranks: each rank in turn reads the word the
  // previous one wrote and writes the next, in different pages each step.
  uint64_t* chain = nullptr;
  CHECK_OK(loom_alloc_collective(16 * 4096, (void**)&chain));
  uint64_t steps = 3 * (uint64_t)n;
  for (uint64_t s = 0; s < steps; s++) {
    if ((int)(s % n) == r) {
      uint64_t prev = s == 0 ? 0 : chain[((s - 1) % 16) * 512 + s % 7];
      CHECK(prev == (s == 0 ? 0 : 1000 + s - 1));
      chain[(s % 16) * 512 + (s + 1) % 7] = 1000 + s;
    }
    CHECK_OK(loom_barrier());
  }

  // 4. Data written before a barrier by one rank is read by all after it,
  // including a large block of whole pages (the prefetch path).
  uint64_t* big = nullptr;
  const uint64_t B = 1000 * 512;
  CHECK_OK(loom_alloc_collective(B * 8, (void**)&big));
  if (r == n - 1)
    for (uint64_t i = 0; i < B; i++) big[i] = i ^ 0xdeadbeef;
  CHECK_OK(loom_barrier());
  uint64_t bad = 0;
  for (uint64_t i = 0; i < B; i++) bad += big[i] != (i ^ 0xdeadbeef);
  CHECK(bad == 0);
  return mr_finish("mr_coherence");
}
