/* mr_subset_push: the page push of loom_barrier_subset (protocol/core.cpp,
 * "a subset's push") between partners that read each other's block after
 * every pair barrier, with one partner of each pair taking some of those
 * barriers split (loom_barrier_arrive, then loom_barrier_wait) and, between
 * its two halves, waiting for an MPI message its partner sends only once it
 * has left the barrier.  A home that served its partner's push in such a
 * split barrier's wait would never get there: the partner would wait for
 * the pages forever.  The split barriers come three in a row, after
 * combined ones, so that asks sent at once to a partner that served last
 * time meet a partner that does not serve (taken unanswered later), and
 * the run ends on one (taken at loom_finalize).
 *
 * Pairs: rank r < n/2 with r + n/2 (2 hosts x 2: across the hosts); with an
 * odd count the last rank only takes the barriers of every rank.  Each
 * iteration: write the own block, pair barrier (split on the higher rank
 * every 7th to 7th+2 iteration), read the partner's block (every value
 * checked), a second pair barrier (the next writes after the reads).
 * A rank that does not map its partner, in a job of more than 2 ranks
 * (up to 4), must have had most of those pages pushed: the prefetch
 * statistics say so. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <loom/loom.h>

#define PAGES 4
#define PER ((PAGES * 4096) / (int)sizeof(double))
#define ITERS 61 /* the last one is split */

#define OK(call)                                                                             \
  do {                                                                                       \
    if ((call) != LOOM_OK) {                                                                 \
      fprintf(stderr, "mr_subset_push: %s failed: %s\n", #call, loom_last_error());          \
      MPI_Abort(MPI_COMM_WORLD, 2);                                                          \
    }                                                                                        \
  } while (0)

int main(int argc, char** argv) {
  OK(loom_init(&argc, &argv, NULL));
  const int me = loom_rank(), n = loom_nranks(), half = n / 2;
  const int partner = me < half ? me + half : me < 2 * half ? me - half : -1;
  double* a = NULL;
  OK(loom_alloc_collective((size_t)n * PER * sizeof(double), (void**)&a));
  double* mine = a + (size_t)me * PER;
  for (int i = 0; i < PER; i++) mine[i] = -1.0; /* first touch: each rank homes its block */
  OK(loom_barrier());
  OK(loom_stats_reset());
  long bad = 0;
  int splits = 0;
  for (int it = 0; it < ITERS && partner >= 0; it++) {
    for (int i = 0; i < PER; i++) mine[i] = me * 1000.0 + it + i * 1e-6;
    const int m[2] = {me < partner ? me : partner, me < partner ? partner : me};
    const int split = it % 7 >= 4;
    if (split && me > partner) {
      int token = -1;
      OK(loom_barrier_arrive(m, 2));
      MPI_Recv(&token, 1, MPI_INT, partner, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (token != it) bad++;
      OK(loom_barrier_wait());
      splits++;
    } else {
      OK(loom_barrier_subset(m, 2));
      if (split) MPI_Send(&it, 1, MPI_INT, partner, it, MPI_COMM_WORLD);
    }
    const double* theirs = a + (size_t)partner * PER;
    for (int i = 0; i < PER; i++)
      if (theirs[i] != partner * 1000.0 + it + i * 1e-6) {
        if (bad < 5)
          fprintf(stderr, "mr_subset_push: rank %d, iteration %d: word %d of rank %d's block is %.6f\n", me, it, i,
                  partner, theirs[i]);
        bad++;
      }
    OK(loom_barrier_subset(m, 2));
  }
  loom_stats_t st;
  OK(loom_stats_get(&st));
  /* A partner this rank does not map (another host, or LOOM_LOCAL_MAP=0),
   * in a pair that is not every rank: after a few iterations its pages are
   * hot, and the combined barriers push them. */
  char host[MPI_MAX_PROCESSOR_NAME] = "", hosts[4][MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(host, &len);
  int mapped = 1;
  if (n <= 4) {
    MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
    mapped = partner < 0 || (loom_direct_peers() > 0 && !strcmp(hosts[partner], host));
  }
  const int pushed_ok = mapped || n == 2 || st.prefetch_used >= (uint64_t)PAGES * 10;
  printf("mr_subset_push: rank %d, partner %d: %ld wrong, %d split barriers, %llu pages fetched, %llu prefetched, "
         "%llu read%s\n", me, partner, bad, splits, (unsigned long long)st.pages_fetched,
         (unsigned long long)st.prefetched, (unsigned long long)st.prefetch_used,
         pushed_ok ? "" : " (TOO FEW PUSHED)");
  long all_bad = 0;
  int all_ok = 0;
  MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&pushed_ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  OK(loom_barrier());
  OK(loom_free_collective(a));
  loom_finalize();
  if (me == 0) printf("mr_subset_push: %s\n", all_bad == 0 && all_ok ? "ok" : "FAILED");
  return all_bad == 0 && all_ok ? 0 : 1;
}
