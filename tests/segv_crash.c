/* segv_crash: Loom's SIGSEGV handler takes only the faults that are Loom's.
 *
 *   segv_crash outside      a write to an unmapped address outside Loom memory
 *                           kills the process with SIGSEGV (exit status 139
 *                           from the shell).
 *   segv_crash unallocated  a write into Loom memory that no allocation covers
 *                           kills the process with SIGSEGV too (ctest checks
 *                           that the message names the write and the block).
 *   segv_crash past_single  a read two pages past a loom_alloc block: the
 *                           message names the read, the block and its rank.
 *   segv_crash previous     a SIGSEGV handler installed before loom_init still
 *                           gets the faults that are not Loom's, with the
 *                           faulting address, while Loom's own faults never
 *                           reach it; loom_finalize reinstalls it.  Exits 0 on
 *                           success.
 *
 * One process: MPICH starts as a singleton without mpiexec.  Run with
 * LOOM_MEM_SIZE=64M (as ctest does).  Any other exit status than the expected
 * death means the check failed (2: setup failed, 3: the access survived). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sigsetjmp, MAP_ANONYMOUS with -std=c11 */
#endif
#include <loom/loom.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

static long passed, failed;
#define CHECK(c)                                                            \
  do {                                                                      \
    if (c) passed++;                                                        \
    else {                                                                  \
      failed++;                                                             \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);          \
    }                                                                       \
  } while (0)

/* An address that was mapped a moment ago and is unmapped now. */
static volatile uint64_t *unmapped_address(void) {
  void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  munmap(p, PAGE);
  return (volatile uint64_t *)p;
}

static void start(void) {
  loom_status_t s = loom_init(NULL, NULL, NULL);
  if (s != LOOM_OK) {
    fprintf(stderr, "loom_init: %s: %s\n", loom_strerror(s), loom_last_error());
    exit(2);
  }
}

/* One collectively allocated block of `pages` pages, written and read back. */
static volatile uint64_t *working_block(size_t pages) {
  void *p = NULL;
  loom_status_t s = loom_alloc_collective(pages * PAGE, &p);
  if (s != LOOM_OK) {
    fprintf(stderr, "loom_alloc_collective: %s\n", loom_last_error());
    exit(2);
  }
  volatile uint64_t *b = (volatile uint64_t *)p;
  b[0] = 0x5eed;
  if (b[0] != 0x5eed) exit(2);
  return b;
}

static int mode_outside(void) {
  start();
  (void)working_block(1);
  volatile uint64_t *bad = unmapped_address();
  fprintf(stderr, "segv_crash outside: writing to %p (must die by SIGSEGV)\n", (void *)bad);
  *bad = 1;
  fprintf(stderr, "segv_crash outside: FAIL: the write to an unmapped address survived\n");
  return 3;
}

static int mode_unallocated(void) {
  start();
  volatile uint64_t *b = working_block(1);
  volatile uint64_t *bad = (volatile uint64_t *)((uintptr_t)b + 16 * PAGE);
  if (!loom_is_shared((const void *)bad)) {
    fprintf(stderr, "segv_crash unallocated: %p is not inside Loom memory; LOOM_MEM_SIZE too small?\n", (void *)bad);
    return 2;
  }
  fprintf(stderr, "segv_crash unallocated: writing to unallocated Loom address %p (must die by SIGSEGV)\n",
          (void *)bad);
  *bad = 1;
  fprintf(stderr, "segv_crash unallocated: FAIL: the write to unallocated Loom memory survived\n");
  return 3;
}

static int mode_past_single(void) {
  start();
  (void)working_block(1);
  void *p = NULL;
  if (loom_alloc(3 * PAGE + 8, &p) != LOOM_OK) return 2; /* 4 pages */
  volatile uint64_t *bad = (volatile uint64_t *)((uintptr_t)p + 6 * PAGE);
  fprintf(stderr, "segv_crash past_single: reading %p, two pages past the block at %p (must die by SIGSEGV)\n",
          (void *)bad, p);
  uint64_t v = *bad;
  fprintf(stderr, "segv_crash past_single: FAIL: the read survived (%llu)\n", (unsigned long long)v);
  return 3;
}

/* ---- previous: the handler installed before Loom ---------------------- */

static sigjmp_buf g_jump;
static volatile sig_atomic_t g_calls;
static void *volatile g_addr;

static void previous_handler(int sig, siginfo_t *info, void *uctx) {
  (void)uctx;
  if (sig != SIGSEGV) _exit(4);
  g_calls++;
  g_addr = info->si_addr;
  siglongjmp(g_jump, 1);
}

/* Write to addr; returns 1 if the previous handler caught a fault there. */
static int faults(volatile uint64_t *addr) {
  int before = g_calls;
  g_addr = NULL;
  if (sigsetjmp(g_jump, 1) == 0) {
    *addr = 0xdead;
    return 0;
  }
  return g_calls == before + 1;
}

static int mode_previous(void) {
  struct sigaction sa, cur;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = previous_handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, NULL) != 0) return 2;

  /* The handler works before Loom. */
  volatile uint64_t *bad = unmapped_address();
  CHECK(faults(bad));
  CHECK(g_addr == (void *)bad);

  start();
  /* Loom installed its own handler in front. */
  CHECK(sigaction(SIGSEGV, NULL, &cur) == 0);
  CHECK(cur.sa_sigaction != previous_handler);

  /* Loom's faults (first touches of a fresh block) do not reach it. */
  g_calls = 0;
  volatile uint64_t *b = working_block(4);
  b[PAGE / 8] = 7;
  CHECK(b[0] == 0x5eed && b[PAGE / 8] == 7 && b[2 * PAGE / 8] == 0);
  CHECK(g_calls == 0);

  /* A fault outside Loom memory reaches it, with the faulting address. */
  bad = unmapped_address();
  CHECK(faults(bad));
  CHECK(g_addr == (void *)bad);
  CHECK(g_calls == 1);

  /* So does a fault on Loom memory no allocation covers. */
  volatile uint64_t *hole = (volatile uint64_t *)((uintptr_t)b + 32 * PAGE + 24);
  CHECK(loom_is_shared((const void *)hole));
  CHECK(faults(hole));
  CHECK(g_addr == (void *)hole);
  CHECK(g_calls == 2);

  /* Loom still serves its own faults afterwards (a page not touched yet). */
  b[3 * PAGE / 8 + 5] = 99;
  CHECK(b[3 * PAGE / 8 + 5] == 99);
  CHECK(g_calls == 2);
  CHECK(loom_barrier() == LOOM_OK);
  CHECK(b[0] == 0x5eed && b[PAGE / 8] == 7 && b[3 * PAGE / 8 + 5] == 99);

  /* Finalize gives the signal back to the previous handler. */
  CHECK(loom_finalize() == LOOM_OK);
  CHECK(sigaction(SIGSEGV, NULL, &cur) == 0);
  CHECK(cur.sa_sigaction == previous_handler);
  CHECK((cur.sa_flags & SA_SIGINFO) != 0);
  bad = unmapped_address();
  CHECK(faults(bad));
  CHECK(g_addr == (void *)bad);
  CHECK(g_calls == 3);

  printf("segv_crash previous: %ld passed, %ld failed\n", passed, failed);
  return failed ? 1 : 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "outside")) return mode_outside();
  if (!strcmp(mode, "unallocated")) return mode_unallocated();
  if (!strcmp(mode, "past_single")) return mode_past_single();
  if (!strcmp(mode, "previous")) return mode_previous();
  fprintf(stderr, "usage: %s outside|unallocated|past_single|previous\n", argv[0]);
  return 2;
}
