/* Blocked dense LU factorization without pivoting: the SPLASH-2 LU kernel,
 * "contiguous blocks" variant (Woo, Singh, Hennessy, ASPLOS-VI 1994).
 *
 * The n x n matrix is cut into b x b blocks (edge blocks smaller when b does
 * not divide n); every block is one contiguous column-major array, and the
 * blocks of one worker lie together in that worker's own pages (SPLASH-2
 * allocates each processor's blocks contiguously).  Blocks are assigned in
 * SPLASH-2's 2-D scatter decomposition: the workers form a num_rows x
 * num_cols grid (num_rows the largest divisor of P not above sqrt(P)) and
 * block (I, J) belongs to (I mod num_cols) + (J mod num_rows) * num_cols.
 * Every step K:
 *   the owner of block (K,K) factors it (lu0);              barrier;
 *   the owners of the perimeter blocks (I,K) and (K,J) divide them by the
 *   diagonal block (bdiv, bmodd);                            barrier;
 *   the owners of the interior blocks (I,J), I,J > K, update them
 *   (bmod: C -= A(I,K) * B(K,J));                            barrier.
 * (SPLASH-2 itself omits the last barrier, since the next diagonal block's
 * owner updated it itself; the task asks for it and it costs one barrier per
 * step.)  The kernels are SPLASH-2's: L has the diagonal, U a unit diagonal.
 *
 * The matrix has random entries in [0,1) (a counter-based generator, so each
 * worker generates and first-touches exactly the blocks it owns) plus n on
 * the diagonal: strictly diagonally dominant, so no pivoting is needed.
 *
 * Validation: worker 0 factors the same matrix sequentially in private
 * memory with the same kernels (the same non-inlined functions) in the same
 * block order and compares every element bit for bit.  Each element's
 * operation sequence is fixed by the algorithm (updates from K = 0, 1, ... in
 * order, each computed by one kernel call on final inputs), whatever worker
 * executes it, so the result is identical for any worker count.
 *
 *   lu [--n 1024] [--b 64] [--corrupt]
 * --corrupt: the last worker skips its first interior block update of step 0.
 * Reported: "factorization_time" (the region), "n", "b", and the slowest
 * worker's time in the diagonal, perimeter and interior phases and waiting
 * at barriers.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"

#define PAGE 4096

/* ---- SPLASH-2 kernels (column-major blocks, explicit strides) ---- */

static void daxpy(double* a, const double* b, long n, double alpha) {
  for (long i = 0; i < n; i++) a[i] += alpha * b[i];
}

/* Factor a diagonal block in place. */
__attribute__((noinline)) static void lu0(double* a, long n, long stride) {
  for (long k = 0; k < n; k++)
    for (long j = k + 1; j < n; j++) {
      a[k + j * stride] /= a[k + k * stride];
      daxpy(&a[k + 1 + j * stride], &a[k + 1 + k * stride], n - k - 1, -a[k + j * stride]);
    }
}

/* Column perimeter block: a <- a * U(diag)^-1. */
__attribute__((noinline)) static void bdiv(double* a, const double* diag, long stride_a, long stride_diag, long dimi,
                                           long dimk) {
  for (long k = 0; k < dimk; k++)
    for (long j = k + 1; j < dimk; j++) daxpy(&a[j * stride_a], &a[k * stride_a], dimi, -diag[k + j * stride_diag]);
}

/* Row perimeter block: c <- L(a)^-1 * c. */
__attribute__((noinline)) static void bmodd(const double* a, double* c, long dimi, long dimj, long stride_a,
                                            long stride_c) {
  for (long k = 0; k < dimi; k++)
    for (long j = 0; j < dimj; j++) {
      c[k + j * stride_c] /= a[k + k * stride_a];
      daxpy(&c[k + 1 + j * stride_c], &a[k + 1 + k * stride_a], dimi - k - 1, -c[k + j * stride_c]);
    }
}

/* Interior block: c <- c - a * b. */
__attribute__((noinline)) static void bmod(const double* a, const double* b, double* c, long dimi, long dimj,
                                           long dimk, long stridea, long strideb, long stridec) {
  for (long k = 0; k < dimk; k++)
    for (long j = 0; j < dimj; j++) daxpy(&c[j * stridec], &a[k * stridea], dimi, -b[k + j * strideb]);
}

/* ---- matrix layout and generation ---- */

static int g_n, g_b, g_nb, g_rows, g_cols; /* size, block size, blocks per side, worker grid */

static int owner(int I, int J) { return (I % g_cols) + (J % g_rows) * g_cols; }
static int bdim(int I) { return I == g_nb - 1 ? g_n - I * g_b : g_b; } /* rows of block row I */

static uint64_t mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A(i, j) of the original matrix. */
static double elem(int i, int j) {
  double v = (double)(mix(0x4C55ull * 0x100000001B3ull ^ ((uint64_t)i * (uint64_t)g_n + (uint64_t)j)) >> 11) *
             0x1.0p-53;
  return i == j ? v + g_n : v;
}

static void fill_block(double* blk, int I, int J) {
  int r = bdim(I), c = bdim(J);
  for (int j = 0; j < c; j++)
    for (int i = 0; i < r; i++) blk[i + (size_t)j * r] = elem(I * g_b + i, J * g_b + j);
}

/* The factorization of blocks blk[I + J*nb]; in the parallel run every worker
 * does the blocks it owns (me >= 0), the sequential reference all (me < 0). */
static void factor(double** blk, int me, int corrupt, double* t) {
  const int nb = g_nb;
  int skipped = 0;
  for (int K = 0; K < nb; K++) {
    const int sK = bdim(K);
    double* D = blk[K + K * nb];
    double t0 = par_time();
    if (me < 0 || owner(K, K) == me) lu0(D, sK, sK);
    double t1 = par_time();
    if (me >= 0) par_barrier();
    double t2 = par_time();
    for (int I = K + 1; I < nb; I++)
      if (me < 0 || owner(I, K) == me) bdiv(blk[I + K * nb], D, bdim(I), sK, bdim(I), sK);
    for (int J = K + 1; J < nb; J++)
      if (me < 0 || owner(K, J) == me) bmodd(D, blk[K + J * nb], sK, bdim(J), sK, sK);
    double t3 = par_time();
    if (me >= 0) par_barrier();
    double t4 = par_time();
    for (int I = K + 1; I < nb; I++) {
      const int sI = bdim(I);
      const double* A = blk[I + K * nb];
      for (int J = K + 1; J < nb; J++) {
        if (me >= 0 && owner(I, J) != me) continue;
        if (corrupt && !skipped) { /* --corrupt: skip one block update once */
          skipped = 1;
          continue;
        }
        bmod(A, blk[K + J * nb], blk[I + J * nb], sI, bdim(J), sK, sI, sK, sI);
      }
    }
    double t5 = par_time();
    if (me >= 0) par_barrier();
    double t6 = par_time();
    t[0] += t1 - t0;
    t[1] += t3 - t2;
    t[2] += t5 - t4;
    t[3] += (t2 - t1) + (t4 - t3) + (t6 - t5);
  }
}

static int worker(int argc, char** argv) {
  const int n = par_arg_int(argc, argv, "n", 1024);
  const int b = par_arg_int(argc, argv, "b", 64);
  const int corrupt = par_arg_flag(argc, argv, "corrupt");
  const int id = par_id(), nw = par_nworkers();
  if (n < 1 || b < 1) {
    if (id == 0) fprintf(stderr, "lu: --n and --b must be positive\n");
    return 2;
  }
  g_n = n;
  g_b = b > n ? n : b;
  g_nb = (n + g_b - 1) / g_b;
  /* SPLASH-2's worker grid */
  g_rows = (int)sqrt((double)nw);
  for (;;) {
    g_cols = nw / g_rows;
    if (g_rows * g_cols == nw) break;
    g_rows--;
  }
  const int nb = g_nb;

  /* Layout: each worker's blocks packed together, each worker's region
   * starting on a page boundary.  off[] is the same on every worker. */
  size_t* off = (size_t*)malloc(sizeof(size_t) * (size_t)nb * nb);
  size_t* wsize = (size_t*)calloc((size_t)nw, sizeof(size_t));
  for (int J = 0; J < nb; J++)
    for (int I = 0; I < nb; I++) wsize[owner(I, J)] += (size_t)bdim(I) * bdim(J) * sizeof(double);
  size_t* wbase = (size_t*)malloc(sizeof(size_t) * (size_t)nw);
  size_t total = 0;
  for (int w = 0; w < nw; w++) {
    wbase[w] = total;
    total += (wsize[w] + PAGE - 1) / PAGE * PAGE;
  }
  for (int J = 0; J < nb; J++)
    for (int I = 0; I < nb; I++) {
      int w = owner(I, J);
      off[I + J * nb] = wbase[w];
      wbase[w] += (size_t)bdim(I) * bdim(J) * sizeof(double);
    }
  char* raw = (char*)par_alloc(total + PAGE);
  char* base = (char*)(((uintptr_t)raw + PAGE - 1) / PAGE * PAGE);
  double* times = (double*)par_alloc((size_t)nw * 64); /* 4 phase times per worker, one cache line each */
  double** blk = (double**)malloc(sizeof(double*) * (size_t)nb * nb);
  for (int k = 0; k < nb * nb; k++) blk[k] = (double*)(base + off[k]);

  /* Each worker generates (first-touches) the blocks it owns. */
  for (int J = 0; J < nb; J++)
    for (int I = 0; I < nb; I++)
      if (owner(I, J) == id) fill_block(blk[I + J * nb], I, J);
  par_barrier();

  double t[4] = {0, 0, 0, 0};
  par_region_begin();
  factor(blk, id, corrupt && id == nw - 1, t);
  par_region_end();
  for (int k = 0; k < 4; k++) times[id * 8 + k] = t[k];
  par_barrier();

  /* Validation: the sequential factorization in private memory, bit for bit. */
  int valid = 1;
  char extra[400];
  double tmax[4] = {0, 0, 0, 0};
  if (id == 0) {
    for (int w = 0; w < nw; w++)
      for (int k = 0; k < 4; k++)
        if (times[w * 8 + k] > tmax[k]) tmax[k] = times[w * 8 + k];
    char* priv = (char*)malloc(total);
    double** ref = (double**)malloc(sizeof(double*) * (size_t)nb * nb);
    for (int k = 0; k < nb * nb; k++) ref[k] = (double*)(priv + off[k]);
    for (int J = 0; J < nb; J++)
      for (int I = 0; I < nb; I++) fill_block(ref[I + J * nb], I, J);
    double tr[4] = {0, 0, 0, 0};
    factor(ref, -1, 0, tr);
    size_t diff = 0;
    double maxrel = 0;
    for (int k = 0; k < nb * nb; k++) {
      size_t cnt = (size_t)bdim(k % nb) * bdim(k / nb);
      for (size_t e = 0; e < cnt; e++) {
        if (memcmp(&ref[k][e], &blk[k][e], sizeof(double)) != 0) {
          diff++;
          double r = fabs(ref[k][e] - blk[k][e]) / (fabs(ref[k][e]) > 0 ? fabs(ref[k][e]) : 1);
          if (!(r <= maxrel)) maxrel = r;
        }
      }
    }
    valid = diff == 0;
    if (!valid)
      fprintf(stderr, "lu: %zu of %zu elements differ from the sequential factorization (max rel. diff %.3e)\n", diff,
              (size_t)n * n, maxrel);
    free(ref);
    free(priv);
  }
  /* Phase times: the slowest worker's (worker 0 gathers them). */
  snprintf(extra, sizeof extra,
           "\"n\": %d, \"b\": %d, \"factorization_time\": %.6f, \"diag_time\": %.6f, \"perimeter_time\": %.6f, "
           "\"interior_time\": %.6f, \"barrier_wait_time\": %.6f",
           n, g_b, par_region_time(), tmax[0], tmax[1], tmax[2], tmax[3]);
  par_report("lu", valid, extra);
  par_free(times);
  par_free(raw);
  free(blk);
  free(off);
  free(wsize);
  free(wbase);
  return 0;
}

int main(int argc, char** argv) { return par_main(argc, argv, worker); }
