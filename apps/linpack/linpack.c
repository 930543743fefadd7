/* Linpack (HPL-style) solution of a dense random system A x = b by LU
 * factorization with partial pivoting.
 *
 * A is n x n, column-major with leading dimension n, cut into column blocks
 * of nb columns; each column block is contiguous and starts on a page, and
 * block q belongs to worker q mod P (1-D block-cyclic distribution of column
 * blocks).  Right-looking blocked LU, for each panel (column block) p:
 *   the owner of p factors the panel (unblocked, partial pivoting: the
 *   largest |entry| at or below the diagonal; rows swapped across the panel),
 *   writes the pivot indices to shared memory, and applies the panel's row
 *   swaps and forward elimination to b (b acts as HPL's column n+1);
 *                                                                  barrier;
 *   every worker applies the row swaps, the triangular solve with the unit
 *   lower L11 and the update A22 -= L21 * U12 to its own column blocks
 *   right of the panel;                                            barrier.
 * Then the back substitution U x = y runs block column by block column from
 * the last: the block's owner solves its diagonal triangle and subtracts its
 * columns' contribution from the rest of y; barrier.  (The solve is inside
 * the timed region, as in HPL.)
 *
 * The matrix entries and b are uniform in [-0.5, 0.5) from a counter-based
 * generator with a fixed seed, so any worker can generate any column: each
 * worker generates (first-touches) its own column blocks.
 *
 * Validation (worker 0): regenerate A and b from the seed and compute HPL's
 * scaled residual ||A x - b||_inf / (||A||_inf ||x||_inf n eps) with
 * eps = 2^-53 (HPL's relative machine precision); valid when below 16.
 * Reported: "gflops" = (2/3 n^3 + 2 n^2) / time / 1e9 with the region time,
 * "scaled_residual", "n", "nb", and the slowest worker's time in panel
 * factorization, trailing update and back substitution.
 *
 *   linpack [--n 4096] [--nb 64] [--corrupt]
 * --corrupt: the last worker skips the trailing update of one of its column
 * blocks at the first panel.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"

#define PAGE 4096

typedef double v2 __attribute__((vector_size(16), aligned(8))); /* unaligned loads/stores allowed */

static uint64_t mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double uniform(uint64_t stream, uint64_t idx) {
  return (double)(mix(mix(stream) ^ idx) >> 11) * 0x1.0p-53 - 0.5;
}
#define SEED_A 0x4C494E50414Bull /* "LINPAK" */
#define SEED_B 0x5248535ull      /* "RHS" */
static double gen_a(int n, int i, int j) { return uniform(SEED_A, (uint64_t)j * (uint64_t)n + (uint64_t)i); }
static double gen_b(int i) { return uniform(SEED_B, (uint64_t)i); }

static int g_n, g_nb;
static char* g_base;
static size_t g_slot; /* bytes per column block */

/* Column j of A. */
static double* col(int j) { return (double*)(g_base + (size_t)(j / g_nb) * g_slot) + (size_t)(j % g_nb) * g_n; }

/* C[0:m, 0:nc] -= L[0:m, 0:w] * U[0:w, 0:nc]; C, L column-major with
 * leading dimension ld, Up the packed U (groups of 4 columns: Up[g*4w + k*4 + jj]). */
static void gemm_sub(double* C, const double* L, const double* Up, int ld, int m, int nc, int w) {
  const int MB = 256; /* rows per pass: the L21 slice stays in cache */
  for (int i0 = 0; i0 < m; i0 += MB) {
    const int i1 = i0 + MB < m ? i0 + MB : m;
    for (int j = 0; j < nc; j += 4) {
      const double* up = Up + (size_t)(j / 4) * 4 * w;
      double* c0 = C + (size_t)j * ld;
      if (j + 4 <= nc) {
        double *c1 = c0 + ld, *c2 = c1 + ld, *c3 = c2 + ld;
        int i = i0;
        for (; i + 4 <= i1; i += 4) {
          v2 a00 = {0, 0}, a01 = a00, a02 = a00, a03 = a00, a10 = a00, a11 = a00, a12 = a00, a13 = a00;
          const double* l = L + i;
          for (int k = 0; k < w; k++, l += ld) {
            v2 l0 = *(const v2*)l, l1 = *(const v2*)(l + 2);
            const double* u = up + 4 * k;
            a00 += l0 * u[0];
            a10 += l1 * u[0];
            a01 += l0 * u[1];
            a11 += l1 * u[1];
            a02 += l0 * u[2];
            a12 += l1 * u[2];
            a03 += l0 * u[3];
            a13 += l1 * u[3];
          }
          *(v2*)(c0 + i) -= a00;
          *(v2*)(c0 + i + 2) -= a10;
          *(v2*)(c1 + i) -= a01;
          *(v2*)(c1 + i + 2) -= a11;
          *(v2*)(c2 + i) -= a02;
          *(v2*)(c2 + i + 2) -= a12;
          *(v2*)(c3 + i) -= a03;
          *(v2*)(c3 + i + 2) -= a13;
        }
        for (; i < i1; i++)
          for (int jj = 0; jj < 4; jj++) {
            double s = 0;
            for (int k = 0; k < w; k++) s += L[i + (size_t)k * ld] * up[4 * k + jj];
            c0[i + (size_t)jj * ld] -= s;
          }
      } else {
        for (int jj = 0; j + jj < nc; jj++)
          for (int i = i0; i < i1; i++) {
            double s = 0;
            for (int k = 0; k < w; k++) s += L[i + (size_t)k * ld] * up[4 * k + jj];
            c0[i + (size_t)jj * ld] -= s;
          }
      }
    }
  }
}

/* Factor panel columns [j0, j0+w) in place (rows j0..n-1); pivots to ipiv.
 * Returns 0, or 1 if a pivot is exactly zero. */
static int panel_factor(int j0, int w, int* ipiv) {
  const int n = g_n;
  int singular = 0;
  double* P = col(j0); /* the panel's columns are consecutive with stride n */
  for (int jj = 0; jj < w; jj++) {
    const int j = j0 + jj;
    double* c = P + (size_t)jj * n;
    int ip = j;
    double amax = fabs(c[j]);
    for (int i = j + 1; i < n; i++)
      if (fabs(c[i]) > amax) {
        amax = fabs(c[i]);
        ip = i;
      }
    ipiv[j] = ip;
    if (ip != j)
      for (int k = 0; k < w; k++) {
        double* ck = P + (size_t)k * n;
        double t = ck[j];
        ck[j] = ck[ip];
        ck[ip] = t;
      }
    if (c[j] == 0) {
      singular = 1;
      continue;
    }
    const double r = 1.0 / c[j];
    for (int i = j + 1; i < n; i++) c[i] *= r;
    for (int k = jj + 1; k < w; k++) {
      double* ck = P + (size_t)k * n;
      const double a = ck[j];
      if (a != 0)
        for (int i = j + 1; i < n; i++) ck[i] -= c[i] * a;
    }
  }
  return singular;
}

/* Apply panel p's swaps and elimination to column block q (owned by the caller). */
static void update_block(int j0, int w, int q, const int* ipiv, double* Up) {
  const int n = g_n;
  const int c0 = q * g_nb, nc = (c0 + g_nb < n ? g_nb : n - c0);
  double* B = col(c0);
  const double* L = col(j0);
  /* row swaps */
  for (int c = 0; c < nc; c++) {
    double* x = B + (size_t)c * n;
    for (int j = j0; j < j0 + w; j++) {
      const int ip = ipiv[j];
      if (ip != j) {
        double t = x[j];
        x[j] = x[ip];
        x[ip] = t;
      }
    }
  }
  /* U12 = L11^-1 A12 (unit lower triangular) */
  for (int c = 0; c < nc; c++) {
    double* x = B + (size_t)c * n;
    for (int k = 0; k < w; k++) {
      const double xk = x[j0 + k];
      if (xk != 0)
        for (int i = k + 1; i < w; i++) x[j0 + i] -= L[j0 + i + (size_t)k * n] * xk;
    }
  }
  /* A22 -= L21 U12 */
  const int m = n - j0 - w;
  if (m <= 0) return;
  for (int c = 0; c < nc; c++)
    for (int k = 0; k < w; k++) Up[(size_t)(c / 4) * 4 * w + 4 * k + c % 4] = B[j0 + k + (size_t)c * n];
  gemm_sub(B + j0 + w, L + j0 + w, Up, n, m, nc, w);
}

static int worker(int argc, char** argv) {
  const int n = par_arg_int(argc, argv, "n", 4096);
  int nb = par_arg_int(argc, argv, "nb", 64);
  const int corrupt = par_arg_flag(argc, argv, "corrupt");
  const int id = par_id(), nw = par_nworkers();
  if (n < 1 || nb < 1) {
    if (id == 0) fprintf(stderr, "linpack: --n and --nb must be positive\n");
    return 2;
  }
  if (nb > n) nb = n;
  g_n = n;
  g_nb = nb;
  const int nblk = (n + nb - 1) / nb;
  g_slot = ((size_t)n * nb * sizeof(double) + PAGE - 1) / PAGE * PAGE;

  char* raw = (char*)par_alloc(g_slot * nblk + PAGE);
  g_base = (char*)(((uintptr_t)raw + PAGE - 1) / PAGE * PAGE);
  int* ipiv = (int*)par_alloc((size_t)n * sizeof(int));
  double* rhs = (double*)par_alloc((size_t)n * sizeof(double)); /* b, then y, then x */
  double* shared_t = (double*)par_alloc((size_t)nw * 64);      /* per-worker phase times */
  int* flags = (int*)par_alloc((size_t)nw * 64);               /* per-worker "zero pivot" flags */
  double* Up = (double*)malloc(sizeof(double) * (size_t)(nb + 3) * nb);

  /* Each worker generates (first-touches) its own column blocks; worker 0 b. */
  for (int q = id; q < nblk; q += nw)
    for (int j = q * nb; j < n && j < (q + 1) * nb; j++) {
      double* c = col(j);
      for (int i = 0; i < n; i++) c[i] = gen_a(n, i, j);
    }
  if (id == 0)
    for (int i = 0; i < n; i++) rhs[i] = gen_b(i);
  par_barrier();

  double t_panel = 0, t_update = 0, t_solve = 0;
  int singular = 0, skipped = 0;
  par_region_begin();
  for (int p = 0; p < nblk; p++) {
    const int j0 = p * nb, w = j0 + nb < n ? nb : n - j0;
    if (p % nw == id) {
      double t0 = par_time();
      singular |= panel_factor(j0, w, ipiv);
      /* b: the panel's swaps, then forward elimination with L11 and L21 */
      for (int j = j0; j < j0 + w; j++) {
        const int ip = ipiv[j];
        double t = rhs[j];
        rhs[j] = rhs[ip];
        rhs[ip] = t;
      }
      for (int j = j0; j < j0 + w; j++) {
        const double* c = col(j);
        const double y = rhs[j];
        for (int i = j + 1; i < n; i++) rhs[i] -= c[i] * y;
      }
      t_panel += par_time() - t0;
    }
    par_barrier();
    double t0 = par_time();
    for (int q = p + 1; q < nblk; q++) {
      if (q % nw != id) continue;
      if (corrupt && id == nw - 1 && !skipped) { /* --corrupt: skip one block update once */
        skipped = 1;
        continue;
      }
      update_block(j0, w, q, ipiv, Up);
    }
    t_update += par_time() - t0;
    par_barrier();
  }
  /* Back substitution U x = y, block column by block column. */
  for (int q = nblk - 1; q >= 0; q--) {
    if (q % nw == id) {
      double t0 = par_time();
      const int j0 = q * nb, j1 = j0 + nb < n ? j0 + nb : n;
      for (int j = j1 - 1; j >= j0; j--) {
        const double* c = col(j);
        const double x = rhs[j] / c[j];
        rhs[j] = x;
        for (int i = j0; i < j; i++) rhs[i] -= c[i] * x;
      }
      for (int j = j0; j < j1; j++) {
        const double* c = col(j);
        const double x = rhs[j];
        for (int i = 0; i < j0; i++) rhs[i] -= c[i] * x;
      }
      t_solve += par_time() - t0;
    }
    par_barrier();
  }
  par_region_end();
  const double T = par_region_time();
  shared_t[id * 8 + 0] = t_panel;
  shared_t[id * 8 + 1] = t_update;
  shared_t[id * 8 + 2] = t_solve;
  flags[id * 16] = singular;
  par_barrier();

  /* Validation on worker 0: the scaled residual against the regenerated A, b. */
  int valid = 1;
  double scaled = 0, tmax[3] = {0, 0, 0};
  if (id == 0) {
    int any_singular = 0;
    for (int w = 0; w < nw; w++) {
      any_singular |= flags[w * 16];
      for (int k = 0; k < 3; k++)
        if (shared_t[w * 8 + k] > tmax[k]) tmax[k] = shared_t[w * 8 + k];
    }
    double* x = (double*)malloc(sizeof(double) * (size_t)n);
    double* r = (double*)malloc(sizeof(double) * (size_t)n);
    double* rowsum = (double*)calloc((size_t)n, sizeof(double));
    memcpy(x, rhs, sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) r[i] = -gen_b(i);
    for (int j = 0; j < n; j++) {
      const double xj = x[j];
      for (int i = 0; i < n; i++) {
        const double a = gen_a(n, i, j);
        r[i] += a * xj;
        rowsum[i] += fabs(a);
      }
    }
    double rn = 0, an = 0, xn = 0;
    for (int i = 0; i < n; i++) {
      if (!(fabs(r[i]) <= rn)) rn = fabs(r[i]); /* NaN propagates */
      if (rowsum[i] > an) an = rowsum[i];
      if (!(fabs(x[i]) <= xn)) xn = fabs(x[i]);
    }
    const double eps = DBL_EPSILON / 2; /* 2^-53, HPL's dlamch("eps") */
    scaled = rn / (an * xn * (double)n * eps);
    valid = !any_singular && scaled < 16.0;
    if (!valid)
      fprintf(stderr, "linpack: scaled residual %.3e (||r|| %.3e, ||A|| %.3e, ||x|| %.3e)%s\n", scaled, rn, an, xn,
              any_singular ? ", zero pivot" : "");
    free(x);
    free(r);
    free(rowsum);
  }
  const double flops = 2.0 / 3.0 * (double)n * n * n + 2.0 * (double)n * n;
  char extra[400];
  /* Phase times: the slowest worker's. */
  snprintf(extra, sizeof extra,
           "\"n\": %d, \"nb\": %d, \"gflops\": %.4f, \"scaled_residual\": %.6e, \"panel_time\": %.6f, "
           "\"update_time\": %.6f, \"solve_time\": %.6f",
           n, nb, flops / (T > 0 ? T : 1e-9) / 1e9, scaled, tmax[0], tmax[1], tmax[2]);
  par_report("linpack", valid, extra);
  free(Up);
  par_free(flags);
  par_free(shared_t);
  par_free(rhs);
  par_free(ipiv);
  par_free(raw);
  return 0;
}

int main(int argc, char** argv) { return par_main(argc, argv, worker); }
