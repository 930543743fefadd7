/* TreadMarks 3-D FFT: the NAS FT kernel (NPB FT, as used in the TreadMarks
 * papers) on an n x n x n complex array.
 *
 * As NAS FT: u = pseudo-random initial conditions (the NAS randlc stream,
 * seed 314159265, a = 5^13); U0 = forward 3-D FFT(u); then for each
 * iteration t = 1..iters: U0 *= exp(-4 alpha pi^2 (i^2+j^2+k^2)) (the evolve
 * step, alpha = 1e-6, applied cumulatively as in NPB 3), u1 = inverse 3-D
 * FFT(U0) (unnormalized), checksum_t = sum over j = 1..1024 of
 * u1[5j mod n][3j mod n][j mod n] / n^3.
 *
 * Parallelization (TreadMarks style, locks and barriers): the array lives in
 * shared memory in two layouts, A[z][y][x] split by z planes and
 * B[x][y][z] split by x planes, each worker owning a contiguous block of
 * planes of each (and first-touching them).  The forward FFT does x and y
 * on my z planes of A, barrier, transposes into my x planes of B (reading
 * the pieces it needs from everyone's slabs of A), barrier, z on B, barrier.
 * Each iteration: evolve my planes of U0 (B layout) into W (B layout), 1-D
 * FFTs along z and y (the two local dimensions) on my planes of W, barrier,
 * global transpose W -> A (my z planes, reading from every worker's slab),
 * barrier, 1-D FFTs along x on my planes of A, then my part of the checksum
 * is added under a lock (par_lock) into the shared sum of that iteration,
 * barrier.
 *
 * The measured region is the iterations (the initial forward FFT is set-up):
 * "per_iteration_time" = region time / iters; "transpose_time" = the time
 * of the iterations' transposes, slowest worker; "checksum_re/_im" = the last
 * iteration's checksum.
 *
 * Validation (worker 0, private memory): a sequential 3-D FFT of the same
 * data runs the same NAS FT steps; the final u1 must match within 1e-9
 * relative (max |diff| / max |u1|) and every iteration's checksum within
 * 1e-9 relative (the lock order makes the parallel sum order vary).  At the
 * NAS class S size (n 64, iters 6, the default) the checksums must also
 * match the NAS reference values within NAS's 1e-12.
 *
 *   fft3d [--n 64] [--iters 6] [--corrupt]
 * Defaults: NAS FT class S (64^3, 6 iterations; class W is 128x128x32).
 * n must be a power of two.
 * --corrupt: in iteration 1 the last worker skips the evolve multiply on one
 * of its planes.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft_radix2.h"
#include "par.h"

static const double kPi = 3.141592653589793238462643383279502884;

/* ---- NAS randlc: x <- a x mod 2^46, value x / 2^46 (exact in integers) ---- */
static const uint64_t kMask46 = (1ull << 46) - 1;
static const uint64_t kA = 1220703125ull; /* 5^13 */
static const uint64_t kSeed = 314159265ull;
static uint64_t pow46(uint64_t a, uint64_t e) {
  uint64_t r = 1;
  while (e) {
    if (e & 1) r = (r * a) & kMask46;
    a = (a * a) & kMask46;
    e >>= 1;
  }
  return r;
}
/* Fill plane z of the natural [z][y][x] array (n*n complex): NAS
 * compute_initial_conditions, one continuous stream over the array. */
static void init_plane(cplx* p, int n, int z) {
  uint64_t x = (kSeed * pow46(kA, 2ull * n * n * (uint64_t)z)) & kMask46;
  const double r46 = 1.0 / 70368744177664.0; /* 2^-46 */
  for (long k = 0; k < (long)n * n; k++) {
    x = (kA * x) & kMask46;
    p[k].re = (double)x * r46;
    x = (kA * x) & kMask46;
    p[k].im = (double)x * r46;
  }
}

/* exp(ap * (ii^2 + jj^2 + kk^2)), the NAS indexmap twiddle. */
static double twiddle_at(int n, int i, int j, int k) {
  const double ap = -4.0 * 1.0e-6 * kPi * kPi;
  int ii = ((i + n / 2) % n) - n / 2, jj = ((j + n / 2) % n) - n / 2, kk = ((k + n / 2) % n) - n / 2;
  return exp(ap * (double)(ii * ii + jj * jj + kk * kk));
}

/* In one plane p (n x n, row-major [r][c]): FFT along c (contiguous rows)
 * and/or along r (columns, through the buffer). */
static void fft_plane_rows(cplx* p, int n, const cplx* w, int dir) {
  for (int r = 0; r < n; r++) fft_radix2(p + (size_t)r * n, n, w, dir);
}
static void fft_plane_cols(cplx* p, int n, const cplx* w, int dir, cplx* buf) {
  for (int c = 0; c < n; c++) {
    for (int r = 0; r < n; r++) buf[r] = p[(size_t)r * n + c];
    fft_radix2(buf, n, w, dir);
    for (int r = 0; r < n; r++) p[(size_t)r * n + c] = buf[r];
  }
}

/* dst[a][y][b] = src[b][y][a] for my planes a in [a0, a1) of dst, reading
 * from every worker's planes of src (starting with the next worker). */
static void transpose(const cplx* src, cplx* dst, int n, int a0, int a1, const int* first, int id, int nw) {
  const size_t nn = (size_t)n * n;
  for (int s = 1; s <= nw; s++) {
    int q = (id + s) % nw;
    for (int b = first[q]; b < first[q + 1]; b++) {
      const cplx* sp = src + (size_t)b * nn;
      for (int y = 0; y < n; y++) {
        const cplx* srow = sp + (size_t)y * n;
        for (int a = a0; a < a1; a++) dst[(size_t)a * nn + (size_t)y * n + b] = srow[a];
      }
    }
  }
}

/* The checksum points owned by z planes [z0, z1) of a [z][y][x] array. */
static cplx checksum_part(const cplx* u, int n, int z0, int z1) {
  cplx c = {0, 0};
  for (int j = 1; j <= 1024; j++) {
    int q = j % n, r = (3 * j) % n, s = (5 * j) % n;
    if (s < z0 || s >= z1) continue;
    const cplx* v = u + ((size_t)s * n + r) * n + q;
    c.re += v->re;
    c.im += v->im;
  }
  return c;
}

static double rel_err(cplx a, cplx b) {
  return hypot(a.re - b.re, a.im - b.im) / hypot(b.re, b.im);
}

static int worker(int argc, char** argv) {
  const int n = par_arg_int(argc, argv, "n", 64);
  const int iters = par_arg_int(argc, argv, "iters", 6);
  const int corrupt = par_arg_flag(argc, argv, "corrupt");
  const int id = par_id(), nw = par_nworkers();
  if (n < 2 || n > 1024 || (n & (n - 1)) || iters < 1) {
    if (id == 0) fprintf(stderr, "fft3d: --n %d --iters %d: n must be a power of two (2..1024), iters >= 1\n", n, iters);
    return 2;
  }
  const size_t nn = (size_t)n * n, N = nn * n;
  const double ntotal = (double)N;

  /* Planes in contiguous blocks; the same split for z planes of A and x
   * planes of B. */
  int* first = (int*)malloc(sizeof(int) * (size_t)(nw + 1));
  for (int w = 0; w <= nw; w++) first[w] = (int)((long)n * w / nw);
  const int p0 = first[id], p1 = first[id + 1];

  cplx* A = (cplx*)par_alloc(N * sizeof(cplx));  /* [z][y][x] */
  cplx* U0 = (cplx*)par_alloc(N * sizeof(cplx)); /* [x][y][z]: the transformed data */
  cplx* W = (cplx*)par_alloc(N * sizeof(cplx));  /* [x][y][z]: work */
  cplx* sums = (cplx*)par_alloc((size_t)(iters + 1) * sizeof(cplx));
  double* ttr = (double*)par_alloc((size_t)nw * 64); /* one cache line per worker */

  cplx* w = (cplx*)malloc(sizeof(cplx) * (size_t)(n / 2 + 1));
  for (int k = 0; k < n / 2; k++) {
    double a = 2.0 * kPi * (double)k / (double)n;
    w[k].re = cos(a);
    w[k].im = -sin(a);
  }
  cplx* buf = (cplx*)malloc(sizeof(cplx) * (size_t)n);
  /* My part of the twiddle (B layout, planes x in [p0, p1)): private. */
  double* tw = (double*)malloc(sizeof(double) * (size_t)(p1 - p0) * nn + 1);
  for (int x = p0; x < p1; x++)
    for (int y = 0; y < n; y++)
      for (int z = 0; z < n; z++) tw[((size_t)(x - p0) * n + y) * n + z] = twiddle_at(n, x, y, z);

  /* First touch of my planes; initial conditions into my z planes of A. */
  for (int p = p0; p < p1; p++) {
    init_plane(A + (size_t)p * nn, n, p);
    memset(U0 + (size_t)p * nn, 0, nn * sizeof(cplx));
    memset(W + (size_t)p * nn, 0, nn * sizeof(cplx));
  }

  /* Forward 3-D FFT (set-up, not timed): x and y on my z planes of A,
   * transpose into U0, z on my x planes of U0. */
  for (int z = p0; z < p1; z++) {
    fft_plane_rows(A + (size_t)z * nn, n, w, +1);
    fft_plane_cols(A + (size_t)z * nn, n, w, +1, buf);
  }
  par_barrier();
  transpose(A, U0, n, p0, p1, first, id, nw);
  par_barrier();
  for (int x = p0; x < p1; x++) fft_plane_rows(U0 + (size_t)x * nn, n, w, +1);
  par_barrier();

  double ttrans = 0;
  par_region_begin();
  for (int t = 1; t <= iters; t++) {
    /* evolve my planes (B layout) into W, then inverse FFTs along z and y */
    for (int x = p0; x < p1; x++) {
      cplx* u = U0 + (size_t)x * nn;
      cplx* v = W + (size_t)x * nn;
      const double* f = tw + (size_t)(x - p0) * nn;
      int skip = corrupt && t == 1 && id == nw - 1 && x == p1 - 1;
      for (size_t k = 0; k < nn; k++) {
        if (!skip) {
          u[k].re *= f[k];
          u[k].im *= f[k];
        }
        v[k] = u[k];
      }
      fft_plane_rows(v, n, w, -1); /* along z */
      fft_plane_cols(v, n, w, -1, buf); /* along y */
    }
    par_barrier();
    double t0 = par_time();
    transpose(W, A, n, p0, p1, first, id, nw);
    ttrans += par_time() - t0;
    par_barrier();
    for (int z = p0; z < p1; z++) fft_plane_rows(A + (size_t)z * nn, n, w, -1); /* along x */
    cplx c = checksum_part(A, n, p0, p1);
    par_lock(0);
    sums[t].re += c.re;
    sums[t].im += c.im;
    par_unlock(0);
    par_barrier();
  }
  par_region_end();
  ttr[id * 8] = ttrans;
  par_barrier();
  double transpose_time = 0;
  for (int q = 0; q < nw; q++)
    if (ttr[q * 8] > transpose_time) transpose_time = ttr[q * 8]; /* slowest worker */

  int valid = 1;
  double err_u = 0, err_chk = 0, err_nas = -1;
  cplx last = {sums[iters].re / ntotal, sums[iters].im / ntotal};
  if (id == 0) {
    /* Sequential NAS FT in natural [z][y][x] layout, private memory. */
    cplx* u0 = (cplx*)malloc(N * sizeof(cplx));
    cplx* u1 = (cplx*)malloc(N * sizeof(cplx));
    cplx* line = (cplx*)malloc(sizeof(cplx) * (size_t)n);
    for (int z = 0; z < n; z++) init_plane(u0 + (size_t)z * nn, n, z);
    for (int z = 0; z < n; z++) { /* forward: x, y, z */
      fft_plane_rows(u0 + (size_t)z * nn, n, w, +1);
      fft_plane_cols(u0 + (size_t)z * nn, n, w, +1, line);
    }
    for (size_t xy = 0; xy < nn; xy++) {
      for (int z = 0; z < n; z++) line[z] = u0[(size_t)z * nn + xy];
      fft_radix2(line, n, w, +1);
      for (int z = 0; z < n; z++) u0[(size_t)z * nn + xy] = line[z];
    }
    const double nas_re[6] = {5.546087004964e+02, 5.546385409189e+02, 5.546148406171e+02,
                              5.545423607415e+02, 5.544255039624e+02, 5.542683411902e+02};
    const double nas_im[6] = {4.845363331978e+02, 4.865304269511e+02, 4.883910722336e+02,
                              4.901273169046e+02, 4.917475857993e+02, 4.932597244941e+02};
    const int nas = n == 64 && iters <= 6;
    if (nas) err_nas = 0;
    for (int t = 1; t <= iters; t++) {
      for (int z = 0; z < n; z++)
        for (int y = 0; y < n; y++)
          for (int x = 0; x < n; x++) {
            size_t k = ((size_t)z * n + y) * n + x;
            double f = twiddle_at(n, x, y, z);
            u0[k].re *= f;
            u0[k].im *= f;
          }
      memcpy(u1, u0, N * sizeof(cplx));
      for (size_t xy = 0; xy < nn; xy++) { /* inverse: z, y, x */
        for (int z = 0; z < n; z++) line[z] = u1[(size_t)z * nn + xy];
        fft_radix2(line, n, w, -1);
        for (int z = 0; z < n; z++) u1[(size_t)z * nn + xy] = line[z];
      }
      for (int z = 0; z < n; z++) {
        fft_plane_cols(u1 + (size_t)z * nn, n, w, -1, line);
        fft_plane_rows(u1 + (size_t)z * nn, n, w, -1);
      }
      cplx ref = checksum_part(u1, n, 0, n);
      ref.re /= ntotal;
      ref.im /= ntotal;
      cplx par = {sums[t].re / ntotal, sums[t].im / ntotal};
      double e = rel_err(par, ref);
      if (e > err_chk || e != e) err_chk = e;
      if (nas) {
        cplx nv = {nas_re[t - 1], nas_im[t - 1]};
        double en = rel_err(par, nv);
        if (en > err_nas || en != en) err_nas = en;
      }
      if (t == iters) {
        double dmax = 0, amax = 0;
        for (size_t k = 0; k < N; k++) {
          double d = hypot(A[k].re - u1[k].re, A[k].im - u1[k].im), a = hypot(u1[k].re, u1[k].im);
          if (d > dmax || d != d) dmax = d;
          if (a > amax) amax = a;
        }
        err_u = dmax / amax;
      }
    }
    valid = err_u < 1e-9 && err_chk < 1e-9 && (!nas || err_nas <= 1e-12);
    if (!valid)
      fprintf(stderr, "fft3d: array error %.3e, checksum error %.3e (limit 1e-9), NAS checksum error %.3e (limit 1e-12)\n",
              err_u, err_chk, err_nas);
    free(line);
    free(u1);
    free(u0);
  }
  char extra[512];
  int len = snprintf(extra, sizeof extra,
                     "\"n\": %d, \"iters\": %d, \"per_iteration_time\": %.6f, \"transpose_time\": %.6f, "
                     "\"checksum_re\": %.12e, \"checksum_im\": %.12e, \"array_error\": %.3e, \"checksum_error\": %.3e",
                     n, iters, par_region_time() / iters, transpose_time, last.re, last.im, err_u, err_chk);
  if (err_nas >= 0) snprintf(extra + len, sizeof extra - (size_t)len, ", \"nas_class_s_error\": %.3e", err_nas);
  par_report("fft3d", valid, extra);
  free(tw);
  free(buf);
  free(w);
  par_free(ttr);
  par_free(sums);
  par_free(W);
  par_free(U0);
  par_free(A);
  free(first);
  return 0;
}

int main(int argc, char** argv) { return par_main(argc, argv, worker); }
