/* docs/TUTORIAL.md, part 1: histogram_pthreads.c ported to Loom.  One
 * process per worker (mpiexec -n T), the shared arrays in Loom memory, the
 * mutex a Loom lock, the joins a barrier.  Same output as the threads
 * version.
 *   mpiexec -n T histogram_loom */
#include <loom/loom.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 22)
#define BINS 256
#define HIST_LOCK 0 /* a Loom lock is a number: 0 .. LOOM_LOCKS-1 */

/* Stop with the library's message when a call fails. */
static void ok(loom_status_t s, const char *what) {
  if (s != LOOM_OK) {
    fprintf(stderr, "%s: %s: %s\n", what, loom_strerror(s), loom_last_error());
    exit(1);
  }
}

int main(int argc, char **argv) {
  ok(loom_init(&argc, &argv, NULL), "loom_init");
  const long id = loom_rank(), nworkers = loom_nranks();
  /* Globals are private to each process: shared data lives in Loom memory,
   * allocated by every rank together (same address everywhere, zeroed). */
  uint32_t *input;
  uint64_t *histogram;
  ok(loom_alloc_collective(N * sizeof *input, (void **)&input), "alloc input");
  ok(loom_alloc_collective(BINS * sizeof *histogram, (void **)&histogram), "alloc histogram");
  /* Rank 0 fills the input, as main did before creating the threads; the
   * barrier makes its writes visible to every rank. */
  if (id == 0) {
    uint32_t x = 12345;
    for (long i = 0; i < N; i++) input[i] = x = x * 1664525u + 1013904223u;
  }
  ok(loom_barrier(), "barrier");
  /* The worker's body, unchanged but for the lock calls. */
  const long lo = N * id / nworkers, hi = N * (id + 1) / nworkers;
  uint64_t mine[BINS] = {0};
  for (long i = lo; i < hi; i++) mine[input[i] % BINS]++;
  ok(loom_lock(HIST_LOCK), "lock");
  for (int b = 0; b < BINS; b++) histogram[b] += mine[b];
  ok(loom_unlock(HIST_LOCK), "unlock");
  /* pthread_join: wait until every worker has added its part. */
  ok(loom_barrier(), "barrier");
  int bad = 0;
  if (id == 0) {
    uint64_t total = 0, check = 0;
    for (int b = 0; b < BINS; b++) total += histogram[b], check += histogram[b] * (uint64_t)(b + 1);
    printf("histogram of %ld values: total %llu, checksum %llu\n", (long)N, (unsigned long long)total,
           (unsigned long long)check);
    bad = total != N;
  }
  ok(loom_finalize(), "loom_finalize");
  return bad;
}
