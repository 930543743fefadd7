/* docs/TUTORIAL.md, part 2: dot_openmp.c ported to Loom.  Each parallel for
 * becomes a block of the index range per rank (schedule(static)); the
 * reduction becomes one partial sum per rank in Loom memory, added up in
 * rank order after a barrier (so the result does not depend on timing).
 *   mpiexec -n T dot_loom */
#include <loom/loom.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 21)

static void ok(loom_status_t s, const char *what) {
  if (s != LOOM_OK) {
    fprintf(stderr, "%s: %s: %s\n", what, loom_strerror(s), loom_last_error());
    exit(1);
  }
}

int main(int argc, char **argv) {
  ok(loom_init(&argc, &argv, NULL), "loom_init");
  const long me = loom_rank(), n = loom_nranks();
  double *x, *y, *partial;
  ok(loom_alloc_collective(N * sizeof *x, (void **)&x), "alloc x");
  ok(loom_alloc_collective(N * sizeof *y, (void **)&y), "alloc y");
  ok(loom_alloc_collective(n * sizeof *partial, (void **)&partial), "alloc partial");
  /* schedule(static): rank me owns [lo, hi).  The first rank to write a page
   * becomes its home, so each rank's block stays in its own memory. */
  const long lo = N * me / n, hi = N * (me + 1) / n;
  for (long i = lo; i < hi; i++) {
    x[i] = (double)(i % 1000) / 1000.0;
    y[i] = (double)((i * 7) % 1000) / 1000.0;
  }
  /* The end of an omp parallel for is a barrier; here it is not needed for
   * the dot product (each rank reads only its own block), but a loop that
   * read other blocks would need loom_barrier() here. */
  double dot = 0;
  for (long i = lo; i < hi; i++) dot += x[i] * y[i];
  partial[me] = dot; /* reduction(+ : dot): each rank's part ... */
  ok(loom_barrier(), "barrier");
  double sum = 0;
  for (long r = 0; r < n; r++) sum += partial[r]; /* ... added in rank order */
  if (me == 0) printf("dot product of %d elements: %.2f\n", N, sum);
  ok(loom_finalize(), "loom_finalize");
  return 0;
}
