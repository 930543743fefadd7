/* first_hour: what a new user sees, run by tests/first_hour.py, which checks
 * the output as well as the exit status.
 *
 *   first_hour report      version macros and functions agree; some faults,
 *                          a lock and barriers, loom_stats_reset, more of
 *                          them (the report at finalize covers the second
 *                          part only; the driver checks LOOM_STATS and
 *                          LOOM_STATS_FILE against the counts printed here)
 *   first_hour collective  collective errors: a block larger than the
 *                          memory on every rank, then different sizes on
 *                          different ranks (each must print one line)
 *   first_hour thread_call a Loom call (a barrier) from a second thread
 *                          works, and so does the next one from the first
 *   first_hour thread_fault a second thread writes a Loom page that is not
 *                          valid here: the fault is served, and the write
 *                          reaches the home at the first thread's barrier */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <string.h>

#include "mr.h"

#define PAGE 4096

static void mode_report(void) {
  CHECK(strcmp(loom_version(), LOOM_VERSION) == 0);
  CHECK(LOOM_VERSION_NUMBER == LOOM_VERSION_MAJOR * 10000 + LOOM_VERSION_MINOR * 100 + LOOM_VERSION_PATCH);
  char want[64];
  snprintf(want, sizeof want, "%d.%d.%d", LOOM_VERSION_MAJOR, LOOM_VERSION_MINOR, LOOM_VERSION_PATCH);
  CHECK(strcmp(want, LOOM_VERSION) == 0);
  const char* info = loom_build_info();
  CHECK(info && info[0] == '{' && strstr(info, "\"version\": \"" LOOM_VERSION "\"") && strstr(info, "\"commit\": \"") &&
        strstr(info, "\"compiler\": \"") && strstr(info, "\"mpi\": \""));

  const int r = loom_rank(), n = loom_nranks();
  const int pages = 8;
  uint64_t* a = NULL;
  CHECK_OK(loom_alloc_collective((size_t)pages * PAGE, (void**)&a));
  /* Before the reset: work that the report must not count. */
  for (int p = r; p < pages; p += n) a[p * (PAGE / 8)] = 1;
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_stats_reset());
  /* Measured: every rank writes its pages, then reads all of them (faults
   * on the others'), takes lock 0 three times. */
  for (int p = r; p < pages; p += n) a[p * (PAGE / 8)] = 2 + (uint64_t)p;
  CHECK_OK(loom_barrier());
  uint64_t sum = 0;
  for (int p = 0; p < pages; p++) sum += a[p * (PAGE / 8)];
  CHECK(sum == (uint64_t)(2 * pages + pages * (pages - 1) / 2));
  for (int i = 0; i < 3; i++) {
    CHECK_OK(loom_lock(0));
    a[1]++;
    CHECK_OK(loom_unlock(0));
  }
  CHECK_OK(loom_barrier());
  loom_stats_t s;
  CHECK_OK(loom_stats_get(&s));
  /* What the driver compares with the report (the finalize barrier adds one). */
  printf("rank %d counted: barriers %llu locks %llu\n", r, (unsigned long long)s.barriers + 1,
         (unsigned long long)s.locks);
  fflush(stdout);
}

static void mode_collective(void) {
  void* p = NULL;
  CHECK_ERR(loom_alloc_collective((size_t)1 << 40, &p), LOOM_ERR_NO_MEMORY);
  CHECK(strstr(loom_last_error(), "more than the global memory") != NULL);
  const size_t size = loom_rank() == loom_nranks() - 1 ? 3 * PAGE : PAGE;
  CHECK_ERR(loom_alloc_collective(size, &p), LOOM_ERR_MISMATCH);
  CHECK(strstr(loom_last_error(), "argument 1 (size) is 4096 on rank 0 but 12288 on rank") != NULL);
  CHECK_OK(loom_barrier());
}

static loom_status_t g_thread_status;
static char g_thread_msg[512];
static uint64_t* g_page;
static void* call_barrier(void* arg) {
  (void)arg;
  g_thread_status = loom_barrier();
  snprintf(g_thread_msg, sizeof g_thread_msg, "%s", loom_last_error());
  return NULL;
}
static void* touch(void* arg) {
  (void)arg;
  g_page[0] = 7; /* a page homed on another rank: a fault */
  return NULL;
}

static void mode_thread_call(void) {
  pthread_t t;
  pthread_create(&t, NULL, call_barrier, NULL);
  pthread_join(t, NULL);
  CHECK_OK(g_thread_status);
  if (g_thread_status != LOOM_OK) fprintf(stderr, "rank %d: %s\n", loom_rank(), g_thread_msg);
  CHECK_OK(loom_barrier()); /* the job goes on */
}

static void mode_thread_fault(void) {
  const int n = loom_nranks();
  CHECK_OK(loom_alloc_collective_at((size_t)PAGE, n - 1, (void**)&g_page));
  if (loom_rank() == 0) {
    pthread_t t;
    pthread_create(&t, NULL, touch, NULL);
    pthread_join(t, NULL);
  }
  CHECK_OK(loom_barrier());
  CHECK(g_page[0] == 7);
  if (loom_rank() == n - 1) printf("first_hour thread_fault: the home reads %llu\n", (unsigned long long)g_page[0]);
  CHECK_OK(loom_barrier());
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const char* mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "report")) mode_report();
  else if (!strcmp(mode, "collective")) mode_collective();
  else if (!strcmp(mode, "thread_call")) mode_thread_call();
  else if (!strcmp(mode, "thread_fault")) mode_thread_fault();
  else {
    fprintf(stderr, "usage: first_hour report|collective|thread_call|thread_fault\n");
    CHECK(0);
  }
  return mr_finish("first_hour");
}
