/* Atomics on 64-bit words of Loom memory: fetch-and-add hands out every
 * ticket exactly once, compare-and-swap increments are exact, exchange
 * passes values without loss, load/store see each other, and ordinary loads
 * after a barrier see atomic updates (coherence with plain accesses), also
 * on a page the rank has cached and written plainly. */
#include <stdint.h>
#include <stdlib.h>

#include "mr.h"

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();
  const int K = 200;
  uint64_t* w = NULL;
  CHECK_OK(loom_alloc_collective(4 * 4096, (void**)&w));

  /* Tickets from fetch-and-add are distinct and cover 0..nK-1. */
  uint64_t* mine = malloc(sizeof(uint64_t) * K);
  uint64_t* all = malloc(sizeof(uint64_t) * K * n);
  for (int k = 0; k < K; k++) CHECK_OK(loom_atomic_fetch_add(&w[0], 1, &mine[k]));
  MPI_Allgather(mine, K, MPI_UINT64_T, all, K, MPI_UINT64_T, MPI_COMM_WORLD);
  char* seen = calloc((size_t)n * K, 1);
  int dup = 0;
  for (int i = 0; i < n * K; i++) {
    if (all[i] >= (uint64_t)n * K || seen[all[i]]) dup++;
    else seen[all[i]] = 1;
  }
  CHECK(dup == 0);
  CHECK_OK(loom_barrier());
  CHECK(w[0] == (uint64_t)n * K); /* plain load after the barrier */

  /* CAS loop increments. */
  for (int k = 0; k < K; k++) {
    uint64_t cur = 0, old = 0;
    CHECK_OK(loom_atomic_load(&w[512], &cur));
    for (;;) {
      CHECK_OK(loom_atomic_cas(&w[512], cur, cur + 1, &old));
      if (old == cur) break;
      cur = old;
    }
  }
  CHECK_OK(loom_barrier());
  CHECK(w[512] == (uint64_t)n * K);

  /* Exchange: every rank swaps in (r+1); the values that come out plus the
   * final one are exactly {0, 1..n}. */
  uint64_t out = 0;
  CHECK_OK(loom_atomic_exchange(&w[1024], (uint64_t)r + 1, &out));
  uint64_t* outs = malloc(sizeof(uint64_t) * n);
  MPI_Allgather(&out, 1, MPI_UINT64_T, outs, 1, MPI_UINT64_T, MPI_COMM_WORLD);
  CHECK_OK(loom_barrier());
  uint64_t fin = 0;
  CHECK_OK(loom_atomic_load(&w[1024], &fin));
  uint64_t sum = fin;
  for (int i = 0; i < n; i++) sum += outs[i];
  CHECK(sum == (uint64_t)n * (n + 1) / 2);
  CHECK(w[1024] == fin);

  /* Store then load across ranks. */
  if (r == 0) CHECK_OK(loom_atomic_store(&w[1536], 0xabcdef));
  CHECK_OK(loom_barrier());
  uint64_t v = 0;
  CHECK_OK(loom_atomic_load(&w[1536], &v));
  CHECK(v == 0xabcdef);
  CHECK(w[1536] == 0xabcdef);

  /* A plain write and an atomic on the same page, same interval: both land. */
  CHECK_OK(loom_barrier());
  w[1536 + 1 + r] = 77 + (uint64_t)r;           /* plain, own word */
  CHECK_OK(loom_atomic_fetch_add(&w[1536], 1, NULL)); /* atomic, shared word */
  CHECK(w[1536 + 1 + r] == 77 + (uint64_t)r);   /* own write still visible */
  CHECK_OK(loom_barrier());
  CHECK(w[1536] == 0xabcdef + (uint64_t)n);
  int bad = 0;
  for (int q = 0; q < n; q++) bad += w[1536 + 1 + q] != 77 + (uint64_t)q;
  CHECK(bad == 0);
  free(mine);
  free(all);
  free(seen);
  free(outs);
  return mr_finish("mr_atomics");
}
