/* init_error: a configuration error on one rank fails loom_init on every
 * rank, instead of leaving the others waiting in MPI_Init's and Loom's
 * collectives for a rank that returned alone.
 *
 * Before loom_init (so before MPI starts) the program learns its rank from
 * the launcher's environment (PMI_RANK for MPICH's hydra,
 * OMPI_COMM_WORLD_RANK for Open MPI) and rank 1 sets a bad LOOM_MEM_SIZE.
 * Every rank must get LOOM_ERR_CONFIG: rank 1 with its own message naming
 * the variable, the others with one naming rank 1 and the variable.  MPI is
 * up after the failed loom_init (Loom started it), so the ranks combine
 * their verdicts with MPI and finalize it.  Before the fix, ranks 0 and 2
 * waited forever (ctest's timeout ended them). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setenv with -std=c11 */
#endif
#include <loom/loom.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int launcher_rank(void) {
  const char* v = getenv("PMI_RANK");
  if (!v) v = getenv("OMPI_COMM_WORLD_RANK");
  return v ? atoi(v) : -1;
}

int main(int argc, char** argv) {
  const int me = launcher_rank();
  if (me < 0) {
    fprintf(stderr, "init_error: run me under mpiexec (no PMI_RANK or OMPI_COMM_WORLD_RANK)\n");
    return 2;
  }
  if (me == 1) setenv("LOOM_MEM_SIZE", "12345", 1); /* not a multiple of the page size */
  loom_status_t s = loom_init(&argc, &argv, NULL);
  const char* msg = loom_last_error();
  int ok = s == LOOM_ERR_CONFIG && strstr(msg, "LOOM_MEM_SIZE") != NULL && !loom_initialized();
  if (me != 1) ok = ok && strstr(msg, "rank 1") != NULL;
  fprintf(stderr, "rank %d: loom_init -> %s: %s\n", me, loom_strerror(s), msg);
  int inited = 0, all = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    fprintf(stderr, "rank %d: FAIL: MPI is not up after the failed loom_init\n", me);
    return 1;
  }
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Finalize();
  if (me == 0) fprintf(stderr, "init_error: %s\n", all ? "every rank failed with the error: ok" : "FAIL");
  return all ? 0 : 1;
}
