#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static volatile int stop;
static void* poller(void* a) { while (!stop) { int f; MPI_Iprobe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE); } return NULL; }
int main(int argc, char** argv) {
  int prov; MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
  int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
  int all = argc > 1 ? atoi(argv[1]) : 1;
  pthread_t th; pthread_create(&th, NULL, poller, NULL);
  MPI_File fh; MPI_File_open(MPI_COMM_WORLD, "/tmp/ft/race.dat", MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
  char* buf = malloc(1 << 16); memset(buf, r, 1 << 16);
  for (int k = 0; k < 200; k++) {
    MPI_Request rq;
    if (all) MPI_File_iwrite_at_all(fh, (MPI_Offset)(r << 16), buf, 1 << 16, MPI_BYTE, &rq);
    else MPI_File_iwrite_at(fh, (MPI_Offset)(r << 16), buf, 1 << 16, MPI_BYTE, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
  }
  stop = 1; pthread_join(th, NULL);
  MPI_File_close(&fh);
  if (r == 0) printf("done all=%d\n", all);
  MPI_Finalize();
  return 0;
}
