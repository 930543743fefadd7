/* nas_random.h — the NAS Parallel Benchmarks' pseudorandom generator,
 * shared by the NAS programs.  randlc: x <- a*x mod 2^46, returning
 * x / 2^46, in exact integer arithmetic (NPB's double version is exact too,
 * so results match the NPB verification values bit for bit). */
#ifndef LOOM_APPS_NAS_RANDOM_H
#define LOOM_APPS_NAS_RANDOM_H
#include <stdint.h>

static inline double randlc(double* x, double a) {
  const uint64_t m23 = (1ULL << 23) - 1, m46 = (1ULL << 46) - 1;
  uint64_t xi = (uint64_t)*x, ai = (uint64_t)a;
  uint64_t a1 = ai >> 23, a2 = ai & m23, x1 = xi >> 23, x2 = xi & m23;
  uint64_t t1 = (a1 * x2 + a2 * x1) & m23;
  xi = ((t1 << 23) + a2 * x2) & m46;
  *x = (double)xi;
  return 0x1p-46 * (double)xi;
}
#endif
