/* Atomics on 64-bit words of Loom memory: fetch-and-add hands out every
 * ticket exactly once, compare-and-swap increments are exact, exchange
 * passes values without loss, load/store see each other, and ordinary loads
 * after a barrier see atomic updates (coherence with plain accesses), also
 * on a page the rank has cached and written plainly.
 *
 * mr_atomics T runs T threads per rank: the workers are ranks x threads
 * (worker rank*T + t); threads of one rank race on the same words.
 * MR_ATOMICS_K sets the operations per worker and loop (200): a trace test
 * runs more atomics between two barriers than the trace buffers hold. */
#include <stdint.h>
#include <stdlib.h>

#include "mr.h"

static int K = 200;

static void atomics(int w, int W) {
  uint64_t* a = (uint64_t*)mr_walloc(4 * 4096, -1);
  /* Results every worker leaves for the others: K tickets each, then one
   * exchanged value each. */
  uint64_t* tickets = (uint64_t*)mr_walloc((size_t)W * K * 8, -1);
  uint64_t* outs = (uint64_t*)mr_walloc((size_t)W * 8, -1);

  /* Tickets from fetch-and-add are distinct and cover 0..WK-1. */
  for (int k = 0; k < K; k++) CHECK_OK(loom_atomic_fetch_add(&a[0], 1, &tickets[(size_t)w * K + k]));
  mr_wbar();
  char* seen = calloc((size_t)W * K, 1);
  int dup = 0;
  for (int i = 0; i < W * K; i++) {
    if (tickets[i] >= (uint64_t)W * K || seen[tickets[i]]) dup++;
    else seen[tickets[i]] = 1;
  }
  free(seen);
  CHECK(dup == 0);
  CHECK(a[0] == (uint64_t)W * K); /* plain load after the barrier */

  /* CAS loop increments. */
  for (int k = 0; k < K; k++) {
    uint64_t cur = 0, old = 0;
    CHECK_OK(loom_atomic_load(&a[512], &cur));
    for (;;) {
      CHECK_OK(loom_atomic_cas(&a[512], cur, cur + 1, &old));
      if (old == cur) break;
      cur = old;
    }
  }
  mr_wbar();
  CHECK(a[512] == (uint64_t)W * K);

  /* Exchange: every worker swaps in (w+1); the values that come out plus
   * the final one are exactly {0, 1..W}. */
  CHECK_OK(loom_atomic_exchange(&a[1024], (uint64_t)w + 1, &outs[w]));
  mr_wbar();
  uint64_t fin = 0;
  CHECK_OK(loom_atomic_load(&a[1024], &fin));
  uint64_t sum = fin;
  for (int i = 0; i < W; i++) sum += outs[i];
  CHECK(sum == (uint64_t)W * (W + 1) / 2);
  CHECK(a[1024] == fin);

  /* Store then load across workers. */
  if (w == 0) CHECK_OK(loom_atomic_store(&a[1536], 0xabcdef));
  mr_wbar();
  uint64_t v = 0;
  CHECK_OK(loom_atomic_load(&a[1536], &v));
  CHECK(v == 0xabcdef);
  CHECK(a[1536] == 0xabcdef);

  /* A plain write and an atomic on the same page, same interval: both land. */
  mr_wbar();
  a[1536 + 1 + w] = 77 + (uint64_t)w;            /* plain, own word */
  CHECK_OK(loom_atomic_fetch_add(&a[1536], 1, NULL)); /* atomic, shared word */
  CHECK(a[1536 + 1 + w] == 77 + (uint64_t)w);    /* own write still visible */
  mr_wbar();
  CHECK(a[1536] == 0xabcdef + (uint64_t)W);
  int bad = 0;
  for (int q = 0; q < W; q++) bad += a[1536 + 1 + q] != 77 + (uint64_t)q;
  CHECK(bad == 0);
  mr_wfree(outs);
  mr_wfree(tickets);
  mr_wfree(a);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const char* k = getenv("MR_ATOMICS_K");
  if (k && atoi(k) > 0) K = atoi(k);
  mr_workers(mr_threads_arg(argc, argv), atomics);
  return mr_finish("mr_atomics");
}
