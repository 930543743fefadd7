/* A rank that reads pages by MPI_Get from a home whose cores are all taken,
 * or whose reads came slowly in the last 5 ms, tells the home so (src/transport/transport.cpp, tell_reading; src/spin.hpp,
 * idle_read_until), at most once every 0.5 ms: a home that gets the word
 * while it waits polls instead of napping for a while, since its MPI
 * progresses a get only inside its next call.  Rank 0 homes P pages and waits in a barrier while every other rank
 * reads them all, a fault a page (LOOM_UNIT_PAGES=1, LOOM_STRIDE=0).  Checked: the data;
 * the statistics' reads_told as the environment expects (EXPECT_READS_TOLD:
 * "some" where the pages come by MPI_Get and rank 0's cores are taken,
 * "none" where they do not or the pages come otherwise) from the ranks that
 * do not map rank 0's memory, none from those that do (rank 0's host, with
 * LOOM_LOCAL_MAP unset or 1: the test's hosts are told apart by their host
 * names, as scripts/cluster.sh sets them); never more than
 * one message for each 0.5 ms of reading, and none from the home, which
 * reads nothing of others.  Then rank 0 and the last rank (on another
 * host at 2 hosts x 2) read each other's pages at once (Q each): each is
 * inside its gets nearly all the time, where no thread of it takes a word,
 * so the words must stay bounded by what their home has taken (with MPICH
 * over libfabric's tcp provider, some 60 messages waiting unmatched at a rank
 * stop the gets on that connection: under rma this part hung with a word
 * sent every 0.5 ms regardless).  Last, rank 0 computes (no Loom or MPI
 * call) for 0.3 s while the others read R pages of it, 1 ms apart: its
 * protocol thread naps up to 0.5 ms there, so some reads come slowly and
 * a reader by MPI_Get tells it ("some" or "slow"; none by requests).
 * EXPECT_READS_TOLD=slow: the cores are not taken, so the first part's
 * reads tell only where they came slowly (bounded as above, not zero:
 * a loaded machine slows some). */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mr.h"

enum { P = 512, Q = 2048, R = 64 };

static double mono(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank();
  const char* expect = getenv("EXPECT_READS_TOLD");
  CHECK(expect && (!strcmp(expect, "some") || !strcmp(expect, "none") || !strcmp(expect, "slow")));
  const int some = expect && !strcmp(expect, "some"), slow = expect && !strcmp(expect, "slow");
  CHECK(loom_nranks() >= 2);
  char host[256] = "", host0[256] = "";
  gethostname(host, sizeof host - 1);
  if (r == 0) memcpy(host0, host, sizeof host0);
  MPI_Bcast(host0, sizeof host0, MPI_CHAR, 0, MPI_COMM_WORLD);
  const char* lm = getenv("LOOM_LOCAL_MAP");
  const int maps0 = !strcmp(host, host0) && !(lm && !strcmp(lm, "0"));
  uint64_t* a = NULL;
  CHECK_OK(loom_alloc_collective_at((size_t)P * 4096, 0, (void**)&a));
  if (r == 0)
    for (int p = 0; p < P; p++) a[p * 512] = 77 + (uint64_t)p;
  CHECK_OK(loom_barrier());
  loom_stats_t s0, s1;
  CHECK_OK(loom_stats_get(&s0));
  double took = 0;
  if (r != 0) {
    const double t0 = mono();
    uint64_t sum = 0;
    for (int p = 0; p < P; p++) sum += a[p * 512];
    took = mono() - t0;
    CHECK(sum == 77ull * P + (uint64_t)P * (P - 1) / 2);
  }
  CHECK_OK(loom_stats_get(&s1));
  CHECK_OK(loom_barrier());
  const uint64_t told = s1.reads_told - s0.reads_told;
  if (r == 0) {
    CHECK(told == 0);
  } else {
    CHECK(s1.read_faults - s0.read_faults == P);
    if (some && !maps0) CHECK(told >= 1);
    else if (!slow || maps0) CHECK(told == 0);
    CHECK(told <= 1 + (uint64_t)(took / 0.0005));
  }
  const int last = loom_nranks() - 1;
  uint64_t *b0 = NULL, *b1 = NULL;
  CHECK_OK(loom_alloc_collective_at((size_t)Q * 4096, 0, (void**)&b0));
  CHECK_OK(loom_alloc_collective_at((size_t)Q * 4096, last, (void**)&b1));
  if (r == 0 || r == last) {
    uint64_t* mine = r == 0 ? b0 : b1;
    for (int p = 0; p < Q; p++) mine[p * 512] = (uint64_t)(5 + 4 * (r == last) + p);
  }
  CHECK_OK(loom_barrier());
  if (r == 0 || r == last) {
    const uint64_t* other = r == 0 ? b1 : b0;
    uint64_t sum = 0;
    for (int p = 0; p < Q; p++) sum += other[p * 512];
    CHECK(sum == (uint64_t)(5 + 4 * (r == 0)) * Q + (uint64_t)Q * (Q - 1) / 2);
  }
  CHECK_OK(loom_barrier());
  uint64_t* c = NULL;
  CHECK_OK(loom_alloc_collective_at((size_t)R * 4096, 0, (void**)&c));
  if (r == 0)
    for (int p = 0; p < R; p++) c[p * 512] = 3 + (uint64_t)p;
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_stats_get(&s0));
  if (r == 0) {
    const double until = mono() + 0.3;
    while (mono() < until) {
    }
  } else {
    uint64_t sum = 0;
    for (int p = 0; p < R; p++) {
      const double next = mono() + 0.001;
      sum += c[p * 512];
      while (mono() < next) {
      }
    }
    CHECK(sum == 3ull * R + (uint64_t)R * (R - 1) / 2);
  }
  CHECK_OK(loom_stats_get(&s1));
  CHECK_OK(loom_barrier());
  const uint64_t told3 = s1.reads_told - s0.reads_told;
  if (r == 0 || maps0 || !(some || slow)) CHECK(told3 == 0);
  else CHECK(told3 >= 1);
  return mr_finish("reads_told");
}
