/* The loom build of the portability layer: one MPI process per worker, Loom
 * memory, Loom barriers and locks. */
#include <signal.h>
#include <unistd.h>
#include <loom/loom.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"

static double g_t0, g_region;
static int g_invalid;

static void die(const char* what, loom_status_t s) {
  fprintf(stderr, "par(loom): %s: %s: %s\n", what, loom_strerror(s), loom_last_error());
  MPI_Abort(MPI_COMM_WORLD, 3);
}

int par_main(int argc, char** argv, par_worker_fn worker) {
  if (par_help_start(argc, argv)) {
    worker(argc, argv);
    par_help_stop();
  }
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  loom_status_t s = loom_init(&argc, &argv, NULL);
  if (s != LOOM_OK) die("loom_init", s);
  /* drop --workers N: the rank count decides */
  int j = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--workers") && i + 1 < argc) {
      i++;
      continue;
    }
    argv[j++] = argv[i];
  }
  int rc = worker(j, argv);
  int bad = rc != 0 || g_invalid, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  s = loom_finalize();
  if (s != LOOM_OK) die("loom_finalize", s);
  MPI_Finalize();
  return any ? 1 : 0;
}

int par_id(void) { return par_help_mode ? 0 : loom_rank(); }
int par_nworkers(void) { return par_help_mode ? 1 : loom_nranks(); }
const char* par_build(void) { return "loom"; }

void* par_alloc(size_t bytes) {
  par_help_stop();
  void* p = NULL;
  loom_status_t s = loom_alloc_collective(bytes ? bytes : 1, &p);
  if (s != LOOM_OK) die("par_alloc", s);
  return p;
}

void par_free(void* p) {
  loom_status_t s = loom_free_collective(p);
  if (s != LOOM_OK) die("par_free", s);
}

void par_barrier(void) {
  par_help_stop();
  loom_status_t s = loom_barrier();
  if (s != LOOM_OK) die("par_barrier", s);
}

void par_checkpoint(void) {
  loom_status_t s = loom_checkpoint(NULL);
  if (s != LOOM_OK) die("par_checkpoint", s);
}

int par_restarted(void) { return loom_restarted(); }

void par_die(void) {
  fflush(stdout);
  fflush(stderr);
  kill(getpid(), SIGKILL);
}

void par_lock(int id) {
  loom_status_t s = loom_lock((uint32_t)id);
  if (s != LOOM_OK) die("par_lock", s);
}

void par_unlock(int id) {
  loom_status_t s = loom_unlock((uint32_t)id);
  if (s != LOOM_OK) die("par_unlock", s);
}

double par_time(void) { return loom_wtime(); }

void par_region_begin(void) {
  par_barrier();
  loom_stats_reset();
  g_t0 = par_time();
}

static loom_stats_t g_stats;

void par_region_end(void) {
  double t = par_time() - g_t0;
  loom_stats_get(&g_stats); /* before the closing barrier: its wait is not the program's */
  MPI_Allreduce(&t, &g_region, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  par_barrier();
}

double par_region_time(void) { return g_region; }

void par_report(const char* app, int valid, const char* extra) {
  if (!valid) g_invalid = 1;
  int v = valid ? 1 : 0, all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  const loom_stats_t* s = &g_stats;
  double mine[7] = {s->t_fault, s->t_barrier, s->t_lock, s->t_unlock, s->t_diff, s->t_poll, s->t_update}, sum[7];
  MPI_Allreduce(mine, sum, 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double cnt[7] = {(double)(s->read_faults + s->write_faults), (double)s->pages_fetched, (double)s->diffs,
                   (double)s->invalidations, (double)s->locks, (double)s->notices, (double)s->updates},
         csum[7];
  MPI_Allreduce(cnt, csum, 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (loom_rank() != 0) return;
  int n = loom_nranks();
  double T = g_region > 0 ? g_region : 1e-9;
  printf("RESULT {\"app\": \"%s\", \"build\": \"loom\", \"workers\": %d, \"time\": %.6f, \"valid\": %s, "
         "\"breakdown\": {\"fault\": %.4f, \"barrier\": %.4f, \"lock\": %.4f, \"unlock\": %.4f, \"diff\": %.4f, "
         "\"polling\": %.4f, \"update\": %.4f}, \"counts\": {\"faults\": %.0f, \"pages_fetched\": %.0f, "
         "\"diffs\": %.0f, \"invalidations\": %.0f, \"locks\": %.0f, \"notices\": %.0f, \"updates\": %.0f}%s%s}\n",
         app, n, g_region, all ? "true" : "false", sum[0] / n / T, sum[1] / n / T, sum[2] / n / T, sum[3] / n / T,
         sum[4] / n / T, sum[5] / n / T, sum[6] / n / T, csum[0], csum[1], csum[2], csum[3], csum[4], csum[5],
         csum[6], extra && *extra ? ", " : "",
         extra ? extra : "");
  fflush(stdout);
}
