#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char** argv) {
  int prov; MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
  int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
  int runs = argc > 1 ? atoi(argv[1]) : 1024, pages = 16, reps = 5;
  size_t P = 4096;
  char* base; MPI_Win win;
  MPI_Win_allocate(pages * P, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_lock_all(0, win);
  char* src = malloc(pages * P); memset(src, 7, pages * P);
  int* bl = malloc(runs * sizeof(int)); int* disp = malloc(runs * sizeof(int));
  int stride = (int)(P / runs), len = stride / 2 > 0 ? stride / 2 : 1;
  for (int i = 0; i < runs; i++) { bl[i] = len; disp[i] = i * stride; }
  MPI_Datatype t; MPI_Type_indexed(runs, bl, disp, MPI_BYTE, &t); MPI_Type_commit(&t);
  char* packed = malloc(runs * len);
  const char* names[] = {"put same types", "put packed->indexed", "acc replace same", "acc replace packed->indexed", "put per run"};
  for (int v = 0; v < 5; v++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double best = 1e9;
    for (int k = 0; k < reps; k++) {
      double t0 = MPI_Wtime();
      if (r == 0) {
        for (int p = 0; p < pages; p++) {
          MPI_Aint td = (MPI_Aint)(p * P);
          if (v == 0) MPI_Put(src + p * P, 1, t, 1, td, 1, t, win);
          else if (v == 1) MPI_Put(packed, runs * len, MPI_BYTE, 1, td, 1, t, win);
          else if (v == 2) MPI_Accumulate(src + p * P, 1, t, 1, td, 1, t, MPI_REPLACE, win);
          else if (v == 3) MPI_Accumulate(packed, runs * len, MPI_BYTE, 1, td, 1, t, MPI_REPLACE, win);
          else for (int i = 0; i < runs; i++) MPI_Put(src + p * P + disp[i], len, MPI_BYTE, 1, td + disp[i], len, MPI_BYTE, win);
        }
        MPI_Win_flush_all(win);
      }
      double dt = MPI_Wtime() - t0;
      if (dt < best) best = dt;
      MPI_Barrier(MPI_COMM_WORLD);
    }
    if (r == 0) printf("%-30s runs %d: %.3f ms for %d pages\n", names[v], runs, best * 1e3, pages);
  }
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
