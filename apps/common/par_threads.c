/* The threads build of the portability layer: one process, one POSIX thread
 * per worker, malloc'd memory, pthread barriers and mutexes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "par.h"

static int g_n = 2;
static __thread int t_id;
static pthread_barrier_t g_bar;
static pthread_mutex_t g_locks[PAR_LOCKS];
static void* g_shared;
static double g_t0, g_region;
static int g_invalid;
static par_worker_fn g_worker;
static int g_argc;
static char** g_argv;

struct start {
  int id;
  int rc;
};

static void* run(void* arg) {
  struct start* s = (struct start*)arg;
  t_id = s->id;
  s->rc = g_worker(g_argc, g_argv);
  return NULL;
}

int par_main(int argc, char** argv, par_worker_fn worker) {
  if (par_help_start(argc, argv)) {
    g_n = 1;
    worker(argc, argv);
    par_help_stop();
  }
  const char* env = getenv("PAR_WORKERS");
  if (env) g_n = atoi(env);
  int j = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--workers") && i + 1 < argc) {
      g_n = atoi(argv[++i]);
      continue;
    }
    argv[j++] = argv[i];
  }
  if (g_n < 1 || g_n > 1024) {
    fprintf(stderr, "par(threads): --workers %d is out of range\n", g_n);
    return 2;
  }
  pthread_barrier_init(&g_bar, NULL, (unsigned)g_n);
  for (int i = 0; i < PAR_LOCKS; i++) pthread_mutex_init(&g_locks[i], NULL);
  g_worker = worker;
  g_argc = j;
  g_argv = argv;
  pthread_t* th = (pthread_t*)malloc(sizeof(pthread_t) * (size_t)g_n);
  struct start* st = (struct start*)calloc((size_t)g_n, sizeof *st);
  for (int i = 1; i < g_n; i++) {
    st[i].id = i;
    pthread_create(&th[i], NULL, run, &st[i]);
  }
  st[0].id = 0;
  run(&st[0]);
  int bad = st[0].rc != 0;
  for (int i = 1; i < g_n; i++) {
    pthread_join(th[i], NULL);
    bad |= st[i].rc != 0;
  }
  free(th);
  free(st);
  return bad || g_invalid ? 1 : 0;
}

int par_id(void) { return t_id; }
int par_nworkers(void) { return g_n; }
const char* par_build(void) { return "threads"; }

void par_barrier(void) {
  par_help_stop();
  pthread_barrier_wait(&g_bar);
}
void par_checkpoint(void) { par_barrier(); }  /* nothing outlives the process */
int par_restarted(void) { return 0; }
void par_die(void) { abort(); }

void* par_alloc(size_t bytes) {
  par_barrier();
  if (t_id == 0) {
    g_shared = calloc(1, bytes ? bytes : 1);
    if (!g_shared) {
      fprintf(stderr, "par(threads): out of memory for %zu bytes\n", bytes);
      abort();
    }
  }
  par_barrier();
  void* p = g_shared;
  par_barrier(); /* everyone has read g_shared before the next allocation */
  return p;
}

void par_free(void* p) {
  par_barrier();
  if (t_id == 0) free(p);
  par_barrier();
}

static void check_lock(int id) {
  if (id < 0 || id >= PAR_LOCKS) {
    fprintf(stderr, "par(threads): lock %d out of range\n", id);
    abort();
  }
}
void par_lock(int id) {
  check_lock(id);
  pthread_mutex_lock(&g_locks[id]);
}
void par_unlock(int id) {
  check_lock(id);
  pthread_mutex_unlock(&g_locks[id]);
}

double par_time(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void par_region_begin(void) {
  par_barrier();
  if (t_id == 0) g_t0 = par_time();
}

void par_region_end(void) {
  par_barrier();
  if (t_id == 0) g_region = par_time() - g_t0;
  par_barrier();
}

double par_region_time(void) { return g_region; }

static int g_valid_all;
void par_report(const char* app, int valid, const char* extra) {
  par_barrier();
  if (t_id == 0) g_valid_all = 1;
  par_barrier();
  if (!valid) {
    __atomic_store_n(&g_valid_all, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&g_invalid, 1, __ATOMIC_RELAXED);
  }
  par_barrier();
  if (t_id == 0) {
    printf("RESULT {\"app\": \"%s\", \"build\": \"threads\", \"workers\": %d, \"time\": %.6f, \"valid\": %s, "
           "\"breakdown\": {}, \"counts\": {}%s%s}\n",
           app, g_n, g_region, g_valid_all ? "true" : "false", extra && *extra ? ", " : "", extra ? extra : "");
    fflush(stdout);
  }
  par_barrier();
}
