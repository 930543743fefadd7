/* The loom build of the portability layer: MPI processes (ranks) of Loom
 * memory, Loom barriers and locks.  With --threads T (or $PAR_THREADS) each
 * rank runs T worker threads, so R ranks give R x T workers: worker
 * rank * T + t.  Barriers are then loom_thread_barrier; collective
 * allocation, checkpoints and the report are made by thread 0 of each rank
 * between barriers of the rank's own threads. */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <loom/loom.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"

static double g_region;
static int g_invalid;
static int g_threads = 1;     /* worker threads per rank */
static __thread int t_thread; /* this worker's thread in its rank */
static __thread double t_t0;
static pthread_barrier_t g_local; /* the rank's worker threads */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static void* g_shared;
static double g_tmax;
static int g_valid_here;

/* The rank's own threads meet (no Loom memory action). */
static void local_barrier(void) {
  if (g_threads > 1) pthread_barrier_wait(&g_local);
}

struct start {
  par_worker_fn worker;
  int argc;
  char** argv;
  int id;
  int rc;
};

static void* run(void* arg) {
  struct start* s = (struct start*)arg;
  t_thread = s->id;
  s->rc = s->worker(s->argc, s->argv);
  return NULL;
}

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
  /* drop --workers N (ranks x threads decide); take --threads T */
  const char* env = getenv("PAR_THREADS");
  if (env) g_threads = atoi(env);
  int j = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--workers") && i + 1 < argc) {
      i++;
      continue;
    }
    if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      g_threads = atoi(argv[++i]);
      continue;
    }
    argv[j++] = argv[i];
  }
  if (g_threads < 1 || g_threads > 256) {
    fprintf(stderr, "par(loom): --threads %d is out of range (1-256)\n", g_threads);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (g_threads > 1) pthread_barrier_init(&g_local, NULL, (unsigned)g_threads);
  pthread_t* th = (pthread_t*)malloc(sizeof(pthread_t) * (size_t)g_threads);
  struct start* st = (struct start*)calloc((size_t)g_threads, sizeof *st);
  for (int t = 0; t < g_threads; t++) st[t] = (struct start){worker, j, argv, t, 0};
  for (int t = 1; t < g_threads; t++) pthread_create(&th[t], NULL, run, &st[t]);
  run(&st[0]);
  int rc = st[0].rc;
  for (int t = 1; t < g_threads; t++) {
    pthread_join(th[t], NULL);
    rc |= st[t].rc;
  }
  free(th);
  free(st);
  int bad = rc != 0 || g_invalid, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  s = loom_finalize();
  if (s != LOOM_OK) die("loom_finalize", s);
  MPI_Finalize();
  return any ? 1 : 0;
}

int par_id(void) { return par_help_mode ? 0 : loom_rank() * g_threads + t_thread; }
int par_nworkers(void) { return par_help_mode ? 1 : loom_nranks() * g_threads; }
const char* par_build(void) { return "loom"; }

void* par_alloc(size_t bytes) {
  par_help_stop();
  local_barrier();
  if (t_thread == 0) {
    void* p = NULL;
    loom_status_t s = loom_alloc_collective(bytes ? bytes : 1, &p);
    if (s != LOOM_OK) die("par_alloc", s);
    g_shared = p;
  }
  local_barrier();
  void* p = g_shared;
  local_barrier(); /* every thread has read g_shared before the next allocation */
  return p;
}

void par_free(void* p) {
  local_barrier();
  if (t_thread == 0) {
    loom_status_t s = loom_free_collective(p);
    if (s != LOOM_OK) die("par_free", s);
  }
  local_barrier();
}

void par_barrier(void) {
  par_help_stop();
  loom_status_t s = g_threads > 1 ? loom_thread_barrier(g_threads) : loom_barrier();
  if (s != LOOM_OK) die("par_barrier", s);
}

void par_checkpoint(void) {
  local_barrier();
  if (t_thread == 0) {
    loom_status_t s = loom_checkpoint(NULL);
    if (s != LOOM_OK) die("par_checkpoint", s);
  }
  local_barrier();
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
  if (t_thread == 0) loom_stats_reset();
  local_barrier();
  t_t0 = par_time();
}

static loom_stats_t g_stats;

void par_region_end(void) {
  double t = par_time() - t_t0;
  pthread_mutex_lock(&g_mu);
  if (t > g_tmax) g_tmax = t;
  pthread_mutex_unlock(&g_mu);
  local_barrier();
  if (t_thread == 0) {
    loom_stats_get(&g_stats); /* before the closing barrier: its wait is not the program's */
    MPI_Allreduce(&g_tmax, &g_region, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    g_tmax = 0;
  }
  par_barrier();
}

double par_region_time(void) { return g_region; }

static void report_rank(const char* app, int valid, const char* extra);

/* Collective over every worker thread: thread 0 of each rank reports for
 * its rank's threads (valid only if every one is). */
void par_report(const char* app, int valid, const char* extra) {
  local_barrier();
  if (t_thread == 0) g_valid_here = 1;
  local_barrier();
  if (!valid) {
    __atomic_store_n(&g_valid_here, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&g_invalid, 1, __ATOMIC_RELAXED);
  }
  local_barrier();
  if (t_thread == 0) report_rank(app, g_valid_here, extra);
  local_barrier();
}

static void report_rank(const char* app, int valid, const char* extra) {
  int v = valid ? 1 : 0, all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  const loom_stats_t* s = &g_stats;
  double mine[8] = {s->t_fault, s->t_barrier, s->t_lock, s->t_unlock, s->t_diff, s->t_poll, s->t_update,
                    s->t_rank_wait},
         sum[8];
  MPI_Allreduce(mine, sum, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double cnt[8] = {(double)(s->read_faults + s->write_faults), (double)s->pages_fetched, (double)s->diffs,
                   (double)s->invalidations, (double)s->locks, (double)s->notices, (double)s->updates,
                   (double)s->locks_kept},
         csum[8];
  MPI_Allreduce(cnt, csum, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (loom_rank() != 0) return;
  int n = loom_nranks();
  double T = g_region > 0 ? g_region : 1e-9;
  printf("RESULT {\"app\": \"%s\", \"build\": \"loom\", \"workers\": %d, \"ranks\": %d, \"threads\": %d, "
         "\"time\": %.6f, \"valid\": %s, "
         "\"breakdown\": {\"fault\": %.4f, \"barrier\": %.4f, \"lock\": %.4f, \"unlock\": %.4f, \"diff\": %.4f, "
         "\"polling\": %.4f, \"update\": %.4f, \"rank_wait\": %.4f}, \"counts\": {\"faults\": %.0f, \"pages_fetched\": %.0f, "
         "\"diffs\": %.0f, \"invalidations\": %.0f, \"locks\": %.0f, \"notices\": %.0f, \"updates\": %.0f, \"locks_kept\": %.0f}%s%s}\n",
         app, n * g_threads, n, g_threads, g_region, all ? "true" : "false", sum[0] / n / T, sum[1] / n / T, sum[2] / n / T, sum[3] / n / T,
         sum[4] / n / T, sum[5] / n / T, sum[6] / n / T, sum[7] / n / T, csum[0], csum[1], csum[2], csum[3], csum[4], csum[5],
         csum[6], csum[7], extra && *extra ? ", " : "",
         extra ? extra : "");
  fflush(stdout);
}
