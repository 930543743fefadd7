// Coherence under release consistency: barrier-separated phases see each
// other's writes (with owners rotating so pages change writers and homes
// differ from writers), concurrent writes by several ranks to different bytes
// of one page all survive, and a chain of write-after-read hand-offs across
// ranks carries the latest values.
//
// mr_coherence T runs T threads per rank: the workers are ranks x threads
// (worker rank*T + t), so threads of one rank share pages, twins and diffs.
#include <cstdint>
#include <cstring>

#include "mr.h"

static uint64_t val(uint64_t i, int phase) { return (i * 2654435761u) ^ ((uint64_t)phase << 40) ^ 0x5a5a; }

static void coherence(int r, int n) {

  // 1. Rotating owners over 64 pages, 6 phases.
  const uint64_t M = 64 * 512;  // uint64 per page: 512
  uint64_t* a = (uint64_t*)mr_walloc(M * 8, -1);
  const uint64_t chunk = 700;  // not a page multiple: owners share pages
  for (int phase = 0; phase < 6; phase++) {
    for (uint64_t i = 0; i < M; i++)
      if ((int)((i / chunk + phase) % n) == r) a[i] = val(i, phase);
    mr_wbar();
    uint64_t bad = 0;
    for (uint64_t i = 0; i < M; i++) bad += a[i] != val(i, phase);
    CHECK(bad == 0);
    mr_wbar();
  }

  // 2. False sharing, byte-granular: worker r writes bytes b with b % n == r,
  // including bytes that share an 8-byte word with other workers' bytes.
  uint8_t* page = (uint8_t*)mr_walloc(2 * 4096, -1);
  for (int round = 0; round < 4; round++) {
    for (int b = 0; b < 2 * 4096; b++)
      if (b % n == r) page[b] = (uint8_t)(b * 7 + round * 13 + 1);
    mr_wbar();
    int bad = 0;
    for (int b = 0; b < 2 * 4096; b++) bad += page[b] != (uint8_t)(b * 7 + round * 13 + 1);
    CHECK(bad == 0);
    mr_wbar();
  }

  // 3. A token passed around the workers: each in turn reads the word the
  // previous one wrote and writes the next, in different pages each step.
  uint64_t* chain = (uint64_t*)mr_walloc(16 * 4096, -1);
  uint64_t steps = 3 * (uint64_t)n;
  for (uint64_t s = 0; s < steps; s++) {
    if ((int)(s % n) == r) {
      uint64_t prev = s == 0 ? 0 : chain[((s - 1) % 16) * 512 + s % 7];
      CHECK(prev == (s == 0 ? 0 : 1000 + s - 1));
      chain[(s % 16) * 512 + (s + 1) % 7] = 1000 + s;
    }
    mr_wbar();
  }

  // 4. Data written before a barrier by one worker is read by all after it,
  // including a large block of whole pages (the prefetch path).
  const uint64_t B = 1000 * 512;
  uint64_t* big = (uint64_t*)mr_walloc(B * 8, -1);
  if (r == n - 1)
    for (uint64_t i = 0; i < B; i++) big[i] = i ^ 0xdeadbeef;
  mr_wbar();
  uint64_t bad = 0;
  for (uint64_t i = 0; i < B; i++) bad += big[i] != (i ^ 0xdeadbeef);
  CHECK(bad == 0);
  mr_wfree(big);
  mr_wfree(chain);
  mr_wfree(page);
  mr_wfree(a);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), coherence);
  return mr_finish("mr_coherence");
}
