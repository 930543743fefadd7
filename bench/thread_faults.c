/* thread_faults: what faults cost when several threads of one rank fault at
 * once.  Every rank writes its own chunk of P*T pages (homed there) and
 * enters a barrier; then T threads of every rank read the next rank's chunk,
 * each its own P contiguous pages, one word a page, so each page is a read
 * fault and a fetch from another rank.  R rounds; the barrier of each round
 * drops the copies the round before fetched.  Prints, per rank, the time of
 * the read phase per page (all threads together), the faults and pages
 * fetched, and checks every word read (a stale or torn page is a wrong
 * value).  Exit status 1 on a failed check.
 *
 *   mpiexec -n 2 build/bench/thread_faults T [P] [R]
 *
 * Across hosts the barrier prefetches pages read again after a drop; run
 * with LOOM_PREFETCH=0 to measure the faults themselves. */
#include <loom/loom.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { kMaxThreads = 256, kWords = 4096 / sizeof(long) };
static int n_threads = 2, n_pages = 256, n_rounds = 20, round_no;
static long* chunk_read;  // the chunk this rank's threads read this round
static long bad_words;
static pthread_barrier_t start, done;

static void* reader(void* arg) {
  const int t = (int)(long)arg;
  for (int r = 0; r < n_rounds; r++) {
    pthread_barrier_wait(&start);
    long wrong = 0;
    const long* first = chunk_read + (size_t)t * n_pages * kWords;
    for (int i = 0; i < n_pages; i++) {
      const long want = (long)round_no * 1000003L + (long)t * n_pages + i;
      const long* page = first + (size_t)i * kWords;
      if (page[0] != want || page[kWords - 1] != want) wrong++;
    }
    if (wrong) __atomic_fetch_add(&bad_words, wrong, __ATOMIC_RELAXED);
    pthread_barrier_wait(&done);
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (argc > 1) n_threads = atoi(argv[1]);
  if (argc > 2) n_pages = atoi(argv[2]);
  if (argc > 3) n_rounds = atoi(argv[3]);
  if (n_threads < 1 || n_threads > kMaxThreads || n_pages < 1 || n_rounds < 1) {
    fprintf(stderr, "usage: thread_faults T (1..%d) [P >= 1] [R >= 1]\n", kMaxThreads);
    return 2;
  }
  long* all = NULL;
  const size_t chunk_words = (size_t)n_threads * n_pages * kWords;
  if (loom_init(&argc, &argv, NULL) != LOOM_OK) {
    fprintf(stderr, "thread_faults: %s\n", loom_last_error());
    return 1;
  }
  const int rank = loom_rank(), nranks = loom_nranks();
  if (loom_alloc_collective_policy(chunk_words * sizeof(long) * nranks, LOOM_HOME_BLOCK, (void**)&all) != LOOM_OK) {
    fprintf(stderr, "thread_faults: %s\n", loom_last_error());
    return 1;
  }
  long* mine = all + (size_t)rank * chunk_words;
  chunk_read = all + (size_t)((rank + 1) % nranks) * chunk_words;
  pthread_barrier_init(&start, NULL, (unsigned)n_threads + 1);
  pthread_barrier_init(&done, NULL, (unsigned)n_threads + 1);
  pthread_t th[kMaxThreads];
  for (long t = 0; t < n_threads; t++) pthread_create(&th[t], NULL, reader, (void*)t);
  double best = 1e30, sum = 0;
  loom_stats_t st0, st1;
  for (int r = 0; r < n_rounds; r++) {
    round_no = r;
    for (size_t pg = 0; pg < (size_t)n_threads * n_pages; pg++) {
      const long v = (long)r * 1000003L + (long)pg;
      mine[pg * kWords] = v;
      mine[pg * kWords + kWords - 1] = v;
    }
    loom_barrier();
    if (r == 1) loom_stats_get(&st0);  // round 0 warms up (first touch, block setup)
    const double t0 = MPI_Wtime();
    pthread_barrier_wait(&start);
    pthread_barrier_wait(&done);
    const double dt = MPI_Wtime() - t0;
    if (r > 0) {
      sum += dt;
      if (dt < best) best = dt;
    }
    loom_barrier();
  }
  loom_stats_get(&st1);
  for (int t = 0; t < n_threads; t++) pthread_join(th[t], NULL);
  const int measured = n_rounds > 1 ? n_rounds - 1 : 1;
  const double pages = (double)n_threads * n_pages;
  if (n_rounds == 1) sum = best;
  printf("thread_faults: rank %d of %d, %d threads x %d pages, %d rounds: %.2f us a page (best round %.2f), "
         "%llu read faults, %llu pages fetched%s\n",
         rank, nranks, n_threads, n_pages, measured, sum / measured / pages * 1e6, best / pages * 1e6,
         (unsigned long long)(st1.read_faults - (n_rounds > 1 ? st0.read_faults : 0)),
         (unsigned long long)(st1.pages_fetched - (n_rounds > 1 ? st0.pages_fetched : 0)),
         bad_words ? " (FAILED)" : "");
  if (bad_words) fprintf(stderr, "thread_faults: rank %d read %ld wrong pages\n", rank, bad_words);
  int bad = bad_words != 0, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  loom_finalize();
  MPI_Finalize();
  return any;
}
