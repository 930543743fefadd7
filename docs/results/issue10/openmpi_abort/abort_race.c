/* abort_race.c: plain MPI, no Loom.  Every rank passes a barrier, then the
 * ranks named by ABORTERS ("all", or one rank number) call MPI_Abort while
 * the others wait in a non-blocking barrier that never completes.  run.sh
 * times how long the launcher takes to end the job. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  const char* who = getenv("ABORTERS");
  if (!who || !strcmp(who, "all") || atoi(who) == rank) {
    fprintf(stderr, "rank %d calls MPI_Abort\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 72);
  }
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  int done = 0;
  while (!done) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
