/* mt_doom: a fault's fetch that overlaps a sibling thread's acquire must not
 * publish what it read (mt_doom [T] [ROUNDS], T >= 2 threads on the reader
 * rank, 2 ranks or more; ranks past 1 only take part in the barriers).
 *
 * A fetch from a mapped peer runs without the rank lock (threads.hpp,
 * "Fetches made without the rank lock"), so it can read its pages' bytes
 * before a write and land after an acquire that must see that write.  The
 * acquire cannot drop a copy that is not there yet; what keeps the old bytes
 * out is the doom: the acquiring thread waits for the gets out to land and
 * dooms them, and their faults fetch again.
 *
 * Rank 0 (the writer) homes two units of kUnit pages (LOOM_UNIT_PAGES, so
 * that one fault fetches a whole unit).  Round k:
 *   - on rank 1, a racer thread reads a page of unit k % 2, which the
 *     checker's last acquire dropped: its fault fetches the whole unit
 *     (4 MiB, some hundreds of microseconds);
 *   - the checker (thread 0 of rank 1) tells the writer by MPI that the
 *     racer is reading; the writer waits a while that differs from round to
 *     round (0-400 us), takes lock L, writes k into one word of every page,
 *     unlocks, and answers by MPI;
 *   - the checker takes L and reads unit k % 2: every page must hold k.
 * In the rounds where the writer wrote while the racer's get was copying
 * and the checker's lock came before the get landed, a get that publishes
 * gives the checker the round before in the pages copied before the write.
 * The racer's read is racy; its value is only checked to be some round's.
 *
 * Made to publish doomed fetches (fetch_back always true), this failed 10
 * runs of 10 here (2 cores; both ctest shapes, 5 times), 31-110 rounds of
 * 200 in each. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "mr.h"

enum { kUnit = 1024, kPages = 2 * kUnit, kWord = 4096 / sizeof(uint32_t), kLock = 3, kTag = 77 };

static volatile uint32_t* g_pages;
static atomic_int g_done;
static atomic_int g_round;   /* the round the racer is to read for (process memory, not Loom's) */
static atomic_int g_reading; /* the racer's read for that round is about to fault */
static int g_rounds = 400;

static double mono_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Receive the writer's answer sleeping, not polling: the racer's fault and
 * the writer need this machine's cores meanwhile. */
static void sleep_recv(int* k, int from) {
  MPI_Request rq;
  MPI_Irecv(k, 1, MPI_INT, from, kTag, MPI_COMM_WORLD, &rq);
  for (int flag = 0;;) {
    MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
    if (flag) return;
    const struct timespec nap = {0, 20000};
    nanosleep(&nap, NULL);
  }
}

static void* racer(void* arg) {
  const int t = (int)(intptr_t)arg;
  long strange = 0;
  int seen = 0;
  for (int polls = 0; !atomic_load_explicit(&g_done, memory_order_relaxed);) {
    const int k = atomic_load_explicit(&g_round, memory_order_acquire);
    if (k == seen) {
      if (++polls % 64 == 0) {
        const struct timespec nap = {0, 10000};
        nanosleep(&nap, NULL);
      }
      continue;
    }
    seen = k;
    atomic_store_explicit(&g_reading, k, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst); /* the store is out before the read below faults */
    const volatile uint32_t* u = g_pages + (size_t)(k % 2) * kUnit * kWord;
    if (u[(size_t)((t * 37) % kUnit) * kWord] > (uint32_t)g_rounds) strange++;
  }
  return (void*)(intptr_t)strange;
}

static void writer(void) {
  for (int r = 0; r < g_rounds; r++) {
    int k = 0;
    sleep_recv(&k, 1);
    const double until = mono_us() + (double)((unsigned)k * 7919u % 400u);
    for (int polls = 0; mono_us() < until;)
      if (++polls % 64 == 0) sched_yield();
    CHECK_OK(loom_lock(kLock));
    for (int p = 0; p < kPages; p++) g_pages[(size_t)p * kWord] = (uint32_t)k;
    CHECK_OK(loom_unlock(kLock));
    MPI_Send(&k, 1, MPI_INT, 1, kTag, MPI_COMM_WORLD);
  }
}

/* Returns the rounds whose unit held another round's number. */
static long checker(void) {
  long bad = 0;
  for (int k = 1; k <= g_rounds; k++) {
    atomic_store_explicit(&g_round, k, memory_order_release);
    for (int polls = 0; atomic_load_explicit(&g_reading, memory_order_acquire) != k;)
      if (++polls % 64 == 0) sched_yield();
    MPI_Send(&k, 1, MPI_INT, 0, kTag, MPI_COMM_WORLD);
    sleep_recv(&k, 0);
    CHECK_OK(loom_lock(kLock));
    const volatile uint32_t* u = g_pages + (size_t)(k % 2) * kUnit * kWord;
    int wrong = 0;
    for (int p = 0; p < kUnit; p++) wrong |= u[(size_t)p * kWord] != (uint32_t)k;
    CHECK_OK(loom_unlock(kLock));
    bad += wrong;
  }
  return bad;
}

int main(int argc, char** argv) {
  setenv("LOOM_UNIT_PAGES", "1024", 0);
  mr_init(&argc, &argv);
  const int T = mr_threads_arg(argc, argv);
  if (argc > 2) g_rounds = atoi(argv[2]);
  if (loom_nranks() < 2 || T < 2 || g_rounds < 1) {
    if (loom_rank() == 0) fprintf(stderr, "mt_doom needs 2 ranks or more, T >= 2 and ROUNDS >= 1\n");
    loom_finalize();
    return 2;
  }
  /* A fault fetches the window of LOOM_UNIT_PAGES pages aligned from the
   * start of Loom memory: start the units at such a boundary, so that a
   * fault on one unit takes none of the other. */
  char* mem = NULL;
  CHECK_OK(loom_alloc_collective_at(3 * kUnit * 4096, 0, (void**)&mem));
  const char* base = mem;
  while (loom_is_shared(base - 4096)) base -= 4096;
  const size_t skip = (kUnit - (size_t)(mem - base) / 4096 % kUnit) % kUnit;
  g_pages = (volatile uint32_t*)(mem + skip * 4096);
  CHECK_OK(loom_barrier());

  if (loom_rank() == 0) {
    writer();
  } else if (loom_rank() == 1) {
    pthread_t th[64];
    for (int t = 1; t < T; t++)
      if (pthread_create(&th[t], NULL, racer, (void*)(intptr_t)t) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        return 2;
      }
    const long bad = checker();
    atomic_store(&g_done, 1);
    long strange = 0;
    for (int t = 1; t < T; t++) {
      void* s = NULL;
      pthread_join(th[t], &s);
      strange += (long)(intptr_t)s;
    }
    CHECK(strange == 0);
    if (bad) fprintf(stderr, "rank 1: %ld of %d rounds read an older round under the lock\n", bad, g_rounds);
    CHECK(bad == 0);
  }
  CHECK_OK(loom_barrier());
  /* After the barrier everyone sees the last round. */
  int last = 0;
  for (int p = 0; p < kPages; p++) last += g_pages[(size_t)p * kWord] == (uint32_t)g_rounds;
  CHECK(last == kPages);
  return mr_finish("mt_doom");
}
