/* mr_errors: every bad input to the C API returns the documented status,
 * names its cause in loom_last_error(), leaves output parameters alone, does
 * not hang the job and does not corrupt Loom memory.
 *
 * Covered: calls before loom_init and after loom_finalize; invalid
 * configurations (every rank gets the error) and ranks disagreeing on
 * the configuration; loom_init twice; zero, oversized and unknown-policy
 * allocations; frees of foreign, interior, freed and wrong-kind pointers;
 * lock ids out of range and unlock of a lock not held; collective calls with
 * different arguments on different ranks; misaligned and foreign atomics;
 * loom_strerror of every status; atomics and loom_prepare on a freed block;
 * a collective call whose output pointer is NULL on one rank only (must
 * return an error everywhere instead of leaving the other ranks waiting; an
 * alarm turns a hang into a quick failure).
 *
 * The program initializes MPI itself (before loom_init), so loom_finalize
 * leaves MPI up and the test can still check the post-finalize behaviour and
 * combine the counts with MPI afterwards. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* alarm with -std=c11 */
#endif
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "mr.h"

#define PAGE 4096

/* The last error message mentions `word`. */
static int last_error_has(const char *word) { return strstr(loom_last_error(), word) != NULL; }

/* Value stored at word i of the guard array (written before the errors). */
static uint64_t guard_value(size_t i) { return 0x9e3779b97f4a7c15ull * (i + 1) ^ (i << 7); }

static void before_init(void) {
  void *out = (void *)0x1234;
  uint64_t word = 0, old = 77;
  loom_stats_t st;

  CHECK(!loom_initialized());
  CHECK(loom_rank() == -1);
  CHECK(loom_nranks() == 0);
  CHECK_ERR(loom_barrier(), LOOM_ERR_NOT_INITIALIZED);
  CHECK_ERR(loom_poll(), LOOM_ERR_NOT_INITIALIZED);
  CHECK(last_error_has("before loom_init"));
  CHECK_ERR(loom_alloc(64, &out), LOOM_ERR_NOT_INITIALIZED);
  CHECK_ERR(loom_alloc_collective(64, &out), LOOM_ERR_NOT_INITIALIZED);
  CHECK_ERR(loom_alloc_collective_at(64, 0, &out), LOOM_ERR_NOT_INITIALIZED);
  CHECK_ERR(loom_alloc_collective_policy(64, LOOM_HOME_CYCLIC, &out), LOOM_ERR_NOT_INITIALIZED);
  CHECK(out == (void *)0x1234); /* output untouched on failure */
  CHECK_ERR(loom_free(&word), LOOM_ERR_NOT_INITIALIZED);
  CHECK_ERR(loom_free_collective(&word), LOOM_ERR_NOT_INITIALIZED);
  CHECK_ERR(loom_lock(0), LOOM_ERR_NOT_INITIALIZED);
  CHECK_ERR(loom_unlock(0), LOOM_ERR_NOT_INITIALIZED);
  CHECK_ERR(loom_atomic_fetch_add(&word, 1, &old), LOOM_ERR_NOT_INITIALIZED);
  CHECK(old == 77 && word == 0);
  CHECK_ERR(loom_atomic_store(&word, 5), LOOM_ERR_NOT_INITIALIZED);
  CHECK(word == 0);
  CHECK_ERR(loom_prepare(&word, 8, LOOM_READ), LOOM_ERR_NOT_INITIALIZED);
  CHECK_ERR(loom_stats_get(&st), LOOM_ERR_NOT_INITIALIZED);
  CHECK_ERR(loom_finalize(), LOOM_ERR_NOT_INITIALIZED);
  CHECK(last_error_has("before loom_init"));
}

static void bad_configs(int mpi_rank) {
  loom_config_t cfg;
  CHECK_ERR(loom_config_default(NULL), LOOM_ERR_INVALID);
  CHECK_OK(loom_config_default(&cfg));

  loom_config_t bad = cfg;
  bad.mem_size = 12345; /* not a multiple of the page size */
  CHECK_ERR(loom_init(NULL, NULL, &bad), LOOM_ERR_CONFIG);
  CHECK(last_error_has("LOOM_MEM_SIZE"));
  CHECK(!loom_initialized());

  bad = cfg;
  bad.unit_pages = 0;
  CHECK_ERR(loom_init(NULL, NULL, &bad), LOOM_ERR_CONFIG);
  CHECK(last_error_has("LOOM_UNIT_PAGES"));

  bad = cfg;
  bad.locks = 0;
  CHECK_ERR(loom_init(NULL, NULL, &bad), LOOM_ERR_CONFIG);
  CHECK(last_error_has("LOOM_LOCKS"));

  bad = cfg;
  bad.home_policy = LOOM_HOME_EXPLICIT; /* explicit is per allocation only */
  CHECK_ERR(loom_init(NULL, NULL, &bad), LOOM_ERR_CONFIG);
  CHECK(!loom_initialized());

  /* Ranks disagree on the shape of the global memory: every rank is told. */
  bad = cfg;
  bad.mem_size = cfg.mem_size + (uint64_t)mpi_rank * PAGE;
  int nranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks > 1) {
    CHECK_ERR(loom_init(NULL, NULL, &bad), LOOM_ERR_MISMATCH);
    CHECK(!loom_initialized());
  }
}

static void check_strerror(void) {
  const loom_status_t all[] = {LOOM_OK, LOOM_ERR_INVALID, LOOM_ERR_NOT_INITIALIZED, LOOM_ERR_ALREADY_INITIALIZED,
                               LOOM_ERR_NO_MEMORY, LOOM_ERR_BAD_POINTER, LOOM_ERR_MISMATCH, LOOM_ERR_CONFIG,
                               LOOM_ERR_ADDRESS, LOOM_ERR_MPI, LOOM_ERR_SYSTEM, LOOM_ERR_BUSY,
                               (loom_status_t)-100};
  const int n = (int)(sizeof all / sizeof all[0]);
  for (int i = 0; i < n; i++) {
    const char *a = loom_strerror(all[i]);
    CHECK(a != NULL && a[0] != '\0');
    for (int j = 0; j < i; j++) CHECK(a && loom_strerror(all[j]) && strcmp(a, loom_strerror(all[j])) != 0);
  }
}

static void bad_allocations(uint64_t mem_size) {
  void *out = (void *)0x1234;
  CHECK_ERR(loom_alloc(64, NULL), LOOM_ERR_INVALID);
  CHECK_ERR(loom_alloc_collective(64, NULL), LOOM_ERR_INVALID);
  CHECK(out == (void *)0x1234);

  /* Larger than the whole global memory (the size check)... */
  CHECK_ERR(loom_alloc((size_t)mem_size + PAGE, &out), LOOM_ERR_NO_MEMORY);
  CHECK(last_error_has("LOOM_MEM_SIZE"));
  CHECK_ERR(loom_alloc(SIZE_MAX, &out), LOOM_ERR_NO_MEMORY);
  CHECK_ERR(loom_alloc_collective((size_t)mem_size + PAGE, &out), LOOM_ERR_NO_MEMORY);
  /* ...and as large as the global memory while a block is allocated (the
   * heap search). */
  CHECK_ERR(loom_alloc((size_t)mem_size, &out), LOOM_ERR_NO_MEMORY);
  CHECK_ERR(loom_alloc_collective((size_t)mem_size, &out), LOOM_ERR_NO_MEMORY);
  CHECK(out == (void *)0x1234);

  /* Home policies and explicit homes out of range. */
  CHECK_ERR(loom_alloc_collective_at(PAGE, loom_nranks(), &out), LOOM_ERR_INVALID);
  CHECK_ERR(loom_alloc_collective_at(PAGE, -1, &out), LOOM_ERR_INVALID);
  CHECK_ERR(loom_alloc_collective_policy(PAGE, LOOM_HOME_EXPLICIT, &out), LOOM_ERR_INVALID);
  CHECK_ERR(loom_alloc_collective_policy(PAGE, (loom_home_policy_t)99, &out), LOOM_ERR_INVALID);
  CHECK(out == (void *)0x1234);
}

static void bad_frees(void) {
  const int rank = loom_rank();
  void *heap = malloc(PAGE);
  CHECK_ERR(loom_free(heap), LOOM_ERR_BAD_POINTER);
  CHECK(last_error_has("not inside Loom memory"));
  free(heap);

  /* A single block: interior pointers, then a double free. */
  void *b = NULL;
  CHECK_OK(loom_alloc(3 * PAGE, &b));
  if (b) {
    CHECK_ERR(loom_free((char *)b + 8), LOOM_ERR_BAD_POINTER);
    CHECK_ERR(loom_free((char *)b + PAGE), LOOM_ERR_BAD_POINTER); /* page-aligned, not the start */
    if (loom_nranks() > 1) /* every rank passes its own block: the ranks disagree */
      CHECK_ERR(loom_free_collective(b), LOOM_ERR_MISMATCH);
    CHECK_OK(loom_free(b));
    CHECK_ERR(loom_free(b), LOOM_ERR_BAD_POINTER);
    CHECK(last_error_has("already freed"));
  }

  /* A collective block must be freed collectively; it survives the attempt. */
  uint64_t *c = NULL;
  CHECK_OK(loom_alloc_collective(2 * PAGE, (void **)&c));
  if (!c) return;
  if (rank == 0) c[0] = 4242;
  CHECK_OK(loom_barrier());
  CHECK_ERR(loom_free(c), LOOM_ERR_BAD_POINTER);
  CHECK(last_error_has("loom_free_collective"));
  CHECK_OK(loom_barrier());
  CHECK(c[0] == 4242);

  /* A single block freed collectively: every rank gets an error, the block
   * stays allocated, and loom_free then works. */
  uint64_t addr = 0;
  void *s = NULL;
  if (rank == 0) {
    CHECK_OK(loom_alloc(PAGE, &s));
    addr = (uint64_t)(uintptr_t)s;
  }
  MPI_Bcast(&addr, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  s = (void *)(uintptr_t)addr;
  CHECK(s != NULL);
  loom_status_t st = loom_free_collective(s);
  CHECK(st == LOOM_ERR_BAD_POINTER);
  if (st != LOOM_ERR_BAD_POINTER) fprintf(stderr, "rank %d: loom_free_collective(single block) -> %d\n", rank, st);
  CHECK_OK(loom_barrier());
  if (rank == 0) CHECK_OK(loom_free(s));
  CHECK_OK(loom_barrier());

  /* Foreign pointer and different pointers on different ranks. */
  uint64_t local = 0;
  CHECK_ERR(loom_free_collective(&local), LOOM_ERR_BAD_POINTER);
  if (loom_nranks() > 1) {
    CHECK_ERR(loom_free_collective(rank == 0 ? (void *)c : (void *)((char *)c + PAGE)), LOOM_ERR_MISMATCH);
  }
  CHECK_OK(loom_barrier());
  CHECK(c[0] == 4242); /* still allocated and intact */
  CHECK_OK(loom_free_collective(c));
  CHECK_ERR(loom_free_collective(c), LOOM_ERR_BAD_POINTER); /* double collective free */
}

static void bad_locks(uint32_t nlocks) {
  CHECK_ERR(loom_lock(nlocks), LOOM_ERR_INVALID);
  CHECK(last_error_has("lock"));
  CHECK_ERR(loom_lock(UINT32_MAX), LOOM_ERR_INVALID);
  CHECK_ERR(loom_unlock(nlocks), LOOM_ERR_INVALID);
  CHECK_ERR(loom_unlock(5), LOOM_ERR_BUSY);
  CHECK(last_error_has("lock"));
  CHECK(last_error_has("does not hold"));
  /* The last valid id works; taking a held lock again is refused. */
  CHECK_OK(loom_lock(nlocks - 1));
  CHECK_ERR(loom_lock(nlocks - 1), LOOM_ERR_BUSY);
  CHECK_OK(loom_unlock(nlocks - 1));
  CHECK_ERR(loom_unlock(nlocks - 1), LOOM_ERR_BUSY);
}

static void collective_mismatch(void) {
  const int rank = loom_rank(), n = loom_nranks();
  if (n < 2) return;
  void *out = (void *)0x1234;
  CHECK_ERR(loom_alloc_collective(rank == 0 ? PAGE : 2 * PAGE, &out), LOOM_ERR_MISMATCH);
  CHECK(last_error_has("different"));
  /* Only the last rank differs, by one byte. */
  CHECK_ERR(loom_alloc_collective(rank == n - 1 ? PAGE + 1 : PAGE, &out), LOOM_ERR_MISMATCH);
  CHECK_ERR(loom_alloc_collective_at(PAGE, rank, &out), LOOM_ERR_MISMATCH);
  CHECK_ERR(loom_alloc_collective_policy(PAGE, rank == 0 ? LOOM_HOME_CYCLIC : LOOM_HOME_BLOCK, &out),
            LOOM_ERR_MISMATCH);
  CHECK(out == (void *)0x1234);

  /* A normal collective allocation still works afterwards. */
  uint64_t *a = NULL;
  CHECK_OK(loom_alloc_collective(3 * PAGE, (void **)&a));
  if (!a) return;
  uint64_t mine = (uint64_t)(uintptr_t)a, lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  CHECK(lo == hi);
  CHECK(a[rank] == 0);
  a[rank] = (uint64_t)rank + 100;
  CHECK_OK(loom_barrier());
  for (int r = 0; r < n; r++) CHECK(a[r] == (uint64_t)r + 100);
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_free_collective(a));
}

static void bad_atomics(uint64_t *arr) {
  uint64_t old = 99, local = 7;
  uint64_t *mis = (uint64_t *)((char *)arr + 4);
  CHECK_ERR(loom_atomic_fetch_add(mis, 1, &old), LOOM_ERR_INVALID);
  CHECK(last_error_has("aligned"));
  CHECK_ERR(loom_atomic_cas(mis, 0, 1, &old), LOOM_ERR_INVALID);
  CHECK_ERR(loom_atomic_exchange(mis, 1, &old), LOOM_ERR_INVALID);
  CHECK_ERR(loom_atomic_load(mis, &old), LOOM_ERR_INVALID);
  CHECK_ERR(loom_atomic_store(mis, 1), LOOM_ERR_INVALID);
  CHECK_ERR(loom_atomic_load(arr, NULL), LOOM_ERR_INVALID);
  CHECK(old == 99);

  CHECK_ERR(loom_atomic_fetch_add(&local, 1, &old), LOOM_ERR_BAD_POINTER);
  CHECK(last_error_has("not inside Loom memory"));
  CHECK_ERR(loom_atomic_cas(&local, 7, 8, &old), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_atomic_exchange(&local, 8, &old), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_atomic_store(&local, 8), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_atomic_load(NULL, &old), LOOM_ERR_BAD_POINTER);
  CHECK(local == 7 && old == 99);
}

static void bad_queries(uint64_t *arr) {
  int home = -7;
  uint64_t local = 0;
  char small[4] = {'x', 'x', 'x', 'x'};
  CHECK_ERR(loom_home_of(&local, &home), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_home_of(arr, NULL), LOOM_ERR_INVALID);
  CHECK(home == -7);
  CHECK_ERR(loom_stats_get(NULL), LOOM_ERR_INVALID);
  CHECK_ERR(loom_stats_json(small, 0), LOOM_ERR_INVALID);
  CHECK_ERR(loom_stats_json(small, sizeof small), LOOM_ERR_INVALID);
  CHECK_ERR(loom_config_string(small, sizeof small), LOOM_ERR_INVALID);
  CHECK_ERR(loom_config_string(NULL, 100), LOOM_ERR_INVALID);
  CHECK(loom_is_shared(&local) == 0);
  CHECK(loom_is_shared(arr) == 1);
}

/* A freed single block is "already freed" for every rank: for the rank that
 * allocated it, for a rank that used it, and for one that never touched it. */
static void freed_block(void) {
  const int rank = loom_rank(), n = loom_nranks();
  uint64_t addr = 0;
  if (rank == 0) {
    void *p = NULL;
    CHECK_OK(loom_alloc(2 * PAGE, &p));
    addr = (uint64_t)(uintptr_t)p;
    if (p) ((uint64_t *)p)[0] = 11;
  }
  MPI_Bcast(&addr, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  uint64_t *b = (uint64_t *)(uintptr_t)addr;
  if (!b) return;
  CHECK_OK(loom_barrier());
  if (rank == n - 1) CHECK(b[0] == 11); /* the last rank uses the block */
  CHECK_OK(loom_barrier());
  if (rank == n - 1) CHECK_OK(loom_free(b)); /* a rank other than the allocator frees it (n > 1) */
  CHECK_OK(loom_barrier());
  uint64_t old = 99;
  CHECK_ERR(loom_atomic_fetch_add(b, 1, &old), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_atomic_store(b + 1, 5), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_prepare(b, 16, LOOM_READ), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_prepare((char *)b + PAGE, 16, LOOM_WRITE), LOOM_ERR_BAD_POINTER);
  CHECK(old == 99);
  CHECK_OK(loom_barrier());
}

static void on_alarm(int sig) {
  (void)sig;
  char msg[200];
  int len = snprintf(msg, sizeof msg,
                     "rank %d: FAIL: a collective call with a bad argument on one rank hung "
                     "(this rank so far: %ld passed, %ld failed)\n",
                     loom_rank(), mr_passed, mr_failed);
  ssize_t w = write(2, msg, (size_t)len);
  (void)w;
  _exit(1);
}

/* A bad output pointer on one rank only: that rank gets LOOM_ERR_INVALID,
 * every other rank gets some error, and nobody waits forever. */
static void one_rank_bad_argument(void) {
  const int rank = loom_rank(), n = loom_nranks();
  if (n < 2) return;
  signal(SIGALRM, on_alarm);
  alarm(30);
  void *p = (void *)0x1234;
  loom_status_t s = loom_alloc_collective(PAGE, rank == n - 1 ? NULL : &p);
  if (rank == n - 1) CHECK(s == LOOM_ERR_INVALID);
  else CHECK(s != LOOM_OK && p == (void *)0x1234);
  s = loom_alloc_collective_at(PAGE, 0, rank == 0 ? NULL : &p);
  if (rank == 0) CHECK(s == LOOM_ERR_INVALID);
  else CHECK(s != LOOM_OK && p == (void *)0x1234);
  /* Size 0 on one rank only: the ranks disagree. */
  CHECK_ERR(loom_alloc_collective(rank == 0 ? 0 : PAGE, &p), LOOM_ERR_MISMATCH);
  /* Collective allocation still works. */
  uint64_t *a = NULL;
  CHECK_OK(loom_alloc_collective(PAGE, (void **)&a));
  if (a) {
    if (rank == 0) a[1] = 31;
    CHECK_OK(loom_barrier());
    CHECK(a[1] == 31);
    CHECK_OK(loom_free_collective(a));
  }
  alarm(0);
}

int main(int argc, char **argv) {
  int provided = 0, mpi_rank = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);

  before_init();
  bad_configs(mpi_rank);

  mr_init(&argc, &argv);
  const int rank = loom_rank(), n = loom_nranks();
  CHECK(rank == mpi_rank);
  loom_config_t cfg;
  CHECK_OK(loom_config_default(&cfg));
  CHECK_ERR(loom_init(&argc, &argv, NULL), LOOM_ERR_ALREADY_INITIALIZED);
  CHECK_ERR(loom_init(NULL, NULL, &cfg), LOOM_ERR_ALREADY_INITIALIZED);
  CHECK(loom_initialized());

  /* The guard array: written before the errors, checked after them. */
  const size_t words = 4 * PAGE / 8 + 3; /* five pages, the last one partly */
  uint64_t *guard = NULL;
  CHECK_OK(loom_alloc_collective(words * 8, (void **)&guard));
  if (!guard) return mr_finish("mr_errors");
  size_t chunk = (words + (size_t)n - 1) / (size_t)n;
  for (size_t i = (size_t)rank * chunk; i < words && i < (size_t)(rank + 1) * chunk; i++) guard[i] = guard_value(i);
  CHECK_OK(loom_barrier());

  check_strerror();
  bad_allocations(cfg.mem_size);
  bad_frees();
  bad_locks(cfg.locks);
  collective_mismatch();
  bad_atomics(guard);
  bad_queries(guard);
  freed_block();
  one_rank_bad_argument();

  /* Nothing above corrupted memory or left a lock held. */
  CHECK_OK(loom_barrier());
  size_t wrong = 0;
  for (size_t i = 0; i < words; i++) wrong += guard[i] != guard_value(i);
  CHECK(wrong == 0);
  CHECK_OK(loom_lock(5));
  CHECK_OK(loom_unlock(5));

  /* Finalize, then every call reports that Loom was finalized. */
  CHECK_OK(loom_finalize());
  CHECK(!loom_initialized());
  CHECK(loom_rank() == -1);
  CHECK_ERR(loom_barrier(), LOOM_ERR_NOT_INITIALIZED);
  CHECK(last_error_has("after loom_finalize"));
  void *out = (void *)0x1234;
  CHECK_ERR(loom_alloc(64, &out), LOOM_ERR_NOT_INITIALIZED);
  CHECK(out == (void *)0x1234);
  CHECK_ERR(loom_lock(0), LOOM_ERR_NOT_INITIALIZED);
  CHECK_ERR(loom_finalize(), LOOM_ERR_NOT_INITIALIZED);

  int mpi_finalized = 1;
  MPI_Finalized(&mpi_finalized);
  CHECK(!mpi_finalized); /* Loom did not start MPI, so it left it running */
  if (mpi_finalized) {
    fprintf(stderr, "rank %d: MPI was finalized by loom_finalize\n", mpi_rank);
    return 1;
  }
  long mine[2] = {mr_passed, mr_failed}, all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (mpi_rank == 0) printf("mr_errors: %ld passed, %ld failed\n", all[0], all[1]);
  MPI_Finalize();
  return all[1] ? 1 : 0;
}
