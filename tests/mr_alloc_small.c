/* Small loom_alloc blocks (src/small_alloc.cpp) and size 0.
 *  - Blocks of 0..2048 bytes are non-NULL, 16-byte aligned, do not overlap
 *    (across every rank's allocations), read as zero, and are valid on
 *    every rank: each rank writes its blocks, every rank reads them all.
 *  - They are packed: 256 blocks of 16 bytes take at most 2 pages.
 *  - A block freed by its owner, or by another rank, is reused and reads as
 *    zero again; freeing a block leaves its neighbours' data in place.
 *  - loom_free of an interior pointer, of a block start never handed out,
 *    and a double free fail with LOOM_ERR_BAD_POINTER and change nothing.
 *  - Above 2048 bytes blocks are whole pages; loom_alloc(0) and
 *    loom_alloc_collective(0) give unique pointers that free cleanly.
 *  - Thousands of 24-byte allocations (SPLASH WATER's pattern) are cheap:
 *    the time per call is printed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mr.h"

#define CLASS_1536_BLOCKS 42 /* 64 KiB chunk / 1536 */

static int all_zero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return 0;
  return 1;
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();

  /* 1. Reuse after free, in a class nothing else uses yet (1536 bytes):
   * fill one chunk, so that the next block must come from a freed one. */
  uint8_t* full[CLASS_1536_BLOCKS];
  for (int i = 0; i < CLASS_1536_BLOCKS; i++) {
    CHECK_OK(loom_alloc(1500, (void**)&full[i]));
    memset(full[i], 0x40 + r, 1500);
  }
  /* Own free, then reuse: the same block, zero again, neighbours intact. */
  CHECK_OK(loom_free(full[3]));
  uint8_t* again = NULL;
  CHECK_OK(loom_alloc(1536, (void**)&again));
  CHECK(again == full[3]);
  CHECK(again && all_zero(again, 1536));
  CHECK(full[2][1499] == 0x40 + r && full[4][0] == 0x40 + r);
  memset(again, 0x40 + r, 1500);
  /* Another rank frees one of this rank's blocks: rank r frees block 7 of
   * rank r+1; after that the owner's next 1536-byte block is that one. */
  uint64_t mine7 = (uint64_t)(uintptr_t)full[7], theirs7 = 0;
  uint64_t* all7 = malloc(sizeof(uint64_t) * n);
  MPI_Allgather(&mine7, 1, MPI_UINT64_T, all7, 1, MPI_UINT64_T, MPI_COMM_WORLD);
  theirs7 = all7[(r + 1) % n];
  CHECK_OK(loom_barrier()); /* the owner's writes are visible to the freer */
  if (n > 1) {
    CHECK(((uint8_t*)(uintptr_t)theirs7)[10] == 0x40 + (r + 1) % n);
    CHECK_OK(loom_free((void*)(uintptr_t)theirs7));
    CHECK_ERR(loom_free((void*)(uintptr_t)theirs7), LOOM_ERR_BAD_POINTER); /* double free */
  } else {
    CHECK_OK(loom_free(full[7]));
  }
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_alloc(1536, (void**)&again));
  CHECK(again == full[7]);
  CHECK(again && all_zero(again, 1536));
  CHECK(full[6][0] == 0x40 + r && full[8][1499] == 0x40 + r);
  /* A third rank sees zeros there too after the owner's release. */
  CHECK_OK(loom_barrier());
  if (n > 2) CHECK(all_zero((uint8_t*)(uintptr_t)all7[(r + 2) % n], 1536));
  CHECK_OK(loom_barrier());

  /* 2. Many sizes: aligned, zero, disjoint, valid everywhere. */
  const int M = 600;
  static const size_t sizes[] = {0, 1, 8, 15, 16, 17, 24, 32, 40, 48, 64, 100, 128, 200, 256, 500, 1000, 1024, 2000, 2048};
  const int S = (int)(sizeof sizes / sizeof sizes[0]);
  mr_range_t* mine = malloc(sizeof(mr_range_t) * M);
  int bad_align = 0, not_zero = 0;
  for (int i = 0; i < M; i++) {
    size_t sz = sizes[(i * 7 + r) % S];
    void* p = NULL;
    CHECK_OK(loom_alloc(sz, &p));
    if (!p || (uintptr_t)p % 16) bad_align++;
    if (p && !all_zero(p, sz)) not_zero++;
    mine[i].addr = (uint64_t)(uintptr_t)p;
    mine[i].size = sz ? sz : 1;
    if (p) memset(p, (uint8_t)(1 + r + i), sz);
  }
  CHECK(bad_align == 0);
  CHECK(not_zero == 0);
  mr_range_t* all = malloc(sizeof(mr_range_t) * M * n);
  MPI_Allgather(mine, M * 2, MPI_UINT64_T, all, M * 2, MPI_UINT64_T, MPI_COMM_WORLD);
  CHECK_OK(loom_barrier());
  int wrong = 0;
  for (int q = 0; q < n; q++)
    for (int i = 0; i < M; i++) {
      const uint8_t* p = (const uint8_t*)(uintptr_t)all[q * M + i].addr;
      size_t sz = sizes[(i * 7 + q) % S];
      for (size_t b = 0; b < sz; b++)
        if (p[b] != (uint8_t)(1 + q + i)) {
          wrong++;
          break;
        }
    }
  CHECK(wrong == 0);
  qsort(all, (size_t)M * n, sizeof(mr_range_t), mr_cmp_range);
  int overlap = 0;
  for (int i = 1; i < M * n; i++)
    if (all[i - 1].addr + all[i - 1].size > all[i].addr) overlap++;
  CHECK(overlap == 0);

  /* Every rank frees the blocks of the next rank with odd index, then the
   * owners' remaining blocks are intact. */
  CHECK_OK(loom_barrier());
  MPI_Allgather(mine, M * 2, MPI_UINT64_T, all, M * 2, MPI_UINT64_T, MPI_COMM_WORLD);
  const int victim = (r + 1) % n;
  for (int i = 1; i < M; i += 2) CHECK_OK(loom_free((void*)(uintptr_t)all[victim * M + i].addr));
  CHECK_OK(loom_barrier());
  wrong = 0;
  for (int i = 0; i < M; i += 2) {
    const uint8_t* p = (const uint8_t*)(uintptr_t)mine[i].addr;
    size_t sz = sizes[(i * 7 + r) % S];
    for (size_t b = 0; b < sz; b++)
      if (p[b] != (uint8_t)(1 + r + i)) {
        wrong++;
        break;
      }
  }
  CHECK(wrong == 0);
  /* Allocating again reads zero (reused or new). */
  not_zero = 0;
  for (int i = 1; i < M; i += 2) {
    size_t sz = sizes[(i * 7 + r) % S];
    void* p = NULL;
    CHECK_OK(loom_alloc(sz, &p));
    if (!p || !all_zero(p, sz)) not_zero++;
  }
  CHECK(not_zero == 0);

  /* 3. Packing: 256 blocks of 16 bytes on at most 2 pages. */
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < 256; i++) {
    void* p = NULL;
    CHECK_OK(loom_alloc(16, &p));
    uint64_t a = (uint64_t)(uintptr_t)p;
    if (a < lo) lo = a;
    if (a > hi) hi = a;
  }
  CHECK(hi / 4096 - lo / 4096 <= 1);

  /* 4. Bad frees change nothing. */
  uint8_t* b48 = NULL;
  CHECK_OK(loom_alloc(48, (void**)&b48));
  memset(b48, 0x5a, 48);
  CHECK_ERR(loom_free(b48 + 16), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_free(b48 + 1), LOOM_ERR_BAD_POINTER);
  uint8_t* b768 = NULL;
  CHECK_OK(loom_alloc(768, (void**)&b768));
  CHECK_ERR(loom_free(b768 + 768 * 40), LOOM_ERR_BAD_POINTER); /* never handed out */
  CHECK(b48[0] == 0x5a && b48[47] == 0x5a);
  CHECK_OK(loom_free(b48));
  CHECK_ERR(loom_free(b48), LOOM_ERR_BAD_POINTER);
  int local = 0;
  CHECK_ERR(loom_free(&local), LOOM_ERR_BAD_POINTER);
  CHECK_OK(loom_free(b768));

  /* 5. Large blocks stay whole pages; size 0. */
  void* big = NULL;
  CHECK_OK(loom_alloc(2049, &big));
  CHECK(big && (uintptr_t)big % 4096 == 0);
  CHECK_ERR(loom_free((uint8_t*)big + 16), LOOM_ERR_BAD_POINTER);
  CHECK_OK(loom_free(big));
  void *z1 = NULL, *z2 = NULL;
  CHECK_OK(loom_alloc(0, &z1));
  CHECK_OK(loom_alloc(0, &z2));
  CHECK(z1 && z2 && z1 != z2);
  CHECK_OK(loom_free(z1));
  CHECK_OK(loom_free(z2));
  void *c0 = NULL, *c1 = NULL;
  CHECK_OK(loom_alloc_collective(0, &c0));
  CHECK_OK(loom_alloc_collective(0, &c1));
  CHECK(c0 && c1 && c0 != c1);
  uint64_t c0a = (uint64_t)(uintptr_t)c0, c0max = 0;
  MPI_Allreduce(&c0a, &c0max, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  CHECK(c0max == c0a); /* the same address on every rank */
  CHECK_OK(loom_free_collective(c0));
  CHECK_OK(loom_free_collective(c1));

  /* 6. WATER's pattern: many 24-byte blocks. */
  CHECK_OK(loom_barrier());
  const int W = 5000;
  double t0 = loom_wtime();
  int failed = 0;
  for (int i = 0; i < W; i++) {
    void* p = NULL;
    if (loom_alloc(24, &p) != LOOM_OK || !p) failed++;
  }
  double per = (loom_wtime() - t0) / W;
  CHECK(failed == 0);
  if (r == 0) fprintf(stderr, "mr_alloc_small: %d allocations of 24 bytes, %.2f us each\n", W, per * 1e6);

  CHECK_OK(loom_barrier());
  free(all7);
  free(mine);
  free(all);
  return mr_finish("mr_alloc_small");
}
