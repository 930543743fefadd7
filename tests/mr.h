/* Helpers for the multi-rank tests (plain C, included by C and C++ tests).
 * A test counts its checks; mr_finish() combines the counts of all ranks,
 * rank 0 prints "<name>: N passed, F failed", and the process exits non-zero
 * on any failure.  Every test is run by ctest under mpiexec with a timeout.
 * The checks may be made from several threads of a rank. */
#ifndef LOOM_TESTS_MR_H
#define LOOM_TESTS_MR_H
#include <loom/loom.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
