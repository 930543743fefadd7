// Locks: counters under one lock end exact (W workers x K increments), many
// independent locks keep their own counters exact, a lock-protected log holds
// every append exactly once, and a producer/consumer queue through a lock
// delivers every item exactly once.
//
// mr_locks T runs T threads per rank: the workers are ranks x threads
// (worker rank*T + t), and a Loom lock must order the threads of one rank as
// it orders ranks.
#include <cstdint>
#include <vector>

#include "mr.h"

static void locks(int w, int W) {
  const int n = loom_nranks();
  const int K = 300;

  // 1. One counter, homed on the last rank, so most increments are remote.
  uint64_t* c = (uint64_t*)mr_walloc(4096, n - 1);
  for (int k = 0; k < K; k++) {
    CHECK_OK(loom_lock(3));
    c[0] = c[0] + 1;
    CHECK_OK(loom_unlock(3));
  }
  mr_wbar();
  CHECK(c[0] == (uint64_t)W * K);

  // 2. Eight locks guard eight counters on eight pages.
  uint64_t* cs = (uint64_t*)mr_walloc(8 * 4096, -1);
  for (int k = 0; k < K; k++) {
    int j = (w + k) % 8;
    CHECK_OK(loom_lock(100 + j));
    cs[j * 512] += 1;
    CHECK_OK(loom_unlock(100 + j));
  }
  mr_wbar();
  uint64_t total = 0;
  for (int j = 0; j < 8; j++) total += cs[j * 512];
  CHECK(total == (uint64_t)W * K);
  // Each counter got exactly the increments aimed at it.
  for (int j = 0; j < 8; j++) {
    uint64_t want = 0;
    for (int q = 0; q < W; q++)
      for (int k = 0; k < K; k++) want += ((q + k) % 8 == j);
    CHECK(cs[j * 512] == want);
  }

  // 3. A log across several pages: entry = worker << 32 | seq.
  const int L = 100;
  uint64_t* log = (uint64_t*)mr_walloc((size_t)(1 + W * L) * 8, -1);
  for (int k = 0; k < L; k++) {
    CHECK_OK(loom_lock(7));
    uint64_t len = log[0];
    log[1 + len] = ((uint64_t)w << 32) | (uint64_t)k;
    log[0] = len + 1;
    CHECK_OK(loom_unlock(7));
  }
  mr_wbar();
  CHECK(log[0] == (uint64_t)W * L);
  std::vector<int> seen((size_t)W * L, 0);
  std::vector<int> last(W, -1);
  bool order_ok = true;
  for (uint64_t i = 0; i < log[0] && i < (uint64_t)W * L; i++) {
    uint64_t e = log[1 + i];
    uint64_t q = e >> 32, k = e & 0xffffffffu;
    if (q < (uint64_t)W && k < (uint64_t)L) {
      seen[q * L + k]++;
      if ((int)k <= last[q]) order_ok = false;  // each worker's own appends stay in order
      last[q] = (int)k;
    }
  }
  int once = 0;
  for (int v : seen) once += v == 1;
  CHECK(once == W * L);
  CHECK(order_ok);

  // 4. Producer/consumer: worker 0 produces P items into a ring under lock 9;
  // the other workers consume until all are taken.  Each worker leaves its
  // count and sum in Loom memory.
  const uint64_t P = 400, Q = 16;
  // q[0] head (next to take), q[1] tail (next to put), q[2..] ring; then
  // (count, sum) per worker on the next page.
  uint64_t* q = (uint64_t*)mr_walloc(4096 + (size_t)W * 16, -1);
  uint64_t* res = q + 512;
  uint64_t got = 0, sum = 0;
  if (W == 1 || w == 0) {
    for (uint64_t i = 0; i < P;) {
      CHECK_OK(loom_lock(9));
      if (q[1] - q[0] < Q) {
        q[2 + q[1] % Q] = i + 1;
        q[1] = q[1] + 1;
        i++;
      }
      CHECK_OK(loom_unlock(9));
      if (W == 1) {  // consume our own
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
  res[2 * w] = got;
  res[2 * w + 1] = sum;
  mr_wbar();
  uint64_t all_got = 0, all_sum = 0;
  for (int v = 0; v < W; v++) all_got += res[2 * v], all_sum += res[2 * v + 1];
  CHECK(all_got == P);
  CHECK(all_sum == P * (P + 1) / 2);
  mr_wfree(q);
  mr_wfree(log);
  mr_wfree(cs);
  mr_wfree(c);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), locks);
  return mr_finish("mr_locks");
}
