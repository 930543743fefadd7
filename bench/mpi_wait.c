/* mpi_wait: what MPI's own collectives cost the last rank to arrive when
 * they are waited for the way Loom waits (MPI_Test, spinning SPIN polls,
 * then sched_yield on every poll), against the blocking MPI_Barrier; the
 * highest rank arrives DELAY us after the others.  MPI only, no Loom: the
 * reference for the barrier anatomy (docs/BENCHMARKS.md, "Across hosts").
 *
 *   mpiexec -n 2 build/bench/mpi_wait SPIN [DELAY_US ...]     (default delays 0 100 1000)
 *
 * One line per (delay, operation): the median of 301 timed operations
 * (each after an MPI_Barrier that lines the ranks up), seen by the late rank. */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc < 2) {
    if (me == 0) fprintf(stderr, "usage: mpiexec -n N mpi_wait SPIN [DELAY_US ...]\n");
    MPI_Finalize();
    return 2;
  }
  const long spin = atol(argv[1]);
  double dflt[] = {0, 100, 1000}, *delays = dflt;
  int nd = 3;
  if (argc > 2) {
    nd = argc - 2;
    delays = malloc(sizeof(double) * nd);
    for (int i = 0; i < nd; i++) delays[i] = atof(argv[i + 2]);
  }
  const char* names[] = {"MPI_Iallreduce", "MPI_Ibarrier", "MPI_Barrier"};
  enum { kSamples = 301 };
  static double t[kSamples];
  for (int d = 0; d < nd; d++)
    for (int op = 0; op < 3; op++) {
      for (int s = 0; s < kSamples; s++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == n - 1)
          for (double t0 = MPI_Wtime(); (MPI_Wtime() - t0) * 1e6 < delays[d];) {
          }
        const double t0 = MPI_Wtime();
        if (op == 2) {
          MPI_Barrier(MPI_COMM_WORLD);
        } else {
          int in = 1, out = 0, done = 0;
          MPI_Request rq;
          if (op == 0) MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD, &rq);
          else MPI_Ibarrier(MPI_COMM_WORLD, &rq);
          for (long polls = 0; !done;) {
            MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
            if (++polls > spin) sched_yield();
          }
        }
        t[s] = (MPI_Wtime() - t0) * 1e6;
      }
      if (me == n - 1) {
        qsort(t, kSamples, sizeof t[0], by_value);
        printf("ranks=%d spin=%ld delay_us=%g op=%s last_arriver_median_us=%.1f\n", n, spin, delays[d], names[op],
               t[kSamples / 2]);
        fflush(stdout);
      }
    }
  MPI_Finalize();
  return 0;
}
