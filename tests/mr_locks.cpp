// Locks: counters under one lock end exact (N ranks x K increments), many
// independent locks keep their own counters exact, a lock-protected log holds
// every append exactly once, and a producer/consumer queue through a lock
// delivers every item exactly once.
#include <cstdint>
#include <vector>

#include "mr.h"

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();
  const int K = 300;

  // 1. One counter, homed on the last rank, so most increments are remote.
  uint64_t* c = nullptr;
  CHECK_OK(loom_alloc_collective_at(4096, n - 1, (void**)&c));
  for (int k = 0; k < K; k++) {
    CHECK_OK(loom_lock(3));
    c[0] = c[0] + 1;
    CHECK_OK(loom_unlock(3));
  }
  CHECK_OK(loom_barrier());
  CHECK(c[0] == (uint64_t)n * K);

  // 2. Eight locks guard eight counters on eight pages.
  uint64_t* cs = nullptr;
  CHECK_OK(loom_alloc_collective(8 * 4096, (void**)&cs));
  for (int k = 0; k < K; k++) {
    int j = (r + k) % 8;
    CHECK_OK(loom_lock(100 + j));
    cs[j * 512] += 1;
    CHECK_OK(loom_unlock(100 + j));
  }
  CHECK_OK(loom_barrier());
  uint64_t total = 0;
  for (int j = 0; j < 8; j++) total += cs[j * 512];
  CHECK(total == (uint64_t)n * K);
  // Each counter got exactly the increments aimed at it.
  for (int j = 0; j < 8; j++) {
    uint64_t want = 0;
    for (int q = 0; q < n; q++)
      for (int k = 0; k < K; k++) want += ((q + k) % 8 == j);
    CHECK(cs[j * 512] == want);
  }

  // 3. A log across several pages: entry = rank << 32 | seq.
  const int L = 100;
  uint64_t* log = nullptr;
  CHECK_OK(loom_alloc_collective((size_t)(1 + n * L) * 8, (void**)&log));
  for (int k = 0; k < L; k++) {
    CHECK_OK(loom_lock(7));
    uint64_t len = log[0];
    log[1 + len] = ((uint64_t)r << 32) | (uint64_t)k;
    log[0] = len + 1;
    CHECK_OK(loom_unlock(7));
  }
  CHECK_OK(loom_barrier());
  CHECK(log[0] == (uint64_t)n * L);
  std::vector<int> seen((size_t)n * L, 0);
  std::vector<int> last(n, -1);
  bool order_ok = true;
  for (uint64_t i = 0; i < log[0] && i < (uint64_t)n * L; i++) {
    uint64_t e = log[1 + i];
    uint64_t q = e >> 32, k = e & 0xffffffffu;
    if (q < (uint64_t)n && k < (uint64_t)L) {
      seen[q * L + k]++;
      if ((int)k <= last[q]) order_ok = false;  // each rank's own appends stay in order
      last[q] = (int)k;
    }
  }
  int once = 0;
  for (int v : seen) once += v == 1;
  CHECK(once == n * L);
  CHECK(order_ok);

  // 4. Producer/consumer: rank 0 produces P items into a ring under lock 9;
  // the other ranks consume until all are taken.
  const uint64_t P = 400, Q = 16;
  uint64_t* q = nullptr;  // q[0] head (next to take), q[1] tail (next to put), q[2..] ring
  CHECK_OK(loom_alloc_collective((2 + Q) * 8, (void**)&q));
  uint64_t got = 0, sum = 0;
  if (n == 1 || r == 0) {
    for (uint64_t i = 0; i < P;) {
      CHECK_OK(loom_lock(9));
      if (q[1] - q[0] < Q) {
        q[2 + q[1] % Q] = i + 1;
        q[1] = q[1] + 1;
        i++;
      }
      CHECK_OK(loom_unlock(9));
      if (n == 1) {  // consume our own
        CHECK_OK(loom_lock(9));
        while (q[0] < q[1]) sum += q[2 + q[0]++ % Q], got++;
        CHECK_OK(loom_unlock(9));
      }
    }
  } else {
    for (bool done = false; !done;) {
      CHECK_OK(loom_lock(9));
      if (q[0] < q[1]) {
        sum += q[2 + q[0] % Q];
        q[0] = q[0] + 1;
        got++;
      }
      done = q[0] == P;
      CHECK_OK(loom_unlock(9));
    }
  }
  uint64_t mine[2] = {got, sum}, all[2];
  MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(all[0] == P);
  CHECK(all[1] == P * (P + 1) / 2);
  return mr_finish("mr_locks");
}
