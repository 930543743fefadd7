/* Helpers for the multi-rank tests (plain C, included by C and C++ tests).
 * A test counts its checks; mr_finish() combines the counts of all ranks,
 * rank 0 prints "<name>: N passed, F failed", and the process exits non-zero
 * on any failure.  Every test is run by ctest under mpiexec with a timeout.
 * The checks may be made from several threads of a rank. */
#ifndef LOOM_TESTS_MR_H
#define LOOM_TESTS_MR_H
#include <loom/loom.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long mr_passed, mr_failed;

#define CHECK(c)                                                                              \
  do {                                                                                        \
    if (c) __atomic_fetch_add(&mr_passed, 1, __ATOMIC_RELAXED);                               \
    else {                                                                                    \
      __atomic_fetch_add(&mr_failed, 1, __ATOMIC_RELAXED);                                    \
      fprintf(stderr, "rank %d: FAIL %s:%d: %s\n", loom_rank(), __FILE__, __LINE__, #c);     \
    }                                                                                         \
  } while (0)

#define CHECK_OK(e)                                                                           \
  do {                                                                                        \
    loom_status_t s_ = (e);                                                                   \
    if (s_ == LOOM_OK) __atomic_fetch_add(&mr_passed, 1, __ATOMIC_RELAXED);                   \
    else {                                                                                    \
      __atomic_fetch_add(&mr_failed, 1, __ATOMIC_RELAXED);                                    \
      fprintf(stderr, "rank %d: FAIL %s:%d: %s -> %s (%s)\n", loom_rank(), __FILE__, __LINE__, \
              #e, loom_strerror(s_), loom_last_error());                                      \
    }                                                                                         \
  } while (0)

/* Expect a specific error status from an expression. */
#define CHECK_ERR(e, code)                                                                     \
  do {                                                                                         \
    loom_status_t s_ = (e);                                                                    \
    if (s_ == (code)) __atomic_fetch_add(&mr_passed, 1, __ATOMIC_RELAXED);                     \
    else {                                                                                     \
      __atomic_fetch_add(&mr_failed, 1, __ATOMIC_RELAXED);                                     \
      fprintf(stderr, "rank %d: FAIL %s:%d: %s gave %s, expected %s\n", loom_rank(), __FILE__, \
              __LINE__, #e, loom_strerror(s_), loom_strerror(code));                           \
    }                                                                                          \
  } while (0)

static inline void mr_init(int* argc, char*** argv) {
  loom_status_t s = loom_init(argc, argv, NULL);
  if (s != LOOM_OK) {
    fprintf(stderr, "loom_init failed: %s: %s\n", loom_strerror(s), loom_last_error());
    exit(2);
  }
}

/* Workers: a test written for W = nranks x T workers (worker w = rank*T + t)
 * runs with T application threads per rank (its argument; default 1).
 * mr_workers runs fn on T threads of every rank, thread 0 being the caller.
 * mr_wbar is the barrier every worker enters (loom_thread_barrier, or
 * loom_barrier for one thread); mr_walloc makes a collective allocation once
 * per rank (thread 0) and hands it to the rank's threads; mr_wfree frees one.
 * Tests exchange results through Loom memory, not MPI, so that every thread
 * may report. */
static int mr_T = 1;
static __thread int mr_t;
static void* mr_wslot;
/* The threads of this rank only, with no Loom call (the other ranks take no
 * part): for a thread to read what its siblings did, e.g. rank-wide
 * statistics after their faults. */
static pthread_barrier_t mr_rank_bar;
static inline void mr_rbar(void) {
  if (mr_T > 1) pthread_barrier_wait(&mr_rank_bar);
}

static inline int mr_threads_arg(int argc, char** argv) {
  int T = argc > 1 ? atoi(argv[1]) : 1;
  if (T < 1 || T > 64) {
    fprintf(stderr, "threads per rank must be 1..64 (got '%s')\n", argv[1]);
    exit(2);
  }
  return T;
}

static inline void mr_wbar(void) { CHECK_OK(mr_T > 1 ? loom_thread_barrier(mr_T) : loom_barrier()); }

static inline void* mr_walloc(size_t bytes, int home) {
  if (mr_t == 0) {
    void* p = NULL;
    CHECK_OK(home < 0 ? loom_alloc_collective(bytes, &p) : loom_alloc_collective_at(bytes, home, &p));
    mr_wslot = p;
  }
  mr_wbar();
  void* p = mr_wslot;
  mr_wbar(); /* nobody overwrites the slot before every thread read it */
  return p;
}

static inline void mr_wfree(void* p) {
  mr_wbar();
  if (mr_t == 0) CHECK_OK(loom_free_collective(p));
}

typedef void (*mr_worker_fn)(int w, int W);
struct mr_warg {
  mr_worker_fn fn;
  int t;
};
static inline void* mr_wmain(void* a) {
  struct mr_warg* g = (struct mr_warg*)a;
  mr_t = g->t;
  g->fn(loom_rank() * mr_T + g->t, loom_nranks() * mr_T);
  return NULL;
}

static inline void mr_workers(int T, mr_worker_fn fn) {
  mr_T = T;
  if (T > 1) pthread_barrier_init(&mr_rank_bar, NULL, (unsigned)T);
  pthread_t th[64];
  struct mr_warg args[64];
  for (int t = 0; t < T; t++) {
    args[t].fn = fn;
    args[t].t = t;
  }
  for (int t = 1; t < T; t++)
    if (pthread_create(&th[t], NULL, mr_wmain, &args[t]) != 0) {
      fprintf(stderr, "pthread_create failed\n");
      exit(2);
    }
  mr_wmain(&args[0]);
  for (int t = 1; t < T; t++) pthread_join(th[t], NULL);
  if (T > 1) pthread_barrier_destroy(&mr_rank_bar);
}

/* A block as [addr, addr + size), and their order by address (qsort): the
 * allocation tests check that no two blocks overlap. */
typedef struct {
  uint64_t addr, size;
} mr_range_t;

static inline int mr_cmp_range(const void* a, const void* b) {
  const mr_range_t *x = (const mr_range_t*)a, *y = (const mr_range_t*)b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Write all len bytes of buf to fd (a pipe, a file); 0, or -1 on an error. */
static inline int mr_write_all(int fd, const void* buf, size_t len) {
  const unsigned char* p = (const unsigned char*)buf;
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w <= 0) return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

/* Combine the counts, finalize Loom, return the exit code. */
static inline int mr_finish(const char* name) {
  long mine[2] = {mr_passed, mr_failed}, all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  int rank = loom_rank();
  loom_status_t s = loom_finalize();
  if (s != LOOM_OK) all[1]++;
  if (rank == 0) printf("%s: %ld passed, %ld failed\n", name, all[0], all[1]);
  return all[1] ? 1 : 0;
}
#endif
