/* docs/TUTORIAL.md, part 2: dot_openmp.c on Loom with its OpenMP kept.
 * Each rank takes a block of the index range and keeps the OpenMP loops
 * over its block; the threads of a rank share its Loom pages.  A second
 * pass inside one parallel region reads the blocks of the other ranks
 * after loom_thread_barrier (the barrier of every thread of every rank)
 * and must find the same dot product.
 *   mpiexec -n R env OMP_NUM_THREADS=T dot_hybrid */
#include <loom/loom.h>
#include <math.h>
#include <omp.h>
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
  double *x, *y, *partial, *partial2;
  ok(loom_alloc_collective(N * sizeof *x, (void **)&x), "alloc x");
  ok(loom_alloc_collective(N * sizeof *y, (void **)&y), "alloc y");
  ok(loom_alloc_collective(n * sizeof *partial, (void **)&partial), "alloc partial");
  ok(loom_alloc_collective(n * sizeof *partial2, (void **)&partial2), "alloc partial2");
  const long lo = N * me / n, hi = N * (me + 1) / n;
  /* The original loops, over this rank's block: every thread of the rank
   * writes Loom memory (the first write of a page makes this rank its home). */
#pragma omp parallel for schedule(static)
  for (long i = lo; i < hi; i++) {
    x[i] = (double)(i % 1000) / 1000.0;
    y[i] = (double)((i * 7) % 1000) / 1000.0;
  }
  double dot = 0;
#pragma omp parallel for schedule(static) reduction(+ : dot)
  for (long i = lo; i < hi; i++) dot += x[i] * y[i];
  partial[me] = dot;
  /* The second pass: the block of the rank n-1-me, read by every thread. */
  double dot2 = 0;
#pragma omp parallel reduction(+ : dot2)
  {
    ok(loom_thread_barrier(omp_get_num_threads()), "loom_thread_barrier"); /* x and y are complete everywhere */
    const long other = n - 1 - me, olo = N * other / n, ohi = N * (other + 1) / n;
#pragma omp for schedule(static)
    for (long i = olo; i < ohi; i++) dot2 += x[i] * y[i];
  }
  partial2[n - 1 - me] = dot2;
  ok(loom_barrier(), "barrier");
  double sum = 0, sum2 = 0;
  for (long r = 0; r < n; r++) {
    sum += partial[r];
    sum2 += partial2[r];
  }
  if (me == 0) printf("dot product of %d elements: %.2f\n", N, sum);
  const int same = fabs(sum - sum2) <= 1e-9 * fabs(sum);
  if (!same) fprintf(stderr, "rank %ld: the second pass read %.6f, the first %.6f\n", me, sum2, sum);
  ok(loom_finalize(), "loom_finalize");
  return same ? 0 : 1;
}
