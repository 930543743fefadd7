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
 * alarm turns a hang into a quick failure).  An error storm: eight kinds of
 * bad call, each message checked for the call's own argument (its size,
 * pointer or lock id).
 *
 * The program initializes MPI itself (before loom_init), so loom_finalize
 * leaves MPI up and the test can still check the post-finalize behaviour and
 * combine the counts with MPI afterwards.
 *
 * mr_errors T runs T threads per rank between loom_init and loom_finalize
 * (the checks before loom_init and after loom_finalize stay on one thread):
 * every thread makes the non-collective bad calls at once, each on its own
 * blocks, pointers and lock ids; in the error storm a rank's threads raise
 * different errors in the same round and each then reads, after its
 * siblings raised theirs, its own loom_last_error naming its own call.  A
 * rank's thread 0 holds a lock while its siblings try to unlock it (they
 * get LOOM_ERR_BUSY naming the holder's thread, and trylock fails); then
 * they queue for it and must find what thread 0 wrote before its unlock,
 * and count under it without losing an increment.  Each thread frees a
 * block of the next thread of its rank, and its own double free is
 * refused.  The freed block of the last part is freed by the last worker
 * (a sibling of the allocator when there is one rank) and every thread
 * then gets the errors.  The collective calls stay on thread 0; guard
 * words and collective blocks are written by every worker and read by all. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* alarm, syscall with -std=c11 */
#endif
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
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

static loom_config_t g_cfg; /* the configuration, read by every thread */

/* Non-collective calls on every thread; the collective ones on thread 0. */
static void bad_allocations(uint64_t mem_size) {
  const int t0 = mr_t == 0;
  void *out = (void *)0x1234;
  CHECK_ERR(loom_alloc(64, NULL), LOOM_ERR_INVALID);
  if (t0) CHECK_ERR(loom_alloc_collective(64, NULL), LOOM_ERR_INVALID);
  CHECK(out == (void *)0x1234);

  /* Larger than the whole global memory (the size check)... */
  CHECK_ERR(loom_alloc((size_t)mem_size + PAGE, &out), LOOM_ERR_NO_MEMORY);
  CHECK(last_error_has("LOOM_MEM_SIZE"));
  CHECK_ERR(loom_alloc(SIZE_MAX, &out), LOOM_ERR_NO_MEMORY);
  if (t0) CHECK_ERR(loom_alloc_collective((size_t)mem_size + PAGE, &out), LOOM_ERR_NO_MEMORY);
  /* ...and as large as the global memory while a block is allocated (the
   * heap search). */
  CHECK_ERR(loom_alloc((size_t)mem_size, &out), LOOM_ERR_NO_MEMORY);
  if (t0) CHECK_ERR(loom_alloc_collective((size_t)mem_size, &out), LOOM_ERR_NO_MEMORY);
  CHECK(out == (void *)0x1234);

  /* Home policies and explicit homes out of range. */
  if (t0) {
    CHECK_ERR(loom_alloc_collective_at(PAGE, loom_nranks(), &out), LOOM_ERR_INVALID);
    CHECK_ERR(loom_alloc_collective_at(PAGE, -1, &out), LOOM_ERR_INVALID);
    CHECK_ERR(loom_alloc_collective_policy(PAGE, LOOM_HOME_EXPLICIT, &out), LOOM_ERR_INVALID);
    CHECK_ERR(loom_alloc_collective_policy(PAGE, (loom_home_policy_t)99, &out), LOOM_ERR_INVALID);
  }
  CHECK(out == (void *)0x1234);
}

/* Eight kinds of bad call; round k worker w makes kind (w + k) % 8, so a
 * rank's threads raise different errors in one round.  The expected
 * message names this worker's own argument. */
enum { kKinds = 8 };
static void error_storm(uint64_t *guard, int w) {
  const uint64_t mem_size = g_cfg.mem_size;
  const uint32_t nlocks = g_cfg.locks;
  char *heap = malloc(64);
  uint64_t local = 0;
  void *live = NULL, *dead = NULL, *out = (void *)0x1234;
  CHECK_OK(loom_alloc(3 * PAGE, &live));
  mr_wbar(); /* every live block exists before a dead one is freed */
  CHECK_OK(loom_alloc(2 * PAGE, &dead));
  CHECK_OK(loom_free(dead));
  mr_wbar(); /* and nobody allocates again until the storm is over */
  int wrong_status = 0, wrong_msg = 0;
  for (int round = 0; round < 3 * kKinds; round++) {
    const int kind = (w + round) % kKinds;
    char want[200];
    loom_status_t got = LOOM_OK, expect = LOOM_OK;
    uint64_t old = 99;
    int home = -7;
    switch (kind) {
    case 0: {
      const size_t sz = (size_t)mem_size + (size_t)PAGE * (size_t)(w + 1);
      got = loom_alloc(sz, &out), expect = LOOM_ERR_NO_MEMORY;
      snprintf(want, sizeof want, "loom_alloc: %zu bytes is more than", sz);
      break;
    }
    case 1:
      got = loom_free(heap + w % 32), expect = LOOM_ERR_BAD_POINTER;
      snprintf(want, sizeof want, "loom_free: %p is not inside Loom memory", (void *)(heap + w % 32));
      break;
    case 2:
      got = loom_lock(nlocks + (uint32_t)w), expect = LOOM_ERR_INVALID;
      snprintf(want, sizeof want, "loom_lock(%u): lock ids run from 0 to %u", nlocks + (uint32_t)w, nlocks - 1);
      break;
    case 3: {
      uint64_t *mis = (uint64_t *)((char *)guard + 8 * (w % 256) + 4);
      got = loom_atomic_fetch_add(mis, 1, &old), expect = LOOM_ERR_INVALID;
      snprintf(want, sizeof want, "%p is not 8-byte aligned", (void *)mis);
      break;
    }
    case 4: { /* nobody holds these lock ids (200 and up) */
      const uint32_t id = 200 + (uint32_t)w % (nlocks > 400 ? nlocks - 400 : 1);
      got = loom_unlock(id), expect = LOOM_ERR_BUSY;
      snprintf(want, sizeof want, "loom_unlock(%u): this rank does not hold the lock", id);
      break;
    }
    case 5:
      got = loom_free((char *)live + 16 * (1 + w % 64)), expect = LOOM_ERR_BAD_POINTER;
      snprintf(want, sizeof want, "loom_free of %p: not the start of a Loom block (its block starts at %p)",
               (void *)((char *)live + 16 * (1 + w % 64)), live);
      break;
    case 6:
      got = loom_free(dead), expect = LOOM_ERR_BAD_POINTER;
      snprintf(want, sizeof want, "loom_free of %p: not in a block Loom allocated, or already freed", dead);
      break;
    default:
      got = loom_home_of(&local, &home), expect = LOOM_ERR_BAD_POINTER;
      snprintf(want, sizeof want, "loom_home_of: %p is not inside Loom memory", (void *)&local);
      break;
    }
    if (got != expect || old != 99 || home != -7) {
      wrong_status++;
      fprintf(stderr, "rank %d thread %d: storm kind %d gave %s\n", loom_rank(), mr_t, kind, loom_strerror(got));
    }
    mr_rbar(); /* every sibling has raised its own error since */
    if (!last_error_has(want)) {
      wrong_msg++;
      fprintf(stderr, "rank %d thread %d: storm kind %d: last error \"%s\", expected \"%s\"\n", loom_rank(), mr_t,
              kind, loom_last_error(), want);
    }
    mr_rbar();
  }
  CHECK(wrong_status == 0);
  CHECK(wrong_msg == 0);
  CHECK(out == (void *)0x1234 && local == 0);
  CHECK_OK(loom_free(live));
  free(heap);
  mr_wbar(); /* no allocation reuses a dead block while it is still freed */
}

static void bad_frees(int w, int W) {
  (void)w;
  (void)W;
  const int rank = loom_rank(), t = mr_t, T = mr_T;
  void *heap = malloc(PAGE);
  CHECK_ERR(loom_free(heap), LOOM_ERR_BAD_POINTER);
  CHECK(last_error_has("not inside Loom memory"));
  free(heap);

  /* A single block: interior pointers, then a double free.  And a second
   * one, freed by the next thread of this rank (itself at T = 1). */
  static void *next_block[64];
  void *b = NULL, *d = NULL;
  CHECK_OK(loom_alloc(3 * PAGE, &b));
  CHECK_OK(loom_alloc(PAGE, &d));
  next_block[t] = d;
  mr_wbar(); /* every block allocated before any is freed */
  if (b) {
    CHECK_ERR(loom_free((char *)b + 8), LOOM_ERR_BAD_POINTER);
    CHECK_ERR(loom_free((char *)b + PAGE), LOOM_ERR_BAD_POINTER); /* page-aligned, not the start */
    if (t == 0 && loom_nranks() > 1) /* every rank passes its own block: the ranks disagree */
      CHECK_ERR(loom_free_collective(b), LOOM_ERR_MISMATCH);
    CHECK_OK(loom_free(b));
    CHECK_ERR(loom_free(b), LOOM_ERR_BAD_POINTER);
    CHECK(last_error_has("already freed"));
  }
  void *theirs = next_block[(t + 1) % T];
  if (theirs) CHECK_OK(loom_free(theirs));
  mr_rbar(); /* my block was freed by the thread before me */
  if (d) {
    CHECK_ERR(loom_free(d), LOOM_ERR_BAD_POINTER);
    CHECK(last_error_has("already freed"));
  }
  mr_wbar(); /* nobody allocates before every double free is made */

  /* A collective block must be freed collectively; it survives the attempt. */
  uint64_t *c = (uint64_t *)mr_walloc(2 * PAGE, -1);
  if (!c) return;
  if (w == 0) c[0] = 4242;
  c[8 + w % 1000] = 1000 + (uint64_t)w;
  mr_wbar();
  CHECK_ERR(loom_free(c), LOOM_ERR_BAD_POINTER);
  CHECK(last_error_has("loom_free_collective"));
  CHECK_ERR(loom_free(c + PAGE / 8), LOOM_ERR_BAD_POINTER); /* page-aligned, not the start */
  CHECK(last_error_has("not the start"));
  mr_wbar();
  CHECK(c[0] == 4242);
  int wrong = 0;
  for (int v = 0; v < W && v < 1000; v++) wrong += c[8 + v] != 1000 + (uint64_t)v;
  CHECK(wrong == 0);

  /* Thread 0 only, while its siblings wait: a single block freed
   * collectively (every rank gets an error, the block stays allocated,
   * and loom_free then works); a foreign pointer, and different pointers on
   * different ranks. */
  if (t == 0) {
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

    uint64_t local = 0;
    CHECK_ERR(loom_free_collective(&local), LOOM_ERR_BAD_POINTER);
    if (loom_nranks() > 1) {
      CHECK_ERR(loom_free_collective(rank == 0 ? (void *)c : (void *)((char *)c + PAGE)), LOOM_ERR_MISMATCH);
    }
  }
  mr_wbar();
  CHECK(c[0] == 4242); /* still allocated and intact */
  wrong = 0;
  for (int v = 0; v < W && v < 1000; v++) wrong += c[8 + v] != 1000 + (uint64_t)v;
  CHECK(wrong == 0);
  mr_wbar();
  if (t == 0) {
    CHECK_OK(loom_free_collective(c));
    CHECK_ERR(loom_free_collective(c), LOOM_ERR_BAD_POINTER); /* double collective free */
  }
  mr_rbar();
  CHECK_ERR(loom_free(c), LOOM_ERR_BAD_POINTER); /* every thread: freed */
  mr_wbar(); /* nobody allocates before every thread made it */
}

static void bad_locks(uint32_t nlocks) {
  CHECK_ERR(loom_lock(nlocks), LOOM_ERR_INVALID);
  CHECK(last_error_has("lock"));
  CHECK_ERR(loom_lock(UINT32_MAX), LOOM_ERR_INVALID);
  CHECK_ERR(loom_unlock(nlocks), LOOM_ERR_INVALID);
  CHECK_ERR(loom_unlock(5), LOOM_ERR_BUSY);
  CHECK(last_error_has("lock"));
  CHECK(last_error_has("does not hold"));
  /* The last valid id works; taking a held lock again is refused (every
   * worker in turn: siblings and other ranks queue for it). */
  CHECK_OK(loom_lock(nlocks - 1));
  CHECK_ERR(loom_lock(nlocks - 1), LOOM_ERR_BUSY);
  CHECK(last_error_has("this thread holds the lock already"));
  int acquired = 7;
  CHECK_OK(loom_trylock(nlocks - 1, &acquired));
  CHECK(acquired == 0);
  CHECK_OK(loom_unlock(nlocks - 1));
  CHECK_ERR(loom_unlock(nlocks - 1), LOOM_ERR_BUSY);
}

/* T > 1: thread 0 of each rank holds lock 16 + rank; its siblings may not
 * unlock it (LOOM_ERR_BUSY naming the holder's thread) nor trylock it, and
 * after their attempts the lock still excludes them: they wait for thread
 * 0's unlock, see what it wrote before, and count under it. */
static void sibling_locks(uint32_t nlocks) {
  const int rank = loom_rank(), n = loom_nranks(), t = mr_t, T = mr_T;
  if (T < 2 || 16 + (uint32_t)n > nlocks) return;
  static int holder_tid;
  uint64_t *s = (uint64_t *)mr_walloc(PAGE, -1);
  if (!s) return;
  const uint32_t L = 16 + (uint32_t)rank;
  uint64_t *x = &s[2 * rank], *count = &s[2 * rank + 1];
  if (t == 0) {
    holder_tid = (int)syscall(SYS_gettid);
    CHECK_OK(loom_lock(L));
  }
  mr_rbar();
  if (t > 0) {
    CHECK_ERR(loom_unlock(L), LOOM_ERR_BUSY);
    char want[120];
    snprintf(want, sizeof want, "another thread of this rank (thread %d) holds the lock", holder_tid);
    CHECK(last_error_has(want));
    if (!last_error_has(want)) fprintf(stderr, "rank %d: \"%s\", expected \"%s\"\n", rank, loom_last_error(), want);
    int acquired = 7;
    CHECK_OK(loom_trylock(L, &acquired));
    CHECK(acquired == 0);
  }
  mr_rbar(); /* every sibling's attempts are over; thread 0 still holds L */
  if (t == 0) {
    usleep(30000); /* the siblings queue meanwhile */
    *x = 777 + (uint64_t)rank;
    CHECK_OK(loom_unlock(L));
  } else {
    CHECK_OK(loom_lock(L));
    CHECK(*x == 777 + (uint64_t)rank);
    uint64_t c = *count;
    usleep(1000);
    *count = c + 1;
    CHECK_OK(loom_unlock(L));
  }
  mr_rbar();
  if (t == 0) CHECK(*count == (uint64_t)(T - 1));
  mr_wfree(s);
}

static void collective_mismatch(int w, int W) {
  const int rank = loom_rank(), n = loom_nranks();
  if (n < 2) return;
  if (mr_t == 0) {
    void *out = (void *)0x1234;
    CHECK_ERR(loom_alloc_collective(rank == 0 ? PAGE : 2 * PAGE, &out), LOOM_ERR_MISMATCH);
    CHECK(last_error_has("different"));
    /* Only the last rank differs, by one byte. */
    CHECK_ERR(loom_alloc_collective(rank == n - 1 ? PAGE + 1 : PAGE, &out), LOOM_ERR_MISMATCH);
    CHECK_ERR(loom_alloc_collective_at(PAGE, rank, &out), LOOM_ERR_MISMATCH);
    CHECK_ERR(loom_alloc_collective_policy(PAGE, rank == 0 ? LOOM_HOME_CYCLIC : LOOM_HOME_BLOCK, &out),
              LOOM_ERR_MISMATCH);
    CHECK(out == (void *)0x1234);
  }

  /* A normal collective allocation still works afterwards. */
  uint64_t *a = (uint64_t *)mr_walloc(3 * PAGE, -1);
  if (!a) return;
  if (mr_t == 0) {
    uint64_t mine = (uint64_t)(uintptr_t)a, lo = 0, hi = 0;
    MPI_Allreduce(&mine, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi);
  }
  CHECK(a[w] == 0);
  a[w] = (uint64_t)w + 100;
  mr_wbar();
  for (int v = 0; v < W; v++) CHECK(a[v] == (uint64_t)v + 100);
  mr_wfree(a);
}

static void bad_atomics(uint64_t *arr, int w) {
  uint64_t old = 99, local = 7;
  uint64_t *mis = (uint64_t *)((char *)arr + 8 * (w % 256) + 4);
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
 * allocated it, for a rank that used it, and for one that never touched it.
 * Worker 0 allocates it, every thread of the last rank reads it, the last
 * worker frees it, and every thread of every rank gets the errors. */
static void freed_block(int w, int W) {
  const int rank = loom_rank(), n = loom_nranks();
  static uint64_t shared_addr;
  uint64_t addr = 0;
  if (w == 0) {
    void *p = NULL;
    CHECK_OK(loom_alloc(2 * PAGE, &p));
    addr = (uint64_t)(uintptr_t)p;
    if (p) ((uint64_t *)p)[0] = 11;
  }
  if (mr_t == 0) {
    MPI_Bcast(&addr, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    shared_addr = addr;
  }
  mr_rbar();
  uint64_t *b = (uint64_t *)(uintptr_t)shared_addr;
  mr_rbar(); /* every sibling read it before the next use of the slot */
  if (!b) return;
  mr_wbar();
  if (rank == n - 1) CHECK(b[0] == 11); /* the last rank uses the block */
  mr_wbar();
  if (w == W - 1) CHECK_OK(loom_free(b)); /* not the allocator (a sibling of it at one rank) */
  mr_wbar();
  uint64_t old = 99;
  CHECK_ERR(loom_atomic_fetch_add(b, 1, &old), LOOM_ERR_BAD_POINTER);
  CHECK(last_error_has("already freed"));
  CHECK_ERR(loom_atomic_store(b + 1, 5), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_prepare(b, 16, LOOM_READ), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_prepare((char *)b + PAGE, 16, LOOM_WRITE), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_free(b), LOOM_ERR_BAD_POINTER);
  CHECK(old == 99);
  mr_wbar();
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
 * every other rank gets some error, and nobody waits forever.  Thread 0
 * makes the collective calls; every thread reads the last block. */
static void one_rank_bad_argument(int w) {
  const int rank = loom_rank(), n = loom_nranks();
  if (n < 2) return;
  if (mr_t == 0) {
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
  }
  /* Collective allocation still works. */
  uint64_t *a = (uint64_t *)mr_walloc(PAGE, -1);
  if (a) {
    if (w == 0) a[1] = 31;
    mr_wbar();
    CHECK(a[1] == 31);
    mr_wfree(a);
  }
  mr_rbar();
  if (mr_t == 0) alarm(0);
}

static void body(int w, int W) {
  const int t = mr_t;
  const uint32_t nlocks = g_cfg.locks;

  /* The guard array: written before the errors (each worker a share),
   * checked by every worker after them. */
  const size_t words = 4 * PAGE / 8 + 3; /* five pages, the last one partly */
  uint64_t *guard = (uint64_t *)mr_walloc(words * 8, -1);
  if (!guard) return;
  size_t chunk = (words + (size_t)W - 1) / (size_t)W;
  for (size_t i = (size_t)w * chunk; i < words && i < (size_t)(w + 1) * chunk; i++) guard[i] = guard_value(i);
  mr_wbar();

  check_strerror();
  bad_allocations(g_cfg.mem_size);
  error_storm(guard, w);
  bad_frees(w, W);
  bad_locks(nlocks);
  mr_wbar();
  sibling_locks(nlocks);
  collective_mismatch(w, W);
  bad_atomics(guard, w);
  bad_queries(guard);
  mr_wbar();
  freed_block(w, W);
  one_rank_bad_argument(w);

  /* Nothing above corrupted memory or left a lock held. */
  mr_wbar();
  size_t wrong = 0;
  for (size_t i = 0; i < words; i++) wrong += guard[i] != guard_value(i);
  CHECK(wrong == 0);
  CHECK_OK(loom_lock(5));
  CHECK_OK(loom_unlock(5));
  (void)t;
}

int main(int argc, char **argv) {
  int provided = 0, mpi_rank = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  const int T = mr_threads_arg(argc, argv); /* argv[1]; loom_init leaves argv alone (MPI is up) */

  before_init();
  bad_configs(mpi_rank);

  mr_init(&argc, &argv);
  const int rank = loom_rank();
  CHECK(rank == mpi_rank);
  loom_config_t cfg;
  CHECK_OK(loom_config_default(&cfg));
  CHECK_ERR(loom_init(&argc, &argv, NULL), LOOM_ERR_ALREADY_INITIALIZED);
  CHECK_ERR(loom_init(NULL, NULL, &cfg), LOOM_ERR_ALREADY_INITIALIZED);
  CHECK(loom_initialized());
  g_cfg = cfg;

  mr_workers(T, body);

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
