/* Atomics on 32-bit words, floats and doubles (loom_atomic_*_u32, _f32,
 * _f64): under contention from every rank, fetch-and-add and CAS-loop
 * increments are exact for each type; 32-bit words that share a 64-bit word
 * (and a float next to a 32-bit counter) lose no update; exchange passes
 * values without loss; load/store see each other; plain loads after a
 * barrier see the atomic updates; misaligned and non-Loom addresses fail
 * with the status naming the cause.
 *
 * mr_atomics_typed T runs T threads per rank: the workers are ranks x
 * threads (worker rank*T + t), and threads of one rank race on the same
 * words as the other ranks do.  Workers hand each other their results
 * (tickets, exchanged values) through Loom memory. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mr.h"

enum { K = 150 };

static void typed(int r, int n) {
  uint8_t* blk = (uint8_t*)mr_walloc(4 * 4096, -1);
  /* What workers leave for each other: K u32 tickets and K f64 old values
   * each, then one exchanged u32, f32 and f64 each. */
  uint32_t* all = (uint32_t*)mr_walloc((size_t)n * K * 4, -1);
  double* dall = (double*)mr_walloc((size_t)n * K * 8, -1);
  uint8_t* xs = (uint8_t*)mr_walloc((size_t)n * 16 + 4096, -1);
  uint32_t* outs = (uint32_t*)xs;
  float* fouts = (float*)(xs + (size_t)n * 4);
  double* dxs = (double*)(xs + (size_t)n * 8);
  uint32_t* u = (uint32_t*)blk;              /* page 0: 32-bit words */
  float* f = (float*)(blk + 4096);           /* page 1: floats (and a counter beside) */
  double* d = (double*)(blk + 2 * 4096);     /* page 2: doubles */

  /* fetch_add on two 32-bit halves of one 64-bit word, from every rank at
   * once: each half exact, and the tickets of u[0] distinct. */
  for (int k = 0; k < K; k++) {
    CHECK_OK(loom_atomic_fetch_add_u32(&u[0], 1, &all[(size_t)r * K + k]));
    CHECK_OK(loom_atomic_fetch_add_u32(&u[1], 2, NULL));
  }
  mr_wbar();
  char* seen = calloc((size_t)n * K, 1);
  int dup = 0;
  for (int i = 0; i < n * K; i++) {
    if (all[i] >= (uint32_t)n * K || seen[all[i]]) dup++;
    else seen[all[i]] = 1;
  }
  CHECK(dup == 0);
  CHECK(u[0] == (uint32_t)(n * K));
  CHECK(u[1] == (uint32_t)(2 * n * K));

  /* CAS-loop increments on a 32-bit word whose neighbour takes fetch_adds. */
  for (int k = 0; k < K; k++) {
    uint32_t cur = 0, old = 0;
    CHECK_OK(loom_atomic_load_u32(&u[16], &cur));
    for (;;) {
      CHECK_OK(loom_atomic_cas_u32(&u[16], cur, cur + 1, &old));
      if (old == cur) break;
      cur = old;
    }
    CHECK_OK(loom_atomic_fetch_add_u32(&u[17], 1, NULL));
  }
  /* Wrap-around: adds are modulo 2^32. */
  if (r == 0) {
    CHECK_OK(loom_atomic_store_u32(&u[32], 0xfffffffeu));
    uint32_t old = 0;
    CHECK_OK(loom_atomic_fetch_add_u32(&u[32], 3, &old));
    CHECK(old == 0xfffffffeu);
  }
  mr_wbar();
  CHECK(u[16] == (uint32_t)(n * K));
  CHECK(u[17] == (uint32_t)(n * K));
  CHECK(u[32] == 1u);
  CHECK(u[33] == 0u); /* the neighbour of the wrapped word is untouched */

  /* Exchange on 32-bit words: the values out plus the last in are 0..n. */
  CHECK_OK(loom_atomic_exchange_u32(&u[64], (uint32_t)r + 1, &outs[r]));
  mr_wbar();
  uint32_t fin = 0;
  CHECK_OK(loom_atomic_load_u32(&u[64], &fin));
  uint64_t sum = fin;
  for (int i = 0; i < n; i++) sum += outs[i];
  CHECK(sum == (uint64_t)n * (n + 1) / 2);

  /* Floats: adds of 1.0 and 0.5 are exact in binary (the sums stay far
   * below 2^24), so the result is exact whatever the order.  f[1] is a
   * 32-bit counter in the same 64-bit word as f[0]. */
  for (int k = 0; k < K; k++) {
    CHECK_OK(loom_atomic_fetch_add_f32(&f[0], 1.0f, NULL));
    CHECK_OK(loom_atomic_fetch_add_u32((uint32_t*)&f[1], 1, NULL));
    CHECK_OK(loom_atomic_fetch_add_f32(&f[2], 0.5f, NULL));
  }
  /* CAS-loop doubling of a float by rank order is not needed: a CAS loop
   * adding 2.0 checks the float CAS compares what it loaded. */
  for (int k = 0; k < K; k++) {
    float cur = 0, old = 0;
    CHECK_OK(loom_atomic_load_f32(&f[8], &cur));
    for (;;) {
      CHECK_OK(loom_atomic_cas_f32(&f[8], cur, cur + 2.0f, &old));
      if (memcmp(&old, &cur, sizeof old) == 0) break;
      cur = old;
    }
  }
  CHECK_OK(loom_atomic_exchange_f32(&f[16], (float)(r + 1), &fouts[r]));
  mr_wbar();
  CHECK(f[0] == (float)(n * K));
  uint32_t f1 = 0;
  memcpy(&f1, &f[1], 4);
  CHECK(f1 == (uint32_t)(n * K));
  CHECK(f[2] == 0.5f * (float)(n * K));
  CHECK(f[8] == 2.0f * (float)(n * K));
  float ffin = 0;
  CHECK_OK(loom_atomic_load_f32(&f[16], &ffin));
  double fsum = ffin;
  for (int i = 0; i < n; i++) fsum += fouts[i];
  CHECK(fsum == (double)n * (n + 1) / 2);

  /* Doubles, the same shapes. */
  for (int k = 0; k < K; k++) {
    CHECK_OK(loom_atomic_fetch_add_f64(&d[0], 1.0, &dall[(size_t)r * K + k]));
    CHECK_OK(loom_atomic_fetch_add_f64(&d[1], 0.25, NULL));
  }
  /* The old values of d[0] are distinct integers 0..nK-1 (tickets). */
  mr_wbar();
  memset(seen, 0, (size_t)n * K);
  dup = 0;
  for (int i = 0; i < n * K; i++) {
    long t = (long)dall[i];
    if ((double)t != dall[i] || t < 0 || t >= (long)n * K || seen[t]) dup++;
    else seen[t] = 1;
  }
  CHECK(dup == 0);
  for (int k = 0; k < K; k++) {
    double cur = 0, old = 0;
    CHECK_OK(loom_atomic_load_f64(&d[8], &cur));
    for (;;) {
      CHECK_OK(loom_atomic_cas_f64(&d[8], cur, cur + 3.0, &old));
      if (memcmp(&old, &cur, sizeof old) == 0) break;
      cur = old;
    }
  }
  CHECK_OK(loom_atomic_exchange_f64(&d[16], (double)(r + 1), &dxs[r]));
  mr_wbar();
  CHECK(d[0] == (double)(n * K));
  CHECK(d[1] == 0.25 * (double)(n * K));
  CHECK(d[8] == 3.0 * (double)(n * K));
  double dfin = 0;
  CHECK_OK(loom_atomic_load_f64(&d[16], &dfin));
  double dsum = dfin;
  for (int i = 0; i < n; i++) dsum += dxs[i];
  CHECK(dsum == (double)n * (n + 1) / 2);

  /* Store then load across ranks (each type), and plain writes seen by a
   * later atomic load after a barrier. */
  if (r == n - 1) {
    CHECK_OK(loom_atomic_store_u32(&u[100], 0xabcd1234u));
    CHECK_OK(loom_atomic_store_f32(&f[100], -1.5f));
    CHECK_OK(loom_atomic_store_f64(&d[100], 6.25e300));
    u[200] = 77;
  }
  mr_wbar();
  uint32_t lu = 0;
  float lf = 0;
  double ld = 0;
  CHECK_OK(loom_atomic_load_u32(&u[100], &lu));
  CHECK_OK(loom_atomic_load_f32(&f[100], &lf));
  CHECK_OK(loom_atomic_load_f64(&d[100], &ld));
  CHECK(lu == 0xabcd1234u && lf == -1.5f && ld == 6.25e300);
  CHECK_OK(loom_atomic_load_u32(&u[200], &lu));
  CHECK(lu == 77);
  CHECK(u[100] == 0xabcd1234u && f[100] == -1.5f && d[100] == 6.25e300);

  /* A float's CAS compares bits: -0.0 does not match 0.0. */
  mr_wbar();
  if (r == 0) {
    float z = 0;
    CHECK_OK(loom_atomic_store_f32(&f[300], 0.0f));
    CHECK_OK(loom_atomic_cas_f32(&f[300], -0.0f, 5.0f, &z));
    CHECK(z == 0.0f);
    CHECK(f[300] == 0.0f);
  }

  /* Errors: misaligned words, non-Loom memory, NULL value. */
  uint32_t local32 = 0;
  double locald = 0;
  CHECK_ERR(loom_atomic_fetch_add_u32((uint32_t*)(blk + 2), 1, NULL), LOOM_ERR_INVALID);
  CHECK_ERR(loom_atomic_fetch_add_f32((float*)(blk + 4096 + 1), 1.0f, NULL), LOOM_ERR_INVALID);
  CHECK_ERR(loom_atomic_fetch_add_f64((double*)(blk + 2 * 4096 + 4), 1.0, NULL), LOOM_ERR_INVALID);
  CHECK_ERR(loom_atomic_cas_u32(&local32, 0, 1, NULL), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_atomic_store_f64(&locald, 1.0), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_atomic_load_u32(&u[0], NULL), LOOM_ERR_INVALID);
  CHECK_ERR(loom_atomic_load_f64(&d[0], NULL), LOOM_ERR_INVALID);

  free(seen);
  mr_wfree(xs);
  mr_wfree(dall);
  mr_wfree(all);
  mr_wfree(blk);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), typed);
  return mr_finish("mr_atomics_typed");
}
