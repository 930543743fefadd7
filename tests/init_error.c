/* init_error: a configuration error on one rank fails loom_init on every
 * rank, instead of leaving the others waiting in MPI_Init's and Loom's
 * collectives for a rank that returned alone.
 *
 * Before loom_init (so before MPI starts) the program learns its rank from
 * the launcher's environment (PMI_RANK for MPICH's hydra,
 * OMPI_COMM_WORLD_RANK for Open MPI) and rank 1 sets a bad LOOM_MEM_SIZE.
 * Every rank must get LOOM_ERR_CONFIG: rank 1 with its own message naming
 * the variable, the others with one naming rank 1 and the variable.  MPI is
 * up after the failed loom_init (Loom started it), so the ranks combine
 * their verdicts with MPI and finalize it.  Before the fix, ranks 0 and 2
 * waited forever (ctest's timeout ended them).
 *
 * init_error nomem: the program starts MPI itself, then rank 1 limits its
 * address space to what it uses now plus 48 MiB, less than the per-page
 * tables of LOOM_MEM_SIZE=64G need (up to 42 bytes of address space a page,
 * 672 MiB, resident only where used).  Every rank
 * must get LOOM_ERR_NO_MEMORY (rank 1 naming the tables and the size, the
 * others naming rank 1) where std::bad_alloc used to escape the C API; then,
 * with the limit lifted, loom_init with 64 MiB succeeds on every rank (the
 * failed attempt left nothing behind).
 *
 * init_error absent: a rank that never starts MPI must not leave the others
 * waiting inside MPI_Init for ever.  Rank 1 stands for a rank that failed to
 * start (a host that cannot be reached, a crashed launch): it sleeps 100 s
 * and never calls loom_init.  Rank 0 calls loom_init under
 * LOOM_INIT_TIMEOUT=3 (set by the test): MPI's initialization waits for rank
 * 1, so after 3 s Loom's watch must end rank 0 with a message, and the
 * launcher, seeing a rank fail, must end the job long before rank 1 wakes
 * (ctest's timeout is 60 s).  Without the watch the job waits out rank 1's
 * sleep and then MPI_Init's, and the test times out.  A rank 0 that got
 * through loom_init prints "init_timeout: FAIL". */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setenv with -std=c11 */
#endif
#include <loom/loom.h>
#include <sys/resource.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int launcher_rank(void) {
  const char* v = getenv("PMI_RANK");
  if (!v) v = getenv("OMPI_COMM_WORLD_RANK");
  return v ? atoi(v) : -1;
}

/* This process's virtual size in bytes (VmSize in /proc/self/status). */
static unsigned long long vm_size(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  unsigned long long kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmSize: %llu kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb * 1024;
}

static int nomem(int argc, char** argv) {
  int provided = 0, me = 0, ok = 1, all = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  struct rlimit old, lim;
  getrlimit(RLIMIT_AS, &old);
  lim = old;
  if (me == 1) {
    lim.rlim_cur = vm_size() + (48ull << 20);
    if (setrlimit(RLIMIT_AS, &lim) != 0) perror("setrlimit");
  }
  loom_config_t cfg;
  loom_config_default(&cfg);
  cfg.mem_size = 64ull << 30;
  loom_status_t s = loom_init(NULL, NULL, &cfg);
  if (me == 1) setrlimit(RLIMIT_AS, &old);
  const char* msg = loom_last_error();
  fprintf(stderr, "rank %d: loom_init with 64 GiB -> %s: %s\n", me, loom_strerror(s), msg);
  ok = s == LOOM_ERR_NO_MEMORY && strstr(msg, "per-page tables") && strstr(msg, "68719476736") && !loom_initialized();
  if (me != 1) ok = ok && strstr(msg, "rank 1") != NULL;
  cfg.mem_size = 64ull << 20;
  s = loom_init(NULL, NULL, &cfg);
  fprintf(stderr, "rank %d: then loom_init with 64 MiB -> %s\n", me, loom_strerror(s));
  ok = ok && s == LOOM_OK && loom_finalize() == LOOM_OK;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Finalize();
  if (me == 0) fprintf(stderr, "init_error nomem: %s\n", all ? "every rank failed with the error: ok" : "FAIL");
  return all ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc > 1 && !strcmp(argv[1], "nomem")) return nomem(argc, argv);
  const int me = launcher_rank();
  if (me < 0) {
    fprintf(stderr, "init_error: run me under mpiexec (no PMI_RANK or OMPI_COMM_WORLD_RANK)\n");
    return 2;
  }
  if (argc > 1 && !strcmp(argv[1], "absent")) {
    if (me == 1) {
      sleep(100);
      return 0;
    }
    loom_status_t st = loom_init(&argc, &argv, NULL);
    printf("init_timeout: FAIL: loom_init returned (%d) on rank %d while rank 1 never started MPI\n", (int)st, me);
    return 1;
  }
  if (me == 1) setenv("LOOM_MEM_SIZE", "12345", 1); /* not a multiple of the page size */
  loom_status_t s = loom_init(&argc, &argv, NULL);
  const char* msg = loom_last_error();
  int ok = s == LOOM_ERR_CONFIG && strstr(msg, "LOOM_MEM_SIZE") != NULL && !loom_initialized();
  if (me != 1) ok = ok && strstr(msg, "rank 1") != NULL;
  fprintf(stderr, "rank %d: loom_init -> %s: %s\n", me, loom_strerror(s), msg);
  int inited = 0, all = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    fprintf(stderr, "rank %d: FAIL: MPI is not up after the failed loom_init\n", me);
    return 1;
  }
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Finalize();
  if (me == 0) fprintf(stderr, "init_error: %s\n", all ? "every rank failed with the error: ok" : "FAIL");
  return all ? 0 : 1;
}
