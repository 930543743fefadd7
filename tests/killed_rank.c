/* killed_rank: a rank that dies mid-job ends the whole job, with a message
 * that names it, instead of leaving the others waiting forever.
 *
 *   killed_rank kill   the last rank takes lock 0 and kills itself with
 *                      SIGKILL while the others wait for that lock (a Loom
 *                      wait loop that no message will ever end).
 *   killed_rank segv   the last rank writes to address 16 while the
 *                      others wait in a barrier; Loom's handler names the
 *                      rank before the real SIGSEGV ends it.
 *   killed_rank exit   the last rank calls exit(0) without loom_finalize
 *                      while the others wait in a barrier: Loom's exit
 *                      handler names the rank and aborts the job (before
 *                      it, the others waited forever and, once killed, the
 *                      launcher could report success).
 *
 * Before dying the rank prints "rank R (pid P) dies now", so that the check
 * (tests/killed_rank.sh) can match the launcher's message to it.  The job
 * must end with a non-zero status; a survivor that got past the wait exits
 * 3. */
#include <loom/loom.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2 || (strcmp(argv[1], "kill") && strcmp(argv[1], "segv") && strcmp(argv[1], "exit"))) {
    fprintf(stderr, "usage: killed_rank kill|segv|exit\n");
    return 2;
  }
  const int segv = strcmp(argv[1], "segv") == 0, quit = strcmp(argv[1], "exit") == 0;
  if (loom_init(&argc, &argv, NULL) != LOOM_OK) return 2;
  const int me = loom_rank(), n = loom_nranks();
  long* a = NULL;
  if (loom_alloc_collective((size_t)4096 * n, (void**)&a) != LOOM_OK) return 2;
  a[me * 512] = me;
  loom_barrier();
  if (me == n - 1) {
    if (!segv && !quit) loom_lock(0);
    a[0] = 1;
    fprintf(stderr, "rank %d (pid %d) dies now\n", me, (int)getpid());
    fflush(stderr);
    if (quit) {
      exit(0);
    } else if (segv) {
      long* volatile bad = (long*)16; /* below the lowest mappable address */
      *bad = 1;
    } else {
      kill(getpid(), SIGKILL);
    }
    return 4; /* not reached */
  }
  sleep(1);
  if (segv || quit) loom_barrier();
  else loom_lock(0);
  fprintf(stderr, "rank %d: got past the wait for the dead rank\n", me);
  return 3;
}
