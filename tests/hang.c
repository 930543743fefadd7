/* hang: two deadlocks in the program, which LOOM_HANG_TIMEOUT turns into a
 * diagnosis and an error instead of a silent hang (tests/hang.sh checks).
 *
 *   hang collective  every rank but rank 0 calls loom_barrier; rank 0 never
 *                    does (it computes forever).  The waiting ranks report
 *                    "a barrier" and the job is aborted.
 *   hang lock        rank 0 takes lock 3 and enters loom_barrier; rank 1
 *                    waits for lock 3 (behind rank 0); the others wait in
 *                    the barrier.  Every rank reports, rank 1 "loom_lock 3,
 *                    waiting for rank 0".
 *   hang late        no deadlock: rank 0 sleeps 3 s before the barrier the
 *                    others wait in.  Under LOOM_WAIT_NOTE=1 (and no
 *                    LOOM_HANG_TIMEOUT) each waiting rank says once what it
 *                    waits in, and every rank gets through: "done", exit 0.
 *
 * A rank that gets past a deadlock prints "got past" and exits 3. */
#include <loom/loom.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2 || (strcmp(argv[1], "collective") && strcmp(argv[1], "lock") && strcmp(argv[1], "late"))) {
    fprintf(stderr, "usage: hang collective|lock|late\n");
    return 2;
  }
  const int lock = strcmp(argv[1], "lock") == 0;
  if (loom_init(&argc, &argv, NULL) != LOOM_OK) return 2;
  const int me = loom_rank();
  if (loom_barrier() != LOOM_OK) return 2;
  if (strcmp(argv[1], "late") == 0) {
    if (me == 0) sleep(3);
    if (loom_barrier() != LOOM_OK) return 2;
    fprintf(stderr, "rank %d: done\n", me);
    return loom_finalize() == LOOM_OK ? 0 : 2;
  }
  if (!lock) {
    if (me == 0)
      for (;;) sleep(1); /* never calls the barrier */
    loom_barrier();
  } else {
    if (me == 0) {
      loom_lock(3);
      loom_barrier(); /* while holding the lock rank 1 waits for */
    } else if (me == 1) {
      sleep(1); /* rank 0 takes the lock first */
      loom_lock(3);
    } else {
      loom_barrier();
    }
  }
  fprintf(stderr, "rank %d: got past the deadlock\n", me);
  return 3;
}
