/* intercept_misuse: the two ways Loom memory can still reach MPI unprepared
 * end the job with a message that names the MPI call and the fix, never a
 * deadlock (tests/intercept_misuse.sh checks the message).
 *
 *   intercept_misuse op       a user-defined reduction reads Loom memory
 *                             homed on rank 0 that rank 1 does not hold: the
 *                             fault arrives inside MPI_Allreduce, where
 *                             fetching the page would re-enter MPI (run with
 *                             LOOM_LOCAL_MAP=0 or across hosts; with every
 *                             peer mapped the fault needs no MPI and is
 *                             served).
 *   intercept_misuse pending  rank 0 posts MPI_Irecv into Loom memory and
 *                             enters a Loom barrier before the message can
 *                             arrive (rank 1 sends after the barrier): the
 *                             barrier's release would re-protect pages MPI
 *                             is about to write.
 *
 * Two ranks.  A rank that gets past the barrier after the misuse prints
 * "got past" and exits 3. */
#include <loom/loom.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PAGE 4096
#define WORDS 64

static const long *g_table; /* Loom memory read by the reduction */

static void add_with_table(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  const long *a = in;
  long *b = inout;
  for (int i = 0; i < *len; i++) b[i] += a[i] + g_table[i];
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "op") && strcmp(argv[1], "pending"))) {
    fprintf(stderr, "usage: intercept_misuse op|pending\n");
    return 2;
  }
  if (loom_init(&argc, &argv, NULL) != LOOM_OK) return 2;
  const int me = loom_rank();
  if (loom_nranks() != 2) {
    fprintf(stderr, "intercept_misuse: run with 2 ranks\n");
    return 2;
  }
  long *block = NULL;
  if (loom_alloc_collective_at(2 * PAGE, 0, (void **)&block) != LOOM_OK) return 2;
  if (me == 0)
    for (int i = 0; i < WORDS; i++) block[i] = i;
  loom_barrier();
  if (strcmp(argv[1], "op") == 0) {
    long mine[WORDS], sum[WORDS];
    for (int i = 0; i < WORDS; i++) mine[i] = me;
    g_table = block;
    MPI_Op op;
    MPI_Op_create(add_with_table, 1, &op);
    MPI_Allreduce(mine, sum, WORDS, MPI_LONG, op, MPI_COMM_WORLD);
  } else {
    long *buf = block + PAGE / sizeof(long); /* the block's second page */
    MPI_Request req = MPI_REQUEST_NULL;
    if (me == 0) MPI_Irecv(buf, WORDS, MPI_LONG, 1, 5, MPI_COMM_WORLD, &req);
    loom_barrier();
    if (me == 1) MPI_Send(block, WORDS, MPI_LONG, 0, 5, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  loom_barrier(); /* the rank that did not fault waits here until the job ends */
  fprintf(stderr, "rank %d: got past the misuse\n", me);
  loom_finalize();
  return 3;
}
