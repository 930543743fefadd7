/* sanitizer_canary: proves that a sanitizer build's tests fail when the
 * sanitizer reports.  Two ranks start Loom and take page faults on global
 * memory (Loom's SIGSEGV handler at work under the sanitizer), then rank 1
 * commits the defect named by argv[1]:
 *   heap  -- a heap-buffer-overflow (ASan),
 *   ub    -- a signed integer overflow (UBSan),
 *   segv  -- a store to an unmapped address outside Loom memory (Loom chains
 *            it to ASan's handler, which reports it),
 *   race  -- two threads write one int without synchronization (TSan).
 * tests/CMakeLists.txt runs it under mpiexec and expects a nonzero exit
 * status and the sanitizer's report. */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mr.h"

static int g_shared;

static void* racer(void* arg) {
  (void)arg;
  g_shared++;
  return NULL;
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const char* mode = argc > 1 ? argv[1] : "none";
  int* g = NULL;
  CHECK_OK(loom_alloc_collective(4 * 4096, (void**)&g));
  g[1024 * loom_rank() % 4096] = loom_rank() + 1; /* write faults */
  CHECK_OK(loom_barrier());
  CHECK(g[0] == 1); /* read fault */
  if (loom_rank() == 1) {
    if (!strcmp(mode, "heap")) {
      char* p = malloc(8);
      volatile int i = 8;
      p[i] = 1;
      free(p);
    } else if (!strcmp(mode, "ub")) {
      volatile int x = INT_MAX;
      x = x + 1;
    } else if (!strcmp(mode, "segv")) {
      *(volatile int*)(uintptr_t)4096 = 1;
    } else if (!strcmp(mode, "race")) {
      pthread_t t;
      pthread_create(&t, NULL, racer, NULL);
      g_shared++;
      pthread_join(t, NULL);
    }
  }
  CHECK_OK(loom_barrier());
  return mr_finish("sanitizer_canary");
}
