/* NAS EP (Embarrassingly Parallel), following NPB's ep.c: 2^m pairs of
 * uniform pseudorandom numbers from the NAS generator randlc (a = 5^13,
 * seed 271828183, x <- a*x mod 2^46) are turned into Gaussian deviates by
 * the Marsaglia polar (acceptance-rejection) method; the program counts the
 * accepted pairs in the ten square annuli l = max(|X|,|Y|) (q[0..9]) and sums
 * the deviates (sx, sy).
 *
 * The stream is cut, as in NPB, into batches of 2^16 pairs (2^17 numbers);
 * each batch's first seed is found by skipping ahead in the stream (seed *
 * a^(2^17 k), binary powering as NPB does).  Each worker takes a contiguous
 * block of batches, accumulates private counts and sums, then adds them into
 * the shared totals under a lock; barrier; worker 0 reports.
 *
 * Validation (worker 0, after the timed region): the whole computation is
 * repeated sequentially on worker 0 in NPB's order; the ten counts must be
 * equal exactly and sx, sy must agree within 1e-8 relative (the parallel
 * sums are added in a different order).  For the sizes NPB publishes (m = 24
 * class S, 25 W, 28 A, 30 B, 32 C, 36 D) sx and sy must also match NPB's
 * reference values within NPB's EPSILON 1e-8 relative; the JSON field
 * "validated_against" says which checks were made.
 *
 *   ep [--log2pairs 25] [--corrupt]
 *
 * --log2pairs m: 2^m pairs, m >= 16 (NPB class S 24, W 25, A 28).
 * --corrupt: the last worker skips its first batch, so the counts differ.
 * Sub-phase times in the RESULT line are the slowest worker's.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"

#define MK 16               /* log2 of the pairs per batch, as NPB */
#define NK (1L << MK)       /* pairs per batch */
#define NQ 10               /* annuli */
#define EPSILON 1.0e-8      /* NPB's verification tolerance */
#define A_MULT 1220703125ULL /* 5^13 */
#define SEED 271828183ULL
#define MASK46 ((1ULL << 46) - 1)

/* randlc in integer form: x <- a*x mod 2^46, returns x * 2^-46.  NPB's
 * double-precision randlc computes exactly this (every step is exact), and
 * a*x mod 2^64 reduced mod 2^46 is a*x mod 2^46. */
static inline uint64_t mulmod46(uint64_t a, uint64_t x) { return (a * x) & MASK46; }
static const double R46 = 1.0 / 70368744177664.0; /* 2^-46 */

/* vranlc: n successive numbers of the stream after *x. */
static void vranlc(long n, uint64_t* x, uint64_t a, double* y) {
  uint64_t s = *x;
  for (long i = 0; i < n; i++) {
    s = mulmod46(a, s);
    y[i] = (double)s * R46;
  }
  *x = s;
}

/* The first seed of batch kk: SEED * an^kk with an = a^(2 NK), found by
 * binary powering as NPB's loop does. */
static uint64_t batch_seed(long kk, uint64_t an) {
  uint64_t t1 = SEED, t2 = an;
  while (kk > 0) {
    if (kk & 1) t1 = mulmod46(t2, t1);
    t2 = mulmod46(t2, t2);
    kk >>= 1;
  }
  return t1;
}

/* One batch: generate 2 NK numbers, tally the accepted pairs. */
static void batch(long kk, uint64_t an, double* x, long long* q, double* sx, double* sy) {
  uint64_t t = batch_seed(kk, an);
  vranlc(2 * NK, &t, A_MULT, x);
  double lsx = *sx, lsy = *sy;
  for (long i = 0; i < NK; i++) {
    double x1 = 2.0 * x[2 * i] - 1.0;
    double x2 = 2.0 * x[2 * i + 1] - 1.0;
    double t1 = x1 * x1 + x2 * x2;
    if (t1 <= 1.0) {
      double t2 = sqrt(-2.0 * log(t1) / t1);
      double t3 = x1 * t2, t4 = x2 * t2;
      int l = (int)fmax(fabs(t3), fabs(t4));
      q[l]++;
      lsx += t3;
      lsy += t4;
    }
  }
  *sx = lsx;
  *sy = lsy;
}

struct totals {
  long long q[NQ];
  double sx, sy;
};

static int worker(int argc, char** argv) {
  const int m = par_arg_int(argc, argv, "log2pairs", 25);
  const int corrupt = par_arg_flag(argc, argv, "corrupt");
  const int id = par_id(), nw = par_nworkers();
  if (m < MK || m > 40) {
    if (id == 0) fprintf(stderr, "ep: --log2pairs must be in [%d, 40]\n", MK);
    return 2;
  }
  const long nbatch = 1L << (m - MK);
  const long k0 = nbatch * id / nw, k1 = nbatch * (id + 1) / nw;

  /* an = a^(2 NK) mod 2^46: square a (MK+1) times, as NPB. */
  uint64_t an = A_MULT;
  for (int i = 0; i <= MK; i++) an = mulmod46(an, an);

  struct totals* tot = (struct totals*)par_alloc(sizeof(struct totals));
  double* times = (double*)par_alloc((size_t)nw * 8 * sizeof(double)); /* a cache line each */
  double* x = (double*)malloc(2 * NK * sizeof(double));
  memset(x, 0, 2 * NK * sizeof(double));
  par_barrier();

  par_region_begin();
  double t0 = par_time();
  long long q[NQ] = {0};
  double sx = 0, sy = 0;
  for (long k = k0; k < k1; k++) {
    if (corrupt && id == nw - 1 && k == k0) continue; /* skip one batch once */
    batch(k, an, x, q, &sx, &sy);
  }
  double t1 = par_time();
  par_lock(0);
  for (int i = 0; i < NQ; i++) tot->q[i] += q[i];
  tot->sx += sx;
  tot->sy += sy;
  par_unlock(0);
  double t2 = par_time();
  par_barrier();
  par_region_end();

  times[id * 8 + 0] = t1 - t0;
  times[id * 8 + 1] = t2 - t1;
  par_barrier();

  int valid = 1;
  char extra[768];
  extra[0] = 0;
  if (id == 0) {
    double tcomp = 0, tmerge = 0;
    for (int w = 0; w < nw; w++) {
      if (times[w * 8] > tcomp) tcomp = times[w * 8];
      if (times[w * 8 + 1] > tmerge) tmerge = times[w * 8 + 1];
    }
    /* Sequential reference, NPB's order. */
    long long sq[NQ] = {0};
    double ssx = 0, ssy = 0;
    for (long k = 0; k < nbatch; k++) batch(k, an, x, sq, &ssx, &ssy);
    long long gc = 0;
    for (int i = 0; i < NQ; i++) {
      gc += tot->q[i];
      if (tot->q[i] != sq[i]) {
        valid = 0;
        fprintf(stderr, "ep: q[%d] = %lld, sequential %lld\n", i, tot->q[i], sq[i]);
      }
    }
    double esx = fabs((tot->sx - ssx) / ssx), esy = fabs((tot->sy - ssy) / ssy);
    if (!(esx <= EPSILON && esy <= EPSILON)) {
      valid = 0;
      fprintf(stderr, "ep: sx %.15e sy %.15e, sequential %.15e %.15e\n", tot->sx, tot->sy, ssx, ssy);
    }
    /* NPB's reference values. */
    double vx = 0, vy = 0;
    int known = 1;
    switch (m) {
      case 24: vx = -3.247834652034740e+3; vy = -6.958407078382297e+3; break;
      case 25: vx = -2.863319731645753e+3; vy = -6.320053679109499e+3; break;
      case 28: vx = -4.295875165629892e+3; vy = -1.580732573678431e+4; break;
      case 30: vx = 4.033815542441498e+4; vy = -2.660669192809235e+4; break;
      case 32: vx = 4.764367927995374e+4; vy = -8.084072988043731e+4; break;
      case 36: vx = 1.982481200946593e+5; vy = -1.020596636361769e+5; break;
      default: known = 0;
    }
    if (known) {
      double ex = fabs((tot->sx - vx) / vx), ey = fabs((tot->sy - vy) / vy);
      if (!(ex <= EPSILON && ey <= EPSILON)) {
        valid = 0;
        fprintf(stderr, "ep: sx %.15e sy %.15e, NPB reference %.15e %.15e (rel err %.2e %.2e)\n", tot->sx, tot->sy,
                vx, vy, ex, ey);
      }
    }
    int n = snprintf(extra, sizeof extra,
                     "\"log2pairs\": %d, \"pairs\": %ld, \"gaussian_counts\": [", m, 1L << m);
    for (int i = 0; i < NQ; i++) n += snprintf(extra + n, sizeof extra - (size_t)n, "%s%lld", i ? ", " : "", tot->q[i]);
    snprintf(extra + n, sizeof extra - (size_t)n,
             "], \"gaussian_pairs\": %lld, \"sx\": %.15e, \"sy\": %.15e, \"validated_against\": \"%s\", "
             "\"compute_time\": %.6f, \"merge_time\": %.6f",
             gc, tot->sx, tot->sy, known ? "npb_reference+sequential" : "sequential", tcomp, tmerge);
  }
  par_report("ep", valid, extra);
  free(x);
  par_free(times);
  par_free(tot);
  return 0;
}

int main(int argc, char** argv) { return par_main(argc, argv, worker); }
