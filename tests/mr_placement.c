/* LOOM_PLACEMENT (src/placement.hpp): a placement file gives the homes of
 * page ranges of the collective allocations, in the order the program
 * makes them; pages it leaves out keep their block's policy; blocks it
 * does not name are untouched; the data stays coherent.  And its errors:
 * an allocation whose size is not the file's block fails on every rank
 * naming both; a malformed line or a rank the job does not have fails
 * loom_init naming the file and the line.
 *   mr_placement DIR ok|mismatch|malformed|badrank [T]
 * (each rank writes the same file into DIR, then starts Loom with it).
 *
 * mr_placement DIR ok T runs T threads per rank (the other modes take one):
 * while thread 0 makes the collective allocations, every other thread
 * makes single-rank allocations of its own (loom_alloc, a page-sized and a
 * small one), which must not count as blocks of the file (block 2 still
 * gets the file's homes) and are homed at the rank that touched them;
 * every thread checks every page's home; each worker (rank * T + thread)
 * writes its own byte of every page, and every thread checks every
 * worker's bytes. */
#include <string.h>

#include "mr.h"

static void write_file(const char* path, const char* mode, int n) {
  FILE* f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(2);
  }
  fprintf(f, "# loom-placement 1 (mr_placement)\n");
  if (!strcmp(mode, "malformed")) fprintf(f, "block 0 pages 8\n0 4 1\nthis is not a range\n");
  else if (!strcmp(mode, "badrank")) fprintf(f, "block 0 pages 8\n0 4 %d\n", n);
  else fprintf(f, "block 0 pages %d\n0 4 1\n4 2 0\n\nblock 2 pages 3\n0 3 %d\n", !strcmp(mode, "mismatch") ? 9 : 8, n - 1);
  fclose(f);
}

/* This program started MPI, so it ends it too. */
static int finish(void) {
  const int rc = mr_finish("mr_placement");
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
  return rc;
}

static int home(const void* p) {
  int h = -2;
  CHECK_OK(loom_home_of(p, &h));
  return h;
}

static uint8_t *g_a, *g_b, *g_c;

/* The "ok" mode, on T threads of every rank. */
static void ok_body(int w, int W) {
  const int r = loom_rank(), n = loom_nranks(), t = mr_t;
  uint8_t* own[2] = {NULL, NULL}; /* a sibling's single-rank blocks */
  CHECK(W <= 4096); /* a worker's byte of a page */
  if (t == 0) {
    /* Block 0: pages 0-3 on rank 1, 4-5 on rank 0, 6-7 as the policy says. */
    CHECK_OK(loom_alloc_collective_policy(8 * 4096, LOOM_HOME_CYCLIC, (void**)&g_a));
    /* Block 1 is not named: first touch, as without a file. */
    CHECK_OK(loom_alloc_collective(4096, (void**)&g_b));
    /* Block 2 names every page: the last rank, not rank 0 as asked. */
    CHECK_OK(loom_alloc_collective_at(3 * 4096, 0, (void**)&g_c));
  } else {
    /* Meanwhile the siblings allocate for themselves: not blocks of the file. */
    CHECK_OK(loom_alloc(2 * 4096, (void**)&own[0]));
    CHECK_OK(loom_alloc(100, (void**)&own[1]));
    for (int k = 0; k < 2; k++)
      if (own[k]) memset(own[k], 30 + w + k, k ? 100 : 2 * 4096);
  }
  mr_rbar();
  uint8_t *a = g_a, *b = g_b, *c = g_c;
  for (int p = 0; p < 8; p++) {
    const int want = p < 4 ? 1 : p < 6 ? 0 : p % n;
    CHECK(home(a + p * 4096) == want);
  }
  CHECK(home(b) == -1);
  for (int p = 0; p < 3; p++) CHECK(home(c + p * 4096) == n - 1);
  if (own[0]) {
    CHECK(home(own[0]) == r && home(own[0] + 4096) == r); /* first touch: this rank */
    int bad = 0;
    for (int k = 0; k < 2; k++)
      for (int i = 0; i < (k ? 100 : 2 * 4096); i++) bad += own[k][i] != (uint8_t)(30 + w + k);
    CHECK(bad == 0);
  }
  /* Coherent as ever: each worker writes its own bytes of every page. */
  for (int p = 0; p < 8; p++) a[p * 4096 + w] = (uint8_t)(10 + w);
  for (int p = 0; p < 3; p++) c[p * 4096 + w] = (uint8_t)(20 + w);
  mr_wbar();
  int bad = 0;
  for (int q = 0; q < W; q++) {
    for (int p = 0; p < 8; p++) bad += a[p * 4096 + q] != (uint8_t)(10 + q);
    for (int p = 0; p < 3; p++) bad += c[p * 4096 + q] != (uint8_t)(20 + q);
  }
  CHECK(bad == 0);
  if (bad) fprintf(stderr, "rank %d thread %d: %d bytes wrong\n", r, t, bad);
  for (int k = 0; k < 2; k++)
    if (own[k]) CHECK_OK(loom_free(own[k]));
  mr_wbar();
}

int main(int argc, char** argv) {
  int level = 0; /* (the async transport's protocol thread needs the full level) */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
  int r = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int T = argc > 3 ? atoi(argv[3]) : 1;
  if (argc < 3 || n < 2 || T < 1 || T > 64 || (T > 1 && strcmp(argv[2], "ok"))) {
    fprintf(stderr, "usage: mr_placement DIR ok|mismatch|malformed|badrank [T] (2 ranks or more; T threads, 1..64, for ok)\n");
    return 2;
  }
  const char* mode = argv[2];
  loom_config_t cfg;
  CHECK_OK(loom_config_default(&cfg));
  snprintf(cfg.placement, sizeof cfg.placement, "%s/placement.%s.%d.txt", argv[1], mode, r);
  write_file(cfg.placement, mode, n);
  loom_status_t s = loom_init(&argc, &argv, &cfg);
  if (!strcmp(mode, "malformed") || !strcmp(mode, "badrank")) {
    CHECK(s == LOOM_ERR_CONFIG);
    CHECK(strstr(loom_last_error(), "LOOM_PLACEMENT=") != NULL);
    CHECK(strstr(loom_last_error(), !strcmp(mode, "malformed") ? "line 4" : "line 3") != NULL);
    if (r == 0) printf("mr_placement: loom_init said: %s\n", loom_last_error());
    MPI_Finalize();
    return mr_failed ? 1 : 0;
  }
  CHECK(s == LOOM_OK);
  if (s != LOOM_OK) return 1;

  uint8_t* a = NULL;
  if (!strcmp(mode, "mismatch")) {
    CHECK_ERR(loom_alloc_collective_policy(8 * 4096, LOOM_HOME_CYCLIC, (void**)&a), LOOM_ERR_MISMATCH);
    CHECK(strstr(loom_last_error(), "has 8 pages, the file's block 0 has 9") != NULL);
    return finish();
  }
  mr_workers(T, ok_body);
  return finish();
}
