/* mt_alloc: loom_alloc and loom_free from several threads of every rank at
 * once (mt_alloc [T], T threads per rank, default 2; workers are ranks x
 * threads, tests/mr.h).  Every worker:
 *
 *   allocates K blocks of sizes from 0 to 2048 bytes (the small-block
 *   allocator) and a few above (whole pages), all at the same time as the
 *   other workers: each block is 16-byte aligned (pages: page-aligned),
 *   reads as zero, and is filled with the worker's and the block's number;
 *   publishes its pointers in Loom memory; after a barrier every worker
 *   reads every block of every worker (the right bytes) and worker 0 checks
 *   that no two blocks overlap;
 *   frees the odd-numbered blocks of the next worker (another thread, or
 *   another rank's), all workers at once, while its own even blocks stay
 *   intact (checked after the barrier), then allocates the odd ones again
 *   (zero again), and frees everything it holds.
 *
 * A block handed to two workers at once, one freed while still handed out,
 * or a free that loses a neighbour's bytes fails a check. */
#include <stdint.h>
#include <string.h>

#include "mr.h"

enum { K = 160 };
static const size_t kSizes[] = {0, 1, 8, 16, 24, 40, 64, 100, 128, 256, 500, 1024, 1536, 2048, 3000, 8192};
#define NSIZES (sizeof kSizes / sizeof kSizes[0])

static size_t size_of(int w, int i) { return kSizes[(size_t)(i * 5 + w) % NSIZES]; }
static uint8_t byte_of(int w, int i) { return (uint8_t)(1 + w * 31 + i); }

static int holds(const uint8_t* p, size_t n, uint8_t v) {
  for (size_t b = 0; b < n; b++)
    if (p[b] != v) return 0;
  return 1;
}

static void worker(int w, int W) {
  uint64_t* table = mr_walloc(sizeof(uint64_t) * (size_t)W * K, -1); /* worker w's pointers at w*K */
  uint64_t* mine = table + (size_t)w * K;
  int bad_align = 0, not_zero = 0;
  for (int i = 0; i < K; i++) {
    const size_t sz = size_of(w, i);
    void* p = NULL;
    CHECK_OK(loom_alloc(sz, &p));
    if (!p || (uintptr_t)p % (sz > 2048 ? 4096 : 16)) bad_align++;
    if (p && !holds(p, sz, 0)) not_zero++;
    if (p) memset(p, byte_of(w, i), sz);
    mine[i] = (uint64_t)(uintptr_t)p;
  }
  CHECK(bad_align == 0);
  CHECK(not_zero == 0);
  mr_wbar();

  /* Every block of every worker, from every worker. */
  int wrong = 0;
  for (int q = 0; q < W; q++)
    for (int i = 0; i < K; i++)
      if (!holds((const uint8_t*)(uintptr_t)table[(size_t)q * K + i], size_of(q, i), byte_of(q, i))) wrong++;
  CHECK(wrong == 0);
  if (w == 0) {
    mr_range_t* all = malloc(sizeof(mr_range_t) * (size_t)W * K);
    for (int q = 0; q < W; q++)
      for (int i = 0; i < K; i++) {
        all[q * K + i].addr = table[(size_t)q * K + i];
        all[q * K + i].size = size_of(q, i) ? size_of(q, i) : 1;
      }
    qsort(all, (size_t)W * K, sizeof(mr_range_t), mr_cmp_range);
    int overlap = 0;
    for (int j = 1; j < W * K; j++)
      if (all[j - 1].addr + all[j - 1].size > all[j].addr) overlap++;
    CHECK(overlap == 0);
    free(all);
  }
  mr_wbar();

  /* Free the next worker's odd blocks, everyone at once. */
  const int next = (w + 1) % W;
  for (int i = 1; i < K; i += 2) CHECK_OK(loom_free((void*)(uintptr_t)table[(size_t)next * K + i]));
  mr_wbar();
  wrong = 0;
  for (int i = 0; i < K; i += 2)
    if (!holds((const uint8_t*)(uintptr_t)mine[i], size_of(w, i), byte_of(w, i))) wrong++;
  CHECK(wrong == 0);
  not_zero = 0;
  for (int i = 1; i < K; i += 2) {
    const size_t sz = size_of(w, i);
    void* p = NULL;
    CHECK_OK(loom_alloc(sz, &p));
    if (!p || !holds(p, sz, 0)) not_zero++;
    if (p) memset(p, byte_of(w, i), sz);
    mine[i] = (uint64_t)(uintptr_t)p;
  }
  CHECK(not_zero == 0);
  mr_wbar();
  wrong = 0;
  for (int q = 0; q < W; q++)
    for (int i = 0; i < K; i++)
      if (!holds((const uint8_t*)(uintptr_t)table[(size_t)q * K + i], size_of(q, i), byte_of(q, i))) wrong++;
  CHECK(wrong == 0);
  mr_wbar();
  for (int i = 0; i < K; i++) CHECK_OK(loom_free((void*)(uintptr_t)mine[i]));
  mr_wfree(table);
}

int main(int argc, char** argv) {
  const int T = mr_threads_arg(argc, argv);
  mr_init(&argc, &argv);
  mr_workers(T, worker);
  return mr_finish("mt_alloc");
}
