/* Writer sets that name no other rank are not read again at a full barrier
 * while no rank registers a writer (src/protocol/hlrc.cpp, unchanged; the
 * barrier's agreement carries "registered since the last one", api.cpp).
 *
 * A block homed on rank 0 that nobody writes (its pages are zeros); every
 * other rank reads all of it, then:
 *   1. Ten barriers with nothing written: the readers' copies stay (no page
 *      fetched again), and where some rank is not mapped (the readers hold
 *      copies), under HLRC, after the first barrier no writer set is read
 *      (writer_loads), where before every barrier read them all.
 *   2. A rank registers as writer of a page of another block and the
 *      barrier after it reads the sets again (some rank registered): the
 *      copies stay.
 *   3. Rank 0 writes page A of the block (its home: in place) and the last
 *      rank writes page B (a twin and a diff); after the barrier every rank
 *      reads both new values, and the other pages still read zero.  (A skip
 *      that missed a registration keeps the stale copies: wrong values.)
 *   4. Again with nothing written, the sets are not read, and a write in
 *      an interval that a lock acquire splits (the registration after the
 *      lock's own acquire read the sets) is seen after the next barrier. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mr.h"

enum { PAGES = 64, WORDS = 512 };

static int hlrc(void) {
  const char* p = getenv("LOOM_PROTOCOL");
  return !p || !*p || strcmp(p, "hlrc") == 0;
}

static uint64_t sum_block(const uint64_t* b) {
  uint64_t s = 0;
  for (size_t p = 0; p < PAGES; p++) s += b[p * WORDS + 7];
  return s;
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks(), last = n - 1;
  const int copies = loom_direct_peers() < n - 1 && hlrc();
  uint64_t *b = NULL, *other = NULL;
  CHECK_OK(loom_alloc_collective_at(PAGES * 4096, 0, (void**)&b));
  CHECK_OK(loom_alloc_collective_at(4096, last, (void**)&other));
  CHECK_OK(loom_barrier());
  CHECK(sum_block(b) == 0);  /* every rank reads the whole block */
  CHECK_OK(loom_barrier()); /* the first acquire reads the sets: none names another rank */

  /* 1 */
  loom_stats_t s0, s1;
  CHECK_OK(loom_stats_get(&s0));
  for (int i = 0; i < 10; i++) {
    CHECK(sum_block(b) == 0);
    CHECK_OK(loom_barrier());
  }
  CHECK_OK(loom_stats_get(&s1));
  if (r != 0 && copies) {
    CHECK(s1.writer_loads - s0.writer_loads == 0);
    CHECK(s1.pages_fetched - s0.pages_fetched == 0);
    if (s1.writer_loads != s0.writer_loads || s1.pages_fetched != s0.pages_fetched)
      fprintf(stderr, "rank %d: 10 barriers read %llu writer sets and fetched %llu pages\n", r,
              (unsigned long long)(s1.writer_loads - s0.writer_loads),
              (unsigned long long)(s1.pages_fetched - s0.pages_fetched));
  }

  /* 2 */
  if (r == 0) other[1] = 1; /* rank 0 registers as a writer of `other` */
  CHECK_OK(loom_stats_get(&s0));
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_stats_get(&s1));
  if (r != 0 && copies) {
    CHECK(s1.writer_loads - s0.writer_loads >= PAGES);
    CHECK(s1.invalidations - s0.invalidations == 0);
  }
  CHECK(sum_block(b) == 0);
  CHECK_OK(loom_barrier());

  /* 3 */
  const size_t A = 5, B = 40;
  if (r == 0) b[A * WORDS + 7] = 11;
  if (r == last) b[B * WORDS + 7] = 29;
  CHECK_OK(loom_barrier());
  CHECK(b[A * WORDS + 7] == 11);
  CHECK(b[B * WORDS + 7] == 29);
  CHECK(sum_block(b) == 40);
  CHECK_OK(loom_barrier());

  /* 4 */
  CHECK_OK(loom_stats_get(&s0));
  for (int i = 0; i < 3; i++) {
    CHECK(sum_block(b) == 40);
    CHECK_OK(loom_barrier());
  }
  CHECK_OK(loom_stats_get(&s1));
  if (r != 0 && copies) CHECK(s1.writer_loads - s0.writer_loads == 0);
  const size_t C = 20;
  CHECK_OK(loom_lock(3));  /* (page C is not read here: its write below races with this section) */
  CHECK(b[A * WORDS + 7] == 11 && b[B * WORDS + 7] == 29);
  CHECK_OK(loom_unlock(3));
  if (r == last) b[C * WORDS + 7] = 100; /* a rank registers after its lock's acquire */
  CHECK_OK(loom_barrier());
  CHECK(b[C * WORDS + 7] == 100);
  CHECK(sum_block(b) == 140);
  CHECK_OK(loom_barrier());

  /* 5: lock acquires.  The readers' copies of the pages nobody wrote were
   * fetched before their first lock (untracked: a lock's acquire judges
   * them by the writer sets).  Locks taken with nothing written read no
   * set; then rank 0 writes page D in place under a lock, after setting a
   * flag word on another page nobody wrote, and each reader takes the lock
   * after that release (an MPI_Barrier between, no Loom acquire): D and the
   * flag hold the new values (a lock acquire that kept the clean copies
   * without the record's word would read zeros). */
  const char* exact = getenv("LOOM_EXACT");
  const int scoped = copies && !(exact && strcmp(exact, "0") == 0);
  CHECK_OK(loom_stats_get(&s0));
  for (int i = 0; i < 10; i++) { /* each rank its own lock, then lock 5 in rank order */
    CHECK_OK(loom_lock(10 + r));
    CHECK(b[A * WORDS + 7] == 11);
    CHECK_OK(loom_unlock(10 + r));
  }
  for (int t = 0; t < n; t++) {
    if (t == r) {
      CHECK_OK(loom_lock(5));
      CHECK(b[B * WORDS + 7] == 29);
      CHECK_OK(loom_unlock(5));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  CHECK_OK(loom_stats_get(&s1));
  if (r != 0 && scoped) {
    CHECK(s1.writer_loads - s0.writer_loads == 0);
    if (s1.writer_loads != s0.writer_loads)
      fprintf(stderr, "rank %d: 11 lock acquires read %llu writer sets\n", r,
              (unsigned long long)(s1.writer_loads - s0.writer_loads));
  }
  CHECK_OK(loom_barrier());
  const size_t D = 50, F = 60;
  if (r == 0) {
    CHECK_OK(loom_lock(5));
    b[D * WORDS + 7] = 7;
    b[F * WORDS + 7] = 1;
    CHECK_OK(loom_unlock(5));
  }
  MPI_Barrier(MPI_COMM_WORLD); /* (no Loom acquire: the readers' locks come after rank 0's release) */
  if (r != 0) {
    CHECK_OK(loom_lock(5));
    CHECK(b[F * WORDS + 7] == 1);
    CHECK(b[D * WORDS + 7] == 7);
    if (b[D * WORDS + 7] != 7 || b[F * WORDS + 7] != 1)
      fprintf(stderr, "rank %d: after rank 0's release, page D reads %llu and the flag %llu\n", r,
              (unsigned long long)b[D * WORDS + 7], (unsigned long long)b[F * WORDS + 7]);
    CHECK_OK(loom_unlock(5));
  }
  CHECK_OK(loom_barrier());
  CHECK(sum_block(b) == 148);
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_free_collective(other));
  CHECK_OK(loom_free_collective(b));
  return mr_finish("mr_clean_sets");
}
