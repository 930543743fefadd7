/* SPLASH-2 FFT: the radix-sqrt(n) "six-step" complex 1-D FFT of n = 2^m
 * complex doubles (Bailey's algorithm, as in SPLASH-2's fft.C).
 *
 * The data x is viewed as a rootN x rootN matrix (rootN = 2^(m/2)); rows are
 * split across workers in contiguous blocks (block edges on page
 * boundaries where rows are smaller than a page, so every worker writes only
 * its own pages).  FFT1D, as in SPLASH-2:
 *   transpose x -> trans; 1-D FFT + twiddle (roots of unity) on my rows of
 *   trans; barrier; transpose trans -> x; 1-D FFT on my rows of x (scaled by
 *   1/n for the inverse); barrier; transpose x -> trans; barrier; copy my rows
 *   of trans back to x; barrier.
 * Each transpose is done blockwise: a worker fills its own destination rows,
 * reading the block it needs from every worker's source rows (starting with
 * the next worker, staggered as in SPLASH-2).
 *
 * Only even m is supported (SPLASH-2's square rootN x rootN layout); odd m
 * is rejected with a message.
 *
 * The measured region is the forward FFT.  Reported: "m", "n" and
 * "transpose_time" = time spent inside the forward FFT's three transposes,
 * the slowest worker's value.
 *
 * Validation (worker 0, private memory): the forward result must match an
 * iterative radix-2 FFT of the same input within 1e-9 relative
 * (max |diff| / max |X|), and the inverse FFT (run in parallel after the
 * region) must give back the input within 1e-9 relative.
 *
 *   fft [--m 16] [--corrupt]
 * --corrupt: the worker owning the last row skips that row's twiddle
 * multiply in the forward FFT.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft_radix2.h"
#include "par.h"

static const double kTwoPi = 6.283185307179586476925286766559;

/* exp(sign * 2 pi i * k / n), k taken modulo n for accuracy. */
static cplx root(long long k, long long n, int sign) {
  k %= n;
  double a = kTwoPi * (double)k / (double)n;
  cplx w = {cos(a), sign * sin(a)};
  return w;
}

/* Deterministic input: element k depends on k only (any worker count). */
static double hash_unit(uint64_t k) {
  uint64_t z = k + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
}
static cplx input(long long k) {
  cplx v = {hash_unit(2 * (uint64_t)k), hash_unit(2 * (uint64_t)k + 1)};
  return v;
}

typedef struct {
  int m, m1, n1, nw, id;
  long N;
  int r0, r1;     /* my rows */
  int* first;     /* first[w] = worker w's first row, first[nw] = n1 */
  cplx* x;        /* shared, N */
  cplx* trans;    /* shared, N */
  cplx* umain2;   /* shared, N: row j holds exp(-2 pi i j k / N), my rows written by me */
  cplx* umain;    /* private, n1/2 roots of unity for the row FFTs */
  double ttrans;  /* time in transposes */
} fft_t;

/* dst[j][i] = src[i][j] for my destination rows j, blockwise: for each
 * worker q (starting with the next one) the block of q's source rows x my
 * columns. */
static void transpose(fft_t* f, const cplx* src, cplx* dst) {
  const int n1 = f->n1, B = 16;
  double t0 = par_time();
  for (int s = 1; s <= f->nw; s++) {
    int q = (f->id + s) % f->nw;
    int q0 = f->first[q], q1 = f->first[q + 1];
    for (int ii = q0; ii < q1; ii += B) {
      int ie = ii + B < q1 ? ii + B : q1;
      for (int jj = f->r0; jj < f->r1; jj += B) {
        int je = jj + B < f->r1 ? jj + B : f->r1;
        for (int i = ii; i < ie; i++) {
          const cplx* srow = src + (size_t)i * n1;
          for (int j = jj; j < je; j++) dst[(size_t)j * n1 + i] = srow[j];
        }
      }
    }
  }
  f->ttrans += par_time() - t0;
}

/* The SPLASH-2 FFT1D: x -> x (natural order), dir = +1 forward, -1 inverse
 * (scaled by 1/N).  skip_twiddle_row: a row whose twiddle is skipped (-1:
 * none), for --corrupt. */
static void fft1d(fft_t* f, int dir, int skip_twiddle_row) {
  const int n1 = f->n1;
  par_barrier();
  transpose(f, f->x, f->trans);
  for (int j = f->r0; j < f->r1; j++) {
    cplx* row = f->trans + (size_t)j * n1;
    fft_radix2(row, 1L << f->m1, f->umain, dir);
    if (j == skip_twiddle_row) continue;
    const cplx* w = f->umain2 + (size_t)j * n1;
    for (int k = 0; k < n1; k++) { /* TwiddleOneCol */
      double wr = w[k].re, wi = dir > 0 ? w[k].im : -w[k].im;
      double r = row[k].re, i = row[k].im;
      row[k].re = r * wr - i * wi;
      row[k].im = r * wi + i * wr;
    }
  }
  par_barrier();
  transpose(f, f->trans, f->x);
  for (int j = f->r0; j < f->r1; j++) {
    cplx* row = f->x + (size_t)j * n1;
    fft_radix2(row, 1L << f->m1, f->umain, dir);
    if (dir < 0) {
      double s = 1.0 / (double)f->N;
      for (int k = 0; k < n1; k++) {
        row[k].re *= s;
        row[k].im *= s;
      }
    }
  }
  par_barrier();
  transpose(f, f->x, f->trans);
  par_barrier();
  if (f->r1 > f->r0)
    memcpy(f->x + (size_t)f->r0 * n1, f->trans + (size_t)f->r0 * n1, (size_t)(f->r1 - f->r0) * n1 * sizeof(cplx));
  par_barrier();
}

static int worker(int argc, char** argv) {
  const int m = par_arg_int(argc, argv, "m", 16);
  const int corrupt = par_arg_flag(argc, argv, "corrupt");
  const int id = par_id(), nw = par_nworkers();
  if (m < 2 || m > 30 || m % 2 != 0) {
    if (id == 0)
      fprintf(stderr, "fft: --m %d: m must be even and in 2..30 (the square rootN x rootN layout of SPLASH-2)\n", m);
    return 2;
  }
  fft_t F;
  memset(&F, 0, sizeof F);
  fft_t* f = &F;
  f->m = m;
  f->m1 = m / 2;
  f->n1 = 1 << f->m1;
  f->N = 1L << m;
  f->nw = nw;
  f->id = id;
  const int n1 = f->n1;
  const long N = f->N;

  /* Row partition in groups of rows filling whole pages (4 KiB). */
  int rpp = 4096 / (int)(n1 * sizeof(cplx));
  if (rpp < 1) rpp = 1;
  if (rpp > n1) rpp = n1;
  const int groups = n1 / rpp;
  f->first = (int*)malloc(sizeof(int) * (size_t)(nw + 1));
  for (int w = 0; w <= nw; w++) f->first[w] = (int)((long)groups * w / nw) * rpp;
  f->r0 = f->first[id];
  f->r1 = f->first[id + 1];

  f->x = (cplx*)par_alloc((size_t)N * sizeof(cplx));
  f->trans = (cplx*)par_alloc((size_t)N * sizeof(cplx));
  f->umain2 = (cplx*)par_alloc((size_t)N * sizeof(cplx));
  double* ttr = (double*)par_alloc((size_t)nw * 64); /* one cache line per worker */
  f->umain = (cplx*)malloc(sizeof(cplx) * (size_t)(n1 / 2 + 1));
  for (int k = 0; k < n1 / 2; k++) f->umain[k] = root(k, n1, -1);

  /* First touch: each worker initializes its own rows of all three arrays. */
  for (int j = f->r0; j < f->r1; j++) {
    for (int k = 0; k < n1; k++) {
      long idx = (long)j * n1 + k;
      f->x[idx] = input(idx);
      f->umain2[idx] = root((long long)j * k, N, -1);
      f->trans[idx].re = f->trans[idx].im = 0;
    }
  }
  par_barrier();

  /* --corrupt: the owner of the last row skips its twiddle once. */
  const int skip = corrupt ? n1 - 1 : -1;
  par_region_begin();
  fft1d(f, +1, skip);
  par_region_end();
  ttr[id * 8] = f->ttrans; /* this worker's forward transpose time */

  /* Worker 0 keeps the forward result; then the inverse round trip. */
  cplx* fwd = NULL;
  if (id == 0) {
    fwd = (cplx*)malloc(sizeof(cplx) * (size_t)N);
    memcpy(fwd, f->x, sizeof(cplx) * (size_t)N);
  }
  par_barrier(); /* worker 0 has read x (and every ttr is written) before the inverse writes it */
  double transpose_time = 0;
  for (int w = 0; w < nw; w++)
    if (ttr[w * 8] > transpose_time) transpose_time = ttr[w * 8]; /* slowest worker */
  fft1d(f, -1, -1);

  int valid = 1;
  double err_fwd = 0, err_rt = 0;
  if (id == 0) {
    cplx* ref = (cplx*)malloc(sizeof(cplx) * (size_t)N);
    cplx* w = (cplx*)malloc(sizeof(cplx) * (size_t)(N / 2 + 1));
    for (long k = 0; k < N; k++) ref[k] = input(k);
    double xmax = 0, dmax = 0;
    for (long k = 0; k < N; k++) { /* round trip: x is back to the input */
      double d = hypot(f->x[k].re - ref[k].re, f->x[k].im - ref[k].im), a = hypot(ref[k].re, ref[k].im);
      if (d > dmax || d != d) dmax = d;
      if (a > xmax) xmax = a;
    }
    err_rt = dmax / xmax;
    for (long k = 0; k < N / 2; k++) w[k] = root(k, N, -1);
    fft_radix2(ref, 1L << m, w, +1);
    xmax = 0, dmax = 0;
    for (long k = 0; k < N; k++) {
      double d = hypot(fwd[k].re - ref[k].re, fwd[k].im - ref[k].im), a = hypot(ref[k].re, ref[k].im);
      if (d > dmax || d != d) dmax = d;
      if (a > xmax) xmax = a;
    }
    err_fwd = dmax / xmax;
    valid = err_fwd < 1e-9 && err_rt < 1e-9;
    if (!valid)
      fprintf(stderr, "fft: forward error %.3e (vs radix-2), round-trip error %.3e (limit 1e-9)\n", err_fwd, err_rt);
    free(w);
    free(ref);
    free(fwd);
  }
  char extra[256];
  snprintf(extra, sizeof extra,
           "\"m\": %d, \"n\": %ld, \"transpose_time\": %.6f, \"forward_error\": %.3e, \"roundtrip_error\": %.3e", m, N,
           transpose_time, err_fwd, err_rt);
  par_report("fft", valid, extra);
  par_free(ttr);
  par_free(f->umain2);
  par_free(f->trans);
  par_free(f->x);
  free(f->umain);
  free(f->first);
  return 0;
}

int main(int argc, char** argv) { return par_main(argc, argv, worker); }
