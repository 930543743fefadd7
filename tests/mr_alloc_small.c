/* Small loom_alloc blocks (src/small_alloc.cpp) and size 0.
 *  - Blocks of 0..2048 bytes are non-NULL, 16-byte aligned, do not overlap
 *    (across every rank's allocations), read as zero, and are valid on
 *    every rank: each rank writes its blocks, every rank reads them all.
 *  - They are packed: 256 blocks of 16 bytes take at most 2 pages.
 *  - A block freed by its owner, or by another rank, is reused and reads as
 *    zero again; freeing a block leaves its neighbours' data in place.
 *  - loom_free of an interior pointer, of a block start never handed out,
 *    and a double free fail with LOOM_ERR_BAD_POINTER and change nothing;
 *    of two frees of one block, by two workers, exactly one succeeds.
 *  - Above 2048 bytes blocks are whole pages; loom_alloc(0) and
 *    loom_alloc_collective(0) give unique pointers that free cleanly.
 *  - Thousands of 24-byte allocations (SPLASH WATER's pattern) are cheap:
 *    the time per call is printed.
 *
 * mr_alloc_small T runs T threads per rank, all allocating at once from
 * their rank's chunks: the 42 blocks of the 1536-byte chunk are split
 * among a rank's threads (block i by thread i % T), which must together
 * get one whole chunk, each block once; each thread frees one of its
 * blocks and allocates again, and the rank's threads must get back exactly
 * the blocks they freed, zero.  Worker w frees a block of worker w + 1 (a
 * sibling, or a thread of the next rank), and the owners' next blocks are
 * those.  Every worker makes its 600 blocks of many sizes at once with the
 * others, writes them, and reads every worker's; no two blocks of any
 * threads of any ranks overlap; worker w frees the odd blocks of worker
 * w + 1.  A rank's threads' 256 x T blocks of 16 bytes are distinct and
 * span at most T + 1 pages.  The bad frees, the double frees by two
 * workers, sizes 0 and above 2048 and the 24-byte run are made by every
 * thread at once; the collective allocations of size 0 by thread 0. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mr.h"

#define CLASS_1536_BLOCKS 42 /* 64 KiB chunk / 1536 */
enum { M = 600 };

static int all_zero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return 0;
  return 1;
}

static int cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

/* Sorted copy of n addresses: how many occur twice. */
static int duplicates(const uint64_t* addr, int n) {
  uint64_t* s = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1));
  memcpy(s, addr, sizeof(uint64_t) * (size_t)n);
  qsort(s, (size_t)n, sizeof(uint64_t), cmp_u64);
  int d = 0;
  for (int i = 1; i < n; i++) d += s[i] == s[i - 1];
  free(s);
  return d;
}

static const size_t sizes[] = {0,   1,   8,   15,  16,  17,  24,   32,   40,   48,
                                64,  100, 128, 200, 256, 500, 1000, 1024, 2000, 2048};
enum { S = (int)(sizeof sizes / sizeof sizes[0]) };

/* Per-rank exchange among a rank's threads (process memory). */
static uint64_t g_again[64], g_pack[64][256];

static void body(int w, int W) {
  const int r = loom_rank(), n = loom_nranks(), t = mr_t, T = mr_T;
  /* The table of addresses every worker reads: the 1536-byte blocks (42 a
   * rank), the ranges of part 2 (M a worker), part 4's blocks and results
   * (3 words a worker). */
  const size_t t1 = 0, t2 = t1 + (size_t)n * CLASS_1536_BLOCKS, t4 = t2 + (size_t)W * M * 2, end = t4 + (size_t)W * 3;
  uint64_t* tab = (uint64_t*)mr_walloc(end * 8, -1);
  if (!tab) return;
  uint64_t* full_tab = tab + t1; /* rank q's block i: full_tab[q * 42 + i] */
#define FULL(q, i) ((uint8_t*)(uintptr_t)full_tab[(q) * CLASS_1536_BLOCKS + (i)])
#define PAT(q, i) ((uint8_t)(0x40 + (q) * T + (i) % T)) /* the allocating worker's pattern */

  /* 1. Reuse after free, in a class nothing else uses yet (1536 bytes):
   * fill one chunk, so that the next block must come from a freed one. */
  for (int i = t; i < CLASS_1536_BLOCKS; i += T) {
    uint8_t* p = NULL;
    CHECK_OK(loom_alloc(1500, (void**)&p));
    full_tab[r * CLASS_1536_BLOCKS + i] = (uint64_t)(uintptr_t)p;
    if (p) memset(p, PAT(r, i), 1500);
  }
  mr_rbar();
  if (t == 0) { /* the rank's threads got one whole chunk, each block once */
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < CLASS_1536_BLOCKS; i++) {
      uint64_t a = full_tab[r * CLASS_1536_BLOCKS + i];
      if (a < lo) lo = a;
      if (a > hi) hi = a;
    }
    CHECK(duplicates(full_tab + r * CLASS_1536_BLOCKS, CLASS_1536_BLOCKS) == 0);
    CHECK(hi - lo == 1536 * (CLASS_1536_BLOCKS - 1));
  }
  /* Own free, then reuse: the rank's threads get back the blocks they
   * freed (block 3 at T = 1), zero again, neighbours intact. */
  const int mine3 = 3 * T + t, mine7 = 7 * T + t; /* blocks of this thread */
  CHECK_OK(loom_free(FULL(r, mine3)));
  uint8_t* again = NULL;
  CHECK_OK(loom_alloc(1536, (void**)&again));
  CHECK(again && all_zero(again, 1536));
  g_again[t] = (uint64_t)(uintptr_t)again;
  mr_rbar();
  int found = 0;
  for (int u = 0; u < T; u++) found += g_again[t] == (uint64_t)(uintptr_t)FULL(r, 3 * T + u);
  CHECK(found == 1);
  if (t == 0) CHECK(duplicates(g_again, T) == 0);
  for (int u = 0; u < T; u++) /* put back the pattern of the block it is */
    if (again == FULL(r, 3 * T + u)) memset(again, PAT(r, 3 * T + u), 1500);
  mr_rbar();
  int wrong = 0;
  for (int i = 0; i < CLASS_1536_BLOCKS; i++)
    wrong += FULL(r, i)[0] != PAT(r, i) || FULL(r, i)[1499] != PAT(r, i);
  CHECK(wrong == 0);
  /* Another worker frees one of this worker's blocks: worker w frees block
   * 7 (of T = 1; block 7T + t of thread t) of worker w + 1, a sibling or a
   * thread of the next rank; after that the owner rank's next 1536-byte
   * blocks are those. */
  mr_wbar(); /* the owners' writes are visible to the freers */
  const int v = (w + 1) % W, vr = v / T, vt = v % T;
  uint8_t* theirs7 = FULL(vr, 7 * T + vt);
  if (W > 1) {
    CHECK(theirs7[10] == 0x40 + v);
    CHECK_OK(loom_free(theirs7));
    CHECK_ERR(loom_free(theirs7), LOOM_ERR_BAD_POINTER); /* double free */
    CHECK(strstr(loom_last_error(), "already freed") != NULL);
  } else {
    CHECK_OK(loom_free(FULL(r, mine7)));
  }
  mr_wbar();
  CHECK_OK(loom_alloc(1536, (void**)&again));
  CHECK(again && all_zero(again, 1536));
  g_again[t] = (uint64_t)(uintptr_t)again;
  mr_rbar();
  found = 0;
  for (int u = 0; u < T; u++) found += g_again[t] == (uint64_t)(uintptr_t)FULL(r, 7 * T + u);
  CHECK(found == 1);
  if (t == 0) CHECK(duplicates(g_again, T) == 0);
  wrong = 0;
  for (int i = 0; i < CLASS_1536_BLOCKS; i++)
    if (i / T != 7) wrong += FULL(r, i)[0] != PAT(r, i) || FULL(r, i)[1499] != PAT(r, i);
  CHECK(wrong == 0);
  /* Every other worker sees zeros there too after the owner's release. */
  mr_wbar();
  wrong = 0;
  for (int q = 0; q < n; q++)
    for (int u = 0; u < T; u++) wrong += !all_zero(FULL(q, 7 * T + u), 1536);
  CHECK(wrong == 0);
  mr_wbar();

  /* 2. Many sizes, every worker at once: aligned, zero, disjoint, valid
   * everywhere. */
  mr_range_t* mine = malloc(sizeof(mr_range_t) * M);
  mr_range_t* tab2 = (mr_range_t*)(tab + t2); /* worker q's block i: tab2[q * M + i] */
  int bad_align = 0, not_zero = 0;
  for (int i = 0; i < M; i++) {
    size_t sz = sizes[(i * 7 + w) % S];
    void* p = NULL;
    CHECK_OK(loom_alloc(sz, &p));
    if (!p || (uintptr_t)p % 16) bad_align++;
    if (p && !all_zero(p, sz)) not_zero++;
    mine[i].addr = (uint64_t)(uintptr_t)p;
    mine[i].size = sz ? sz : 1;
    if (p) memset(p, (uint8_t)(1 + w + i), sz);
    tab2[w * M + i] = mine[i];
  }
  CHECK(bad_align == 0);
  CHECK(not_zero == 0);
  mr_wbar();
  wrong = 0;
  for (int q = 0; q < W; q++)
    for (int i = 0; i < M; i++) {
      const uint8_t* p = (const uint8_t*)(uintptr_t)tab2[q * M + i].addr;
      size_t sz = sizes[(i * 7 + q) % S];
      for (size_t b = 0; b < sz; b++)
        if (p[b] != (uint8_t)(1 + q + i)) {
          wrong++;
          break;
        }
    }
  CHECK(wrong == 0);
  mr_range_t* all = malloc(sizeof(mr_range_t) * M * W);
  memcpy(all, tab2, sizeof(mr_range_t) * M * W);
  qsort(all, (size_t)M * W, sizeof(mr_range_t), mr_cmp_range);
  int overlap = 0;
  for (int i = 1; i < M * W; i++)
    if (all[i - 1].addr + all[i - 1].size > all[i].addr) overlap++;
  CHECK(overlap == 0);

  /* Every worker frees the blocks of the next worker with odd index, then
   * the owners' remaining blocks are intact. */
  mr_wbar();
  for (int i = 1; i < M; i += 2) CHECK_OK(loom_free((void*)(uintptr_t)tab2[v * M + i].addr));
  mr_wbar();
  wrong = 0;
  for (int i = 0; i < M; i += 2) {
    const uint8_t* p = (const uint8_t*)(uintptr_t)mine[i].addr;
    size_t sz = sizes[(i * 7 + w) % S];
    for (size_t b = 0; b < sz; b++)
      if (p[b] != (uint8_t)(1 + w + i)) {
        wrong++;
        break;
      }
  }
  CHECK(wrong == 0);
  /* Allocating again reads zero (reused or new). */
  not_zero = 0;
  for (int i = 1; i < M; i += 2) {
    size_t sz = sizes[(i * 7 + w) % S];
    void* p = NULL;
    CHECK_OK(loom_alloc(sz, &p));
    if (!p || !all_zero(p, sz)) not_zero++;
  }
  CHECK(not_zero == 0);

  /* 3. Packing: 256 blocks of 16 bytes a thread, the rank's on at most
   * T + 1 pages (2 at T = 1), none handed out twice. */
  mr_rbar(); /* the siblings' blocks of part 2 are all allocated */
  for (int i = 0; i < 256; i++) {
    void* p = NULL;
    CHECK_OK(loom_alloc(16, &p));
    g_pack[t][i] = (uint64_t)(uintptr_t)p;
  }
  mr_rbar();
  if (t == 0) {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int u = 0; u < T; u++)
      for (int i = 0; i < 256; i++) {
        uint64_t a = g_pack[u][i];
        if (a < lo) lo = a;
        if (a > hi) hi = a;
      }
    CHECK(hi / 4096 - lo / 4096 <= (uint64_t)T);
    CHECK(duplicates(&g_pack[0][0], 256 * T) == 0);
  }
  mr_rbar();

  /* 4. Bad frees change nothing. */
  uint8_t* b48 = NULL;
  CHECK_OK(loom_alloc(48, (void**)&b48));
  memset(b48, 0x5a, 48);
  CHECK_ERR(loom_free(b48 + 16), LOOM_ERR_BAD_POINTER);
  CHECK(strstr(loom_last_error(), "not the start") != NULL);
  CHECK_ERR(loom_free(b48 + 1), LOOM_ERR_BAD_POINTER);
  uint8_t* b768 = NULL;
  CHECK_OK(loom_alloc(768, (void**)&b768));
  CHECK_ERR(loom_free(b768 + 768 * 40), LOOM_ERR_BAD_POINTER); /* never handed out */
  CHECK(strstr(loom_last_error(), "not allocated") != NULL);
  CHECK(b48[0] == 0x5a && b48[47] == 0x5a);
  CHECK_OK(loom_free(b48));
  CHECK_ERR(loom_free(b48), LOOM_ERR_BAD_POINTER);
  int local = 0;
  CHECK_ERR(loom_free(&local), LOOM_ERR_BAD_POINTER);
  CHECK(strstr(loom_last_error(), "not inside Loom memory") != NULL);
  CHECK_OK(loom_free(b768));
  /* Two workers free one block: worker w frees its own 64-byte block and
   * that of worker w - 1 (at W = 1 its own twice); of the two frees of each
   * block exactly one succeeds, the other is refused. */
  mr_wbar(); /* every bad free made before the next blocks exist */
  uint64_t* t4w = tab + t4; /* worker q: its block, its two statuses */
  void* p64 = NULL;
  CHECK_OK(loom_alloc(64, &p64));
  t4w[3 * w] = (uint64_t)(uintptr_t)p64;
  mr_wbar();
  const int prev = (w + W - 1) % W;
  t4w[3 * w + 1] = (uint64_t)(int64_t)loom_free(p64);
  t4w[3 * w + 2] = (uint64_t)(int64_t)loom_free((void*)(uintptr_t)t4w[3 * prev]);
  mr_wbar();
  wrong = 0;
  for (int q = 0; q < W; q++) {
    const loom_status_t own = (loom_status_t)(int64_t)t4w[3 * q + 1];
    const loom_status_t by_next = (loom_status_t)(int64_t)t4w[3 * ((q + 1) % W) + 2];
    if (!((own == LOOM_OK && by_next == LOOM_ERR_BAD_POINTER) || (own == LOOM_ERR_BAD_POINTER && by_next == LOOM_OK))) {
      wrong++;
      fprintf(stderr, "rank %d: worker %d's block: frees gave %s and %s\n", r, q, loom_strerror(own),
              loom_strerror(by_next));
    }
  }
  CHECK(wrong == 0);
  mr_wbar(); /* every thread read the statuses before they are written again */

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
  if (t == 0) {
    void *c0 = NULL, *c1 = NULL;
    CHECK_OK(loom_alloc_collective(0, &c0));
    CHECK_OK(loom_alloc_collective(0, &c1));
    CHECK(c0 && c1 && c0 != c1);
    uint64_t c0a = (uint64_t)(uintptr_t)c0, c0max = 0;
    MPI_Allreduce(&c0a, &c0max, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    CHECK(c0max == c0a); /* the same address on every rank */
    CHECK_OK(loom_free_collective(c0));
    CHECK_OK(loom_free_collective(c1));
  }

  /* 6. WATER's pattern: many 24-byte blocks, every thread at once. */
  mr_wbar();
  const int N24 = 5000;
  double t0 = loom_wtime();
  int failed = 0;
  for (int i = 0; i < N24; i++) {
    void* p = NULL;
    if (loom_alloc(24, &p) != LOOM_OK || !p) failed++;
  }
  double per = (loom_wtime() - t0) / N24;
  CHECK(failed == 0);
  if (w == 0)
    fprintf(stderr, "mr_alloc_small: %d allocations of 24 bytes (%d threads a rank), %.2f us each\n", N24, T,
            per * 1e6);

  mr_wbar();
  free(mine);
  free(all);
#undef FULL
#undef PAT
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), body);
  return mr_finish("mr_alloc_small");
}
