/* Split-phase (fuzzy) barriers and barriers over subsets of ranks: writes
 * before an arrive are seen by every member after its wait; a member's wait
 * does not return before the last member arrived; disjoint subsets
 * synchronize independently; misuse gets the right error. */
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mr.h"

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();
  uint64_t* slot = NULL;
  CHECK_OK(loom_alloc_collective((size_t)n * 4096, (void**)&slot)); /* one page per rank */

  /* 1. Fuzzy barrier over everyone: write, arrive, private work, wait, read. */
  for (int round = 1; round <= 5; round++) {
    slot[r * 512] = (uint64_t)(round * 100 + r);
    CHECK_OK(loom_barrier_arrive(NULL, 0));
    volatile uint64_t work = 0;
    for (int i = 0; i < 10000; i++) work += (uint64_t)i; /* independent work */
    CHECK_OK(loom_barrier_wait());
    int bad = 0;
    for (int q = 0; q < n; q++) bad += slot[q * 512] != (uint64_t)(round * 100 + q);
    CHECK(bad == 0);
    CHECK_OK(loom_barrier_arrive(NULL, 0)); /* nobody writes the next round before all have read */
    CHECK_OK(loom_barrier_wait());
  }

  /* 2. The wait really waits: rank 0 arrives late; everyone's wait returns
   * after rank 0's arrival (one host: one clock). */
  double* t = NULL;
  CHECK_OK(loom_alloc_collective(4096, (void**)&t));
  if (r == 0) {
    struct timespec d = {0, 200 * 1000 * 1000};
    nanosleep(&d, NULL);
    t[0] = loom_wtime();
  }
  CHECK_OK(loom_barrier_arrive(NULL, 0));
  CHECK_OK(loom_barrier_wait());
  double back = loom_wtime();
  CHECK(back >= t[0]);
  CHECK_OK(loom_barrier());

  /* 3. Subsets: evens and odds synchronize separately, several rounds. */
  int* group = malloc(sizeof(int) * (size_t)n), g = 0;
  for (int q = r % 2; q < n; q += 2) group[g++] = q;
  for (int round = 1; round <= 4; round++) {
    slot[r * 512 + 1] = (uint64_t)(round * 1000 + r);
    CHECK_OK(loom_barrier_subset(group, g));
    int bad = 0;
    for (int i = 0; i < g; i++) bad += slot[group[i] * 512 + 1] != (uint64_t)(round * 1000 + group[i]);
    CHECK(bad == 0);
    CHECK_OK(loom_barrier_subset(group, g));
  }
  /* A subset of one is this rank alone. */
  CHECK_OK(loom_barrier_subset(&r, 1));
  CHECK_OK(loom_barrier());

  CHECK_OK(loom_poll());

  /* 4. Misuse. */
  CHECK_ERR(loom_barrier_wait(), LOOM_ERR_BUSY);
  CHECK_OK(loom_barrier_arrive(NULL, 0));
  CHECK_ERR(loom_barrier_arrive(NULL, 0), LOOM_ERR_BUSY);
  CHECK_ERR(loom_barrier(), LOOM_ERR_BUSY);
  CHECK_OK(loom_barrier_wait());
  int other = (r + 1) % n, dup[2] = {r, r}, out_of_range[2] = {r, n};
  CHECK_ERR(loom_barrier_subset(&other, 1), LOOM_ERR_INVALID); /* the caller is not a member */
  CHECK_ERR(loom_barrier_subset(dup, 2), LOOM_ERR_INVALID);
  CHECK_ERR(loom_barrier_subset(out_of_range, 2), LOOM_ERR_INVALID);
  CHECK_ERR(loom_barrier_subset(NULL, 3), LOOM_ERR_INVALID);
  CHECK_OK(loom_barrier());
  free(group);
  return mr_finish("mr_barriers");
}
