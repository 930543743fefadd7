/* Under Open MPI, while a rank's protocol thread (async, auto) or progress
 * thread (rma) runs, Open MPI yields when idle inside the program's
 * blocking MPI calls and nowhere else (src/idle_yield.hpp): its blocking
 * calls otherwise poll without a break and keep that thread off a core.
 * The program starts MPI itself and switches yielding off, as Open MPI
 * leaves it on a node that is not oversubscribed.  In each round one
 * thread of every rank waits in MPI_Recv for a message its peer sends
 * 50 ms later while the main thread watches Open MPI's own switch
 * (opal_progress_yield_when_idle); checked inside Loom, outside the
 * receive and during it, and after loom_finalize:
 *   peers not mapped (a thread runs)       on during the receive only;
 *   peers mapped on one host (no thread)   off throughout;
 *   OMPI_MCA_mpi_yield_when_idle=0 given   off throughout (the user chose);
 *   yielding on before                     on throughout (left as found).
 * Then one receive after loom_finalize: off during it.
 * Under another MPI the switch does not exist and the test skips (77). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "mr.h"

static const volatile bool* yields;
static void (*turn)(bool);
static int peer;
static volatile int received;

static void* receive(void* arg) {
  (void)arg;
  int v = 0;
  MPI_Recv(&v, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  received = 1;
  return NULL;
}

static void sleep_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

/* A receive in another thread; returns whether the switch was ever on
 * while it waited (the peer sends after 50 ms), and checks it is back to
 * `after` once the receive is over. */
static bool on_during_receive(bool after, int line) {
  received = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  pthread_t t;
  pthread_create(&t, NULL, receive, NULL);
  bool seen = false;
  for (int i = 0; i < 30; i++) {  /* 30 ms of the 50 */
    seen = seen || *yields;
    sleep_ms(1);
  }
  sleep_ms(20);
  int v = 1;
  MPI_Send(&v, 1, MPI_INT, peer, 5, MPI_COMM_WORLD);
  pthread_join(t, NULL);
  CHECK(received);
  if (*yields != after) fprintf(stderr, "line %d: after the receive, yields %d\n", line, (int)*yields);
  CHECK(*yields == after);
  return seen;
}

static void round_of(const char* map, bool before, bool during, int line) {
  turn(before);
  setenv("LOOM_LOCAL_MAP", map, 1);
  CHECK_OK(loom_init(NULL, NULL, NULL));
  CHECK(*yields == before);
  const bool seen = on_during_receive(before, line);
  if (seen != during) fprintf(stderr, "round at line %d: yields during the receive %d\n", line, (int)seen);
  CHECK(seen == during);
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_finalize());
  CHECK(*yields == before);
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  peer = rank ^ 1;
  yields = (const volatile bool*)dlsym(RTLD_DEFAULT, "opal_progress_yield_when_idle");
  turn = (void (*)(bool))dlsym(RTLD_DEFAULT, "opal_progress_set_yield_when_idle");
  if (!yields || !turn || n != 2 || provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0)
      printf("mr_idle_yield: needs Open MPI (opal_progress_yield_when_idle), 2 ranks and MPI_THREAD_MULTIPLE: "
             "skipped\n");
    MPI_Finalize();
    return 77;
  }
  unsetenv("OMPI_MCA_mpi_yield_when_idle");
  round_of("0", false, true, __LINE__);
  round_of("1", false, false, __LINE__);
  setenv("OMPI_MCA_mpi_yield_when_idle", "0", 1);
  round_of("0", false, false, __LINE__);
  unsetenv("OMPI_MCA_mpi_yield_when_idle");
  round_of("0", true, true, __LINE__);
  turn(false);
  CHECK(!on_during_receive(false, __LINE__));
  long mine[2] = {mr_passed, mr_failed}, all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("mr_idle_yield: %ld passed, %ld failed\n", all[0], all[1]);
  MPI_Finalize();
  return all[1] ? 1 : 0;
}
