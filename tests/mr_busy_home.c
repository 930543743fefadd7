/* No page fetch, diff, lock or atomic ever waits for the home rank to call
 * into MPI or Loom: rank 0 homes 256 pages and a lock, then computes for a
 * second without calling anything; meanwhile every other rank reads all the
 * pages, writes them (diffs into rank 0's memory at its release), takes and
 * releases the lock hosted on rank 0, and does an atomic on a word homed at
 * rank 0.  All of that must finish before rank 0's computation ends (same
 * host, so CLOCK_MONOTONIC is one clock).  Then the written data must be at
 * the home.  Rank 0 stops computing early once every other worker has
 * counted itself done (an atomic add on a word rank 0 homes, read by rank 0
 * as plain memory: it must take no fault while it computes, checked by its
 * fault counts), so a run that makes progress lasts what its work takes;
 * one that does not runs into the budget and fails.
 *
 * mr_busy_home T runs T threads per rank: every thread of rank 0 computes
 * (none calls Loom or MPI); every thread of the other ranks reads all the
 * pages (siblings fault on the same pages), takes the lock (siblings queue
 * for it too), writes its own word of every page under it and does the
 * atomic; each must be done before the last of rank 0's threads stops
 * computing.  Every thread then checks every worker's words and the
 * atomic's total.  Thread 0 makes the MPI call that compares the times. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mr.h"

static double mono(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

enum { P = 256, kMaxThreads = 64 };
static double g_end[kMaxThreads]; /* each thread's end of computing (rank 0) */
static double g_te;               /* the last of rank 0's threads' ends, from thread 0 */

static void body(int w, int W) {
  const int r = loom_rank(), n = loom_nranks();
  const int t = mr_t, T = mr_T;
  CHECK(8 + W <= 512); /* worker w writes word 8 + w of every page */
  uint64_t* a = (uint64_t*)mr_walloc((size_t)P * 4096, 0);
  if (r == 0)
    for (int p = t; p < P; p += T) a[p * 512] = 1000 + (uint64_t)p;
  mr_wbar();

  double t_done = 0;
  volatile double x = 1.0;
  g_end[t] = 0;
  if (r == 0) {
    loom_stats_t before, after;
    CHECK_OK(loom_thread_stats_get(&before));
    /* word 2 of page 0: the other workers' count of themselves done */
    const volatile uint64_t* done = (const volatile uint64_t*)&a[2];
    const uint64_t all = (uint64_t)(W - T);
    double t0 = mono();
    /* Seconds, no MPI and no Loom call inside.  With the async transport the
     * home's protocol thread shares the 2 cores with every rank's computing
     * or waiting thread, so the same work gets a longer budget: the test is
     * about progress, not speed.  With T threads per rank there are T times
     * as many of those threads, and T times as many lock holders each
     * writing every page: T times the budget. */
    const char* tr = getenv("LOOM_TRANSPORT");
    const double busy = n == 1 ? 0 : (tr && !strcmp(tr, "async") ? 4.0 : 1.5) * T; /* (alone: nobody to wait for) */
    while (mono() - t0 < busy && *done < all)
      for (int i = 0; i < 10000; i++) x = x * 1.0000001 + 1e-9;
    g_end[t] = mono();
    CHECK_OK(loom_thread_stats_get(&after));
    /* a fault would have called into Loom while computing */
    CHECK(after.read_faults == before.read_faults && after.write_faults == before.write_faults);
  } else {
    uint64_t sum = 0;
    for (int p = 0; p < P; p++) sum += a[p * 512]; /* fetches from the busy home */
    CHECK(sum == (uint64_t)P * 1000 + (uint64_t)P * (P - 1) / 2);
    /* Disjoint writes (diffs go into rank 0's memory at the unlock). */
    CHECK_OK(loom_lock(0)); /* lock 0's queue tail lives on rank 0 */
    for (int p = 0; p < P; p++) a[p * 512 + 8 + w] = (uint64_t)w * 7 + (uint64_t)p;
    CHECK_OK(loom_unlock(0));
    CHECK_OK(loom_atomic_fetch_add(&a[1], 5, NULL));
    t_done = mono();
    CHECK_OK(loom_atomic_fetch_add(&a[2], 1, NULL)); /* done: the home may stop computing */
  }
  mr_rbar(); /* every thread's end is in g_end */
  if (t == 0) {
    double t_end = 0, te = 0;
    for (int u = 0; u < T; u++) t_end = g_end[u] > t_end ? g_end[u] : t_end;
    MPI_Allreduce(&t_end, &te, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    g_te = te;
  }
  mr_rbar();
  const double te = g_te;
  if (r != 0) {
    CHECK(t_done < te);
    if (!(t_done < te))
      fprintf(stderr, "rank %d thread %d finished %.3f s after the home stopped computing\n", r, t, t_done - te);
    if (getenv("MR_BUSY_VERBOSE")) fprintf(stderr, "rank %d thread %d: done %.3f s before the home's end\n", r, t, te - t_done);
  }
  mr_wbar();
  int bad = 0;
  for (int q = T; q < W; q++) /* every worker of ranks 1.. */
    for (int p = 0; p < P; p++) bad += a[p * 512 + 8 + q] != (uint64_t)q * 7 + (uint64_t)p;
  CHECK(bad == 0);
  if (bad) fprintf(stderr, "rank %d thread %d: %d words missing at the home\n", r, t, bad);
  CHECK(a[1] == 5 * (uint64_t)(W - T));
  (void)x;
  mr_wfree(a);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), body);
  return mr_finish("mr_busy_home");
}
