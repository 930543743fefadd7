/* The fork-style start (loom_start_serial, loom_spawn, loom_join): main
 * runs on rank 0 alone, sets up globals and Loom memory, and spawns a
 * worker on every rank.  Checked: each worker sees main's globals (data,
 * bss, a pointer into Loom memory, a string) as they were at each spawn;
 * the Loom memory main wrote; its own environment (copy-relocated
 * library objects are not overwritten); LOOM_SPAWN_ROOT_LAST's order of
 * first locks; the workers' writes are visible to main after the join;
 * collective calls before the spawn and a spawn from a worker are errors;
 * a page of zero-filled globals main never touches but a worker writes is
 * main's again (zero) at the next spawn (only pages some rank wrote travel,
 * and a worker's writes count).
 * Rank 0 prints "spawn_start: N passed, F failed"; the job's exit status is
 * non-zero on a failure. */
#include <loom/loom.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr.h" /* CHECK and its counts; not mr_init: only rank 0 runs main here */

enum { kTable = 5000 };

static int g_round = 7;      /* .data */
static double g_table[kTable]; /* .bss, filled by main */
static uint64_t *g_shared;   /* Loom memory: per rank {id, ok, checks, spawn_err} */
static uint32_t g_lock;
static char g_name[32];
static long g_private_result = -1; /* written by the worker numbered 0 */
static char g_worker_pages[3 * 4096] __attribute__((aligned(4096))); /* .bss: main never touches it */


static void worker(void *arg) {
  int me = loom_rank(), n = loom_nranks();
  uint64_t *mine = &g_shared[8 + 8 * me];
  int ok = arg == (void *)&g_round && *(int *)arg == g_round;
  for (int i = 0; i < kTable; i++) ok &= g_table[i] == (double)i * g_round;
  ok &= strcmp(g_name, "spawned") == 0;
  if (me != 0) {
    for (int i = 0; i < (int)sizeof g_worker_pages; i++) ok &= g_worker_pages[i] == 0;
    g_worker_pages[4096 + me % 4096] = 1; /* undone by the next spawn */
  }
  ok &= g_shared[0] == (uint64_t)g_round * 11;  /* main's write to Loom memory */
  /* Hydra gives each rank its own PMI_RANK: this rank's environment. */
  const char *pr = getenv("PMI_RANK");
  ok &= !pr || atoi(pr) == me;
  loom_lock(g_lock);
  uint64_t id = g_shared[1]++;
  loom_unlock(g_lock);
  mine[0] = id;
  mine[1] = (uint64_t)ok;
  mine[2] = (uint64_t)g_round;
  if (me != 0) mine[3] = (uint64_t)(loom_spawn(worker, NULL, 0) == LOOM_ERR_INVALID);
  if (id == 0) g_private_result = 1000 + me; /* stays on this rank */
  (void)n;
}

int main(int argc, char **argv) {
  loom_status_t s = loom_start_serial(&argc, &argv, NULL);
  if (s != LOOM_OK) {
    fprintf(stderr, "loom_start_serial: %s: %s\n", loom_strerror(s), loom_last_error());
    return 2;
  }
  /* Rank 0 only from here. */
  int n = loom_nranks();
  CHECK(loom_rank() == 0);
  CHECK(loom_serial() == 1);
  void *p = NULL;
  CHECK(loom_barrier() == LOOM_ERR_INVALID);
  CHECK(loom_alloc_collective(4096, &p) == LOOM_ERR_INVALID);
  CHECK(loom_join() == LOOM_ERR_INVALID);
  CHECK(loom_alloc((size_t)(8 + 8 * n) * 8, (void **)&g_shared) == LOOM_OK);
  CHECK(loom_lock_alloc(1, &g_lock) == LOOM_OK);
  strcpy(g_name, "spawned");
  for (int spawn = 0; spawn < 2; spawn++) {
    g_round = 7 + spawn;
    for (int i = 0; i < kTable; i++) g_table[i] = (double)i * g_round;
    g_shared[0] = (uint64_t)g_round * 11;
    g_shared[1] = 0;
    CHECK(loom_spawn(worker, &g_round, LOOM_SPAWN_ROOT_LAST) == LOOM_OK);
    CHECK(loom_spawn(worker, &g_round, 0) == LOOM_ERR_BUSY);
    worker(&g_round);
    CHECK(loom_join() == LOOM_OK);
    for (int r = 0; r < n; r++) {
      uint64_t *w = &g_shared[8 + 8 * r];
      CHECK(w[1] == 1);
      CHECK(w[2] == (uint64_t)g_round);
      /* Root last: ranks 1..n-1 take ids 0..n-2, rank 0 takes n-1. */
      CHECK(w[0] == (uint64_t)(r == 0 ? n - 1 : r - 1));
      if (r != 0) CHECK(w[3] == 1);
    }
    CHECK(g_shared[1] == (uint64_t)n);
    /* The worker numbered 0 ran on rank 1: its private global stayed there. */
    CHECK(g_private_result == (n == 1 ? 1000 : -1));
  }
  printf("spawn_start: %ld passed, %ld failed\n", mr_passed, mr_failed);
  fflush(stdout);
  return mr_failed ? 1 : 0; /* the exit finalizes every rank */
}
