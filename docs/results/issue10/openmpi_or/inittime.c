// loom_init timed, 15 times in one run (each followed by loom_finalize):
// the median and range on rank 0 (run.sh: the check of the one-sided OR at
// init against the library before it, alternated).
#include <loom/loom.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void* a, const void* b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
int main(int argc, char** argv) {
  int prov; MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
  double t[15];
  for (int i = 0; i < 15; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (loom_init(&argc, &argv, NULL) != 0) return 1;
    double t1 = MPI_Wtime();
    loom_finalize();
    t[i] = t1 - t0;
  }
  qsort(t, 15, sizeof t[0], cmp);
  int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (r == 0) printf("loom_init median %.2f ms (min %.2f, max %.2f)\n", t[7] * 1e3, t[0] * 1e3, t[14] * 1e3);
  MPI_Finalize();
  return 0;
}
