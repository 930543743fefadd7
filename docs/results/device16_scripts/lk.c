#include <loom/loom.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static int N = 200000, T = 2, shared = 0;
static long* data;
static void* work(void* a) {
  int t = (int)(long)a;
  for (int i = 0; i < N; i++) {
    unsigned id = shared ? 1 : 1 + t;
    loom_lock(id);
    data[t * 64]++;
    loom_unlock(id);
  }
  return NULL;
}
int main(int argc, char** argv) {
  int prov;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
  if (argc > 1) T = atoi(argv[1]);
  if (argc > 2) N = atoi(argv[2]);
  if (argc > 3) shared = atoi(argv[3]);
  loom_init(&argc, &argv, NULL);
  loom_alloc_collective(4096 * 16, (void**)&data);
  pthread_t th[64];
  double t0 = MPI_Wtime();
  for (long t = 0; t < T; t++) pthread_create(&th[t], NULL, work, (void*)t);
  for (int t = 0; t < T; t++) pthread_join(th[t], NULL);
  double dt = MPI_Wtime() - t0;
  long sum = 0;
  for (int t = 0; t < T; t++) sum += data[t * 64];
  printf("T=%d N=%d shared=%d: %.3f s, %.1f ns per lock+unlock per thread, %.1f ns per pair overall, sum %ld\n", T, N, shared, dt,
         dt / N * 1e9, dt / N / T * 1e9, sum);
  loom_finalize();
  MPI_Finalize();
}
