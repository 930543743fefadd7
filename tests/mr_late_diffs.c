/* A barrier's diffs at their homes when the barrier ends.
 *
 * In a job of 2 ranks whose barrier agrees by rows (the other rank not
 * mapped: sync.cpp, sync_barrier_by_rows) a release sends its diffs
 * without waiting for their acknowledgement; the row tells the home how
 * many batches to apply before it leaves, and the writer waits for the
 * acknowledgement only before it reads the home by MPI_Get.  With more
 * ranks, or mapped peers, the release waits for it as every release does.
 *
 * Two blocks of PAGES pages, block A homed on rank 0 and block B on the
 * last rank.  Each round the home of a block writes word 0 of each of its
 * pages, and the other of the two ranks, the writer, rewrites the other
 * words of a random half of them (hundreds of KiB of diffs a round, many
 * batches), so that two ranks write each page (no migration moves it) and
 * the barrier's prefetch cannot foretell which.  After the barrier:
 *   1. each home reads every page of its own block at once;
 *   2. each writer reads back a random third of the other's block, most of
 *      it by faults (gets from the home): word 0 the home's, the rest what
 *      it wrote last;
 *   3. a third rank, if any, reads a random third of both.
 * In even rounds rank 0 computes 3 ms longer, so it arrives last, its
 * serving thread having left the other's batches waiting: it applies them
 * in the barrier while the writer, which left at once, faults on its pages.
 * Without the home's wait in the agreement (1) reads the words of an
 * earlier round at once across hosts.  Without the writer's wait before
 * its gets (2) read nothing stale in 8 runs (512 pages, the last read
 * first): the home had applied the batches before the gets reached it,
 * so that wait is kept for the order MPI does not promise, untested. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mr.h"

enum { PAGES = 192, WORDS = 512, ROUNDS = 12 };

static uint64_t mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d6a4d2f1e9c3ull;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  return x ^ x >> 32;
}
static uint64_t home_word(int round, int block, size_t p) { return (uint64_t)round << 40 | (uint64_t)block << 32 | p; }
/* Every byte differs from round to round: a diff is the whole page. */
static uint64_t other_word(int round, int block, size_t p, size_t w) {
  return mix((uint64_t)round << 48 ^ (uint64_t)block << 40 ^ p << 12 ^ w);
}
/* Whether page p is in the round's random subset `what` (0: the writer's
 * writes, a half; 1, 2: reads, a third) of block b. */
static int picked(int what, int round, int b, size_t p) {
  const uint64_t x = mix((uint64_t)round * 0x9e3779b97f4a7c15ull ^ (uint64_t)(what * 2 + b + 1) << 56 ^ p);
  return what == 0 ? x % 2 == 0 : x % 3 == 0;
}
/* The last round up to `round` in which the writer wrote page p of block
 * b (0: never; its words are still 0). */
static int written_in(int round, int b, size_t p) {
  for (; round > 0; round--)
    if (picked(0, round, b, p)) return round;
  return 0;
}

/* Every word of page p of block b as round `round` left it: the count of
 * words that differ. */
static long wrong_words(const uint64_t* page, int round, int b, size_t p) {
  const int wr = written_in(round, b, p);
  long bad = page[0] != home_word(round, b, p);
  for (size_t w = 1; w < WORDS; w++) bad += page[w] != (wr ? other_word(wr, b, p, w) : 0);
  return bad;
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks(), last = n - 1;
  uint64_t* blk[2] = {NULL, NULL};
  const int home[2] = {0, last}, other[2] = {last, 0};
  for (int b = 0; b < 2; b++) CHECK_OK(loom_alloc_collective_at((size_t)PAGES * 4096, home[b], (void**)&blk[b]));
  /* Each home touches its block first. */
  for (int b = 0; b < 2; b++)
    if (r == home[b]) memset(blk[b], 0, (size_t)PAGES * 4096);
  CHECK_OK(loom_barrier());

  long home_bad = 0, writer_bad = 0, third_bad = 0, writer_read = 0, third_read = 0;
  for (int round = 1; round <= ROUNDS; round++) {
    for (int b = 0; b < 2; b++) {
      uint64_t* base = blk[b];
      if (r == home[b])
        for (size_t p = 0; p < PAGES; p++) base[p * WORDS] = home_word(round, b, p);
      if (r == other[b])
        for (size_t p = 0; p < PAGES; p++)
          if (picked(0, round, b, p))
            for (size_t w = 1; w < WORDS; w++) base[p * WORDS + w] = other_word(round, b, p, w);
    }
    if (r == 0 && round % 2 == 0) {
      const double t = MPI_Wtime();
      while (MPI_Wtime() - t < 0.003) {
      }
    }
    CHECK_OK(loom_barrier());
    for (int b = 0; b < 2; b++) {
      const uint64_t* base = blk[b];
      if (r == home[b]) {
        for (size_t p = 0; p < PAGES; p++) home_bad += wrong_words(base + p * WORDS, round, b, p);
      } else if (r == other[b]) {
        /* From the last page down: the first read is of the last batch. */
        for (size_t p = PAGES; p-- > 0;)
          if (picked(1, round, b, p)) writer_bad += wrong_words(base + p * WORDS, round, b, p), writer_read++;
      } else {
        for (size_t p = 0; p < PAGES; p++)
          if (picked(2, round, b, p)) third_bad += wrong_words(base + p * WORDS, round, b, p), third_read++;
      }
    }
    CHECK_OK(loom_barrier());
  }
  if (home_bad) fprintf(stderr, "rank %d: %ld words of its own blocks stale after the barriers\n", r, home_bad);
  if (writer_bad) fprintf(stderr, "rank %d: %ld words read back from the homes stale\n", r, writer_bad);
  if (third_bad) fprintf(stderr, "rank %d: %ld words read by a third rank stale\n", r, third_bad);
  CHECK(home_bad == 0);
  CHECK(writer_bad == 0);
  CHECK(third_bad == 0);
  CHECK(r == 0 || r == last ? writer_read > 0 : third_read > 0);
  for (int b = 0; b < 2; b++) CHECK_OK(loom_free_collective(blk[b]));
  return mr_finish("mr_late_diffs");
}
