#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int c, char** v) {
  int prov;
  MPI_Init_thread(&c, &v, MPI_THREAD_MULTIPLE, &prov);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  int o = 1 - r;
  MPI_Comm wc;
  MPI_Comm_dup(MPI_COMM_WORLD, &wc);
  static char buf[1 << 20];
  MPI_Win w;
  MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, w);
  int mode = atoi(v[1]), n = 0;
  double t0 = MPI_Wtime();
  for (int i = 0; i < 2000; i++) {
    if (mode) {
      static const char x = 1;
      MPI_Request q;
      MPI_Isend(&x, 1, MPI_BYTE, o, 1, wc, &q);
      MPI_Wait(&q, MPI_STATUS_IGNORE);
      n++;
    }
    char d[4096];
    MPI_Request g;
    MPI_Rget(d, 4096, MPI_BYTE, o, (i % 200) * 4096, 4096, MPI_BYTE, w, &g);
    int done = 0;
    double ts = MPI_Wtime();
    while (!done) {
      MPI_Test(&g, &done, MPI_STATUS_IGNORE);
      if (MPI_Wtime() - ts > 5) { printf("rank %d: get %d stuck 5 s (words sent %d)\n", r, i, n); fflush(stdout); MPI_Abort(MPI_COMM_WORLD, 1); exit(1); }
    }
  }
  printf("rank %d: mode %d, 2000 gets in %.3f s\n", r, mode, MPI_Wtime() - t0);
  MPI_Win_unlock_all(w);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < n; i++) { char x; MPI_Recv(&x, 1, MPI_BYTE, o, 1, wc, MPI_STATUS_IGNORE); }
  MPI_Win_free(&w);
  MPI_Finalize();
  return 0;
}
