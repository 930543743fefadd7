/* thread_locks: what a Loom lock costs the threads of one rank.  T threads
 * each take and give a Loom lock N times around an increment of a counter
 * in Loom memory: each thread its own lock and counter (distinct), or all
 * one lock and one counter (shared).  Prints the time per lock+unlock pair,
 * per thread and for the rank, and checks the counters (a lost increment
 * is a lock that did not exclude) and the rank's lock count in
 * loom_stats_get.  Exit status 1 on a failed check.
 *
 *   mpiexec -n 1 build/bench/thread_locks T [N] [shared 0|1]
 *
 * With more than one rank every rank runs the same (the locks are then
 * also taken by the other ranks' threads; the counters are checked on
 * rank 0 after a barrier). */
#include <loom/loom.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { kMaxThreads = 256, kStride = 64 };
static int n_iter = 200000, n_threads = 2, shared;
static volatile long* counters;

static void* work(void* arg) {
  const int t = (int)(long)arg;
  const unsigned id = shared ? 1u : 1u + (unsigned)t;
  volatile long* c = counters + (shared ? 0 : t * kStride);
  for (int i = 0; i < n_iter; i++) {
    if (loom_lock(id) != LOOM_OK || (*c = *c + 1, loom_unlock(id) != LOOM_OK)) {
      fprintf(stderr, "thread_locks: %s\n", loom_last_error());
      exit(1);
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (argc > 1) n_threads = atoi(argv[1]);
  if (argc > 2) n_iter = atoi(argv[2]);
  if (argc > 3) shared = atoi(argv[3]);
  if (n_threads < 1 || n_threads > kMaxThreads || n_iter < 1) {
    fprintf(stderr, "usage: thread_locks T (1..%d) [N >= 1] [shared 0|1]\n", kMaxThreads);
    return 2;
  }
  if (loom_init(&argc, &argv, NULL) != LOOM_OK ||
      loom_alloc_collective(sizeof(long) * kStride * kMaxThreads, (void**)&counters) != LOOM_OK ||
      loom_stats_reset() != LOOM_OK) {
    fprintf(stderr, "thread_locks: %s\n", loom_last_error());
    return 1;
  }
  int rank = loom_rank(), nranks = loom_nranks();
  pthread_t th[kMaxThreads];
  loom_barrier();
  double t0 = MPI_Wtime();
  for (long t = 0; t < n_threads; t++) pthread_create(&th[t], NULL, work, (void*)t);
  for (int t = 0; t < n_threads; t++) pthread_join(th[t], NULL);
  double dt = MPI_Wtime() - t0;
  loom_stats_t st;
  loom_stats_get(&st);
  loom_barrier();
  int bad = 0;
  if (st.locks != (uint64_t)n_threads * (uint64_t)n_iter || st.unlocks != st.locks) {
    fprintf(stderr, "thread_locks: rank %d counted %llu locks and %llu unlocks, expected %llu\n", rank,
            (unsigned long long)st.locks, (unsigned long long)st.unlocks,
            (unsigned long long)n_threads * (unsigned long long)n_iter);
    bad = 1;
  }
  if (rank == 0) {
    long want = (long)nranks * n_iter * (shared ? n_threads : 1), got;
    for (int t = 0; t < (shared ? 1 : n_threads); t++)
      if ((got = counters[shared ? 0 : t * kStride]) != want) {
        fprintf(stderr, "thread_locks: counter %d is %ld, expected %ld (an increment was lost)\n", t, got, want);
        bad = 1;
      }
    printf("thread_locks: %d rank(s) x %d threads, %d pairs each, %s: %.3f s, %.1f ns a pair per thread, "
           "%.1f ns a pair for the rank%s\n", nranks, n_threads, n_iter, shared ? "one lock" : "a lock each", dt,
           dt / n_iter * 1e9, dt / n_iter / n_threads * 1e9, bad ? " (FAILED)" : "");
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  loom_finalize();
  MPI_Finalize();
  return any;
}
