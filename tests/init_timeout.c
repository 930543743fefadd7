/* init_timeout: a rank that never starts MPI must not leave the others
 * waiting inside MPI_Init for ever.
 *
 * Before loom_init the program learns its rank from the launcher's
 * environment (PMI_RANK for MPICH's hydra, OMPI_COMM_WORLD_RANK for Open
 * MPI).  Rank 1 stands for a rank that failed to start (a host that cannot
 * be reached, a crashed launch): it sleeps 100 s and never calls loom_init.
 * Rank 0 calls loom_init under LOOM_INIT_TIMEOUT=3 (set by the test): MPI's
 * initialization waits for rank 1, so after 3 s Loom's watch must end rank
 * 0 with a message, and the launcher, seeing a rank fail, must end the job
 * long before rank 1 wakes (ctest's timeout is 60 s).  Without the watch the
 * job waits out rank 1's sleep and then MPI_Init's, and the test times out.
 * A rank 0 that got through loom_init prints "init_timeout: FAIL".
 *
 *   init_timeout          (2 ranks)
 */
#include <loom/loom.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int launcher_rank(void) {
  const char* v = getenv("PMI_RANK");
  if (!v) v = getenv("OMPI_COMM_WORLD_RANK");
  return v ? atoi(v) : -1;
}

int main(int argc, char** argv) {
  const int me = launcher_rank();
  if (me < 0) {
    fprintf(stderr, "init_timeout: no rank in the launcher's environment (PMI_RANK, OMPI_COMM_WORLD_RANK)\n");
    return 2;
  }
  if (me == 1) {
    sleep(100);
    return 0;
  }
  loom_status_t st = loom_init(&argc, &argv, NULL);
  printf("init_timeout: FAIL: loom_init returned (%d) on rank %d while rank 1 never started MPI\n", (int)st, me);
  return 1;
}
