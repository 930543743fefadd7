/* stencil_pairs: Jacobi on an n x n grid, rows split across ranks, two
 * grids, synchronized after each sweep either by a barrier of every rank
 * (--full) or by barriers of neighbouring pairs (the default): each rank
 * passes loom_barrier_subset with the rank above and with the rank below,
 * even ranks the pair above first and odd ranks the pair below first, so
 * that the pairs of one sweep pass in two rounds whatever the rank count.
 * A sweep reads its neighbours' edge rows of the previous sweep (ordered by
 * the pair barrier after it) and overwrites rows they read in it (ordered
 * by the same barrier), so the pairs order everything a sweep needs.
 *
 *   mpiexec -n N stencil_pairs [--n 1024] [--sweeps 200] [--full] [--active K]
 *
 * --active K: only ranks 0..K-1 hold rows and sweep (K >= 2; default every
 * rank); the others wait in the barrier after the sweeps, or with --full
 * pass every sweep's barrier without work.  Three ranks with K = 2 on a
 * 2-core machine give each sweeping rank a core of its own.
 *
 * Prints the sweeps' time (leaving the full barrier before them to leaving
 * the one after them: barriers 2 and 3 of the trace, for `loom predict
 * --window 2:3`) and the pages the barrier prefetch brought (summed over
 * the ranks, and how many were read), and checks the grid against a
 * sequential run bit for bit (exit 1 if it differs).  The model's subset
 * barriers are validated with it (docs/MODEL.md, "Barriers of a subset"). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <loom/loom.h>

#define OK(call)                                                                     \
  do {                                                                               \
    if ((call) != LOOM_OK) {                                                         \
      fprintf(stderr, "stencil_pairs: %s failed: %s\n", #call, loom_last_error());   \
      MPI_Abort(MPI_COMM_WORLD, 2);                                                  \
    }                                                                                \
  } while (0)

static void sweep(const double* a, double* b, int n, int r0, int r1) {
  for (int i = r0 < 1 ? 1 : r0; i < r1 && i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      b[(size_t)i * n + j] =
          0.25 * (a[(size_t)(i - 1) * n + j] + a[(size_t)(i + 1) * n + j] + a[(size_t)i * n + j - 1] +
                  a[(size_t)i * n + j + 1]);
}

static void init_rows(double* a, int n, int r0, int r1) {
  for (int i = r0; i < r1; i++)
    for (int j = 0; j < n; j++) a[(size_t)i * n + j] = (i == 0 || j == 0) ? 1.0 : 0.0;
}

static int arg(int argc, char** argv, const char* name, int dflt) {
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], name)) return atoi(argv[i + 1]);
  return dflt;
}

static void pair(int a, int b) {
  const int m[2] = {a, b};
  OK(loom_barrier_subset(m, 2));
}

int main(int argc, char** argv) {
  OK(loom_init(&argc, &argv, NULL));
  const int n = arg(argc, argv, "--n", 1024), sweeps = arg(argc, argv, "--sweeps", 200);
  int full = 0;
  for (int i = 1; i < argc; i++) full |= !strcmp(argv[i], "--full");
  const int me = loom_rank(), ranks = loom_nranks(), N = arg(argc, argv, "--active", ranks);
  if (n < 4 || sweeps < 1 || n < 2 * N || N < 1 || N > ranks) {
    if (me == 0)
      fprintf(stderr, "stencil_pairs: --n %d --sweeps %d --active %d: need n >= 4, n >= 2 active ranks, sweeps >= 1, "
              "1..%d active ranks\n", n, sweeps, N, ranks);
    loom_finalize();
    return 2;
  }
  const int active = me < N;
  const int r0 = active ? (int)((long)n * me / N) : n, r1 = active ? (int)((long)n * (me + 1) / N) : n;
  double *a = NULL, *b = NULL;
  OK(loom_alloc_collective((size_t)n * n * sizeof(double), (void**)&a));
  OK(loom_alloc_collective((size_t)n * n * sizeof(double), (void**)&b));
  init_rows(a, n, r0, r1); /* first touch: each rank homes its rows */
  init_rows(b, n, r0, r1);
  OK(loom_barrier()); /* 1 */
  OK(loom_stats_reset());
  OK(loom_barrier()); /* 2 */
  const double t0 = MPI_Wtime();
  double *x = a, *y = b;
  for (int s = 0; s < sweeps && (active || full); s++) {
    sweep(x, y, n, r0, r1);
    if (full) {
      OK(loom_barrier());
    } else {
      const int up = me > 0 ? me - 1 : -1, down = me < N - 1 ? me + 1 : -1;
      const int first = me % 2 ? up : down, second = me % 2 ? down : up;
      if (first >= 0) pair(me < first ? me : first, me < first ? first : me);
      if (second >= 0) pair(me < second ? me : second, me < second ? second : me);
    }
    double* t = x;
    x = y;
    y = t;
  }
  OK(loom_barrier()); /* 3 */
  double took = MPI_Wtime() - t0, most = 0;
  MPI_Allreduce(&took, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  /* Pages the barriers brought because the ranks kept reading them (the
   * barrier prefetch: a push at barriers of every rank across hosts), and
   * how many of them were read. */
  loom_stats_t st;
  OK(loom_stats_get(&st));
  unsigned long long mine[2] = {st.prefetched, st.prefetch_used}, all[2] = {0, 0};
  MPI_Reduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int valid = 1;
  if (me == 0) {
    double* s = (double*)calloc((size_t)n * n, sizeof(double));
    double* t = (double*)calloc((size_t)n * n, sizeof(double));
    init_rows(s, n, 0, n);
    init_rows(t, n, 0, n);
    for (int k = 0; k < sweeps; k++) {
      sweep(s, t, n, 0, n);
      double* u = s;
      s = t;
      t = u;
    }
    valid = !memcmp(s, x, (size_t)n * n * sizeof(double));
    printf("stencil_pairs: %s, n %d, %d sweeps, %d ranks (%d sweeping): %.4f s, %s; %llu pages prefetched, %llu read\n",
           full ? "full barriers" : "pair barriers", n, sweeps, ranks, N, most, valid ? "result identical" : "RESULT DIFFERS",
           all[0], all[1]);
    free(s);
    free(t);
  }
  MPI_Bcast(&valid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  OK(loom_barrier());
  OK(loom_free_collective(b));
  OK(loom_free_collective(a));
  loom_finalize();
  return valid ? 0 : 1;
}
