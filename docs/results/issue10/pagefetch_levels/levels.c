/* Where a raw 4 KiB MPI_Get sits, across the events of a Loom run.
 *
 * Rank 1 gets each of 1024 pages of rank 0's window, a flush after each;
 * the figure is the median of 7 such loops, microseconds a get.  Measured:
 *   first     - the first window of the run, gets straight after it is made
 *   made2nd   - a second window, the other kind (allocated / created), made
 *               after those gets, then gets from it: does the kind matter,
 *               or the order?
 *   after     - the first window again, after the second window and a
 *               communicator duplicated (what loom_init does), Loom not
 *               started
 *   beside    - the same with Loom running (loom_init with default
 *               settings), the target waiting in loom_barrier
 *   finalized - the same after loom_finalize
 * argv[1]: "allocate" or "create": the kind of the first window (the
 * second is the other).  Prints one line on rank 1.
 */
#include <loom/loom.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGES 1024
#define LOOPS 7

static int me;
static char buf[4096];

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static void wait_all(int loom) {
  if (loom) loom_barrier();
  else MPI_Barrier(MPI_COMM_WORLD);
}

static double gets(MPI_Win w, int loom) {
  double s[LOOPS];
  for (int r = 0; r < LOOPS; r++) {
    wait_all(loom);
    double t0 = MPI_Wtime();
    if (me == 1)
      for (int p = 0; p < PAGES; p++) {
        MPI_Get(buf, 4096, MPI_BYTE, 0, (MPI_Aint)p * 4096, 4096, MPI_BYTE, w);
        MPI_Win_flush(0, w);
      }
    s[r] = (MPI_Wtime() - t0) / PAGES * 1e6;
    wait_all(loom);
  }
  qsort(s, LOOPS, sizeof s[0], cmp);
  return s[LOOPS / 2];
}

static MPI_Win make(int allocate, void** mem) {
  MPI_Win w;
  if (allocate) {
    MPI_Win_allocate((MPI_Aint)PAGES * 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, mem, &w);
  } else {
    *mem = malloc((size_t)PAGES * 4096);
    MPI_Win_create(*mem, (MPI_Aint)PAGES * 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
  }
  memset(*mem, 7, (size_t)PAGES * 4096);
  MPI_Win_lock_all(0, w);
  return w;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  int first_allocated = argc < 2 || strcmp(argv[1], "create") != 0;
  void *m1, *m2;
  MPI_Win w1 = make(first_allocated, &m1);
  double first = gets(w1, 0);
  MPI_Win w2 = make(!first_allocated, &m2);
  double made2nd = gets(w2, 0);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  double after = gets(w1, 0);
  if (loom_init(&argc, &argv, NULL) != LOOM_OK) MPI_Abort(MPI_COMM_WORLD, 1);
  double beside = gets(w1, 1);
  loom_finalize();
  double finalized = gets(w1, 0);
  if (me == 1)
    printf("first(%s) %.1f  made2nd(%s) %.1f  after %.1f  beside %.1f  finalized %.1f\n",
           first_allocated ? "allocate" : "create", first, first_allocated ? "create" : "allocate", made2nd, after,
           beside, finalized);
  MPI_Comm_free(&dup);
  MPI_Win_unlock_all(w1);
  MPI_Win_unlock_all(w2);
  MPI_Win_free(&w1);
  MPI_Win_free(&w2);
  if (!first_allocated) free(m1);
  else free(m2);
  MPI_Finalize();
  return 0;
}
