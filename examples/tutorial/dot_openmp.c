/* The starting point of docs/TUTORIAL.md, part 2: an OpenMP loop that fills
 * two arrays and a loop with a reduction (a dot product).
 *   OMP_NUM_THREADS=T dot_openmp */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 21)

int main(void) {
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < N; i++) {
    x[i] = (double)(i % 1000) / 1000.0;
    y[i] = (double)((i * 7) % 1000) / 1000.0;
  }
  double dot = 0;
#pragma omp parallel for schedule(static) reduction(+ : dot)
  for (long i = 0; i < N; i++) dot += x[i] * y[i];
  printf("dot product of %d elements: %.2f\n", N, dot);
  free(x);
  free(y);
  return 0;
}
