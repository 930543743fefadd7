/* Loom's PARMACS layer: what share/loom/splash.m4.loom expands SPLASH's
 * macros into (G_MALLOC, LOCK, BARRIER, CREATE, PAUSE, condition variables,
 * fences, CLOCK).  A program built with that macro file includes this
 * header through the macros; nothing here is needed by other programs.
 *
 * The program's thread model maps onto Loom's fork-style start: a
 * constructor (from MAIN_ENV) calls loom_start_serial before main, so main
 * runs on rank 0 alone; CREATE(fn, P) is loom_spawn, then fn on rank 0;
 * WAIT_FOR_END is loom_join; MAIN_END (exit) finalizes every rank.  P must
 * be the job's rank count.  A macro whose operation fails prints why and
 * exits (which ends the job): the pthreads calls these stand for cannot
 * fail in the programs either. */
#ifndef LOOM_SPLASH_H
#define LOOM_SPLASH_H
#include <loom/loom.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline void loom_splash_check(loom_status_t s, const char *what) {
  if (s == LOOM_OK) return;
  fprintf(stderr, "loom (SPLASH macros): %s: %s: %s\n", what, loom_strerror(s), loom_last_error());
  exit(1);
}

/* Before main (MAIN_ENV's constructor).  SPLASH programs take many locks
 * (BARNES's 2048-lock array and more): unless LOOM_LOCKS says otherwise,
 * 65536 lock ids. */
static inline void loom_splash_start(int argc, char **argv) {
  loom_config_t cfg;
  loom_splash_check(loom_config_default(&cfg), "the configuration (LOOM_* variables)");
  if (!getenv("LOOM_LOCKS") && cfg.locks < 65536) cfg.locks = 65536;
  loom_splash_check(loom_start_serial(&argc, &argv, &cfg), "loom_start_serial");
}

static inline void *loom_splash_malloc(size_t n) {
  void *p = NULL;
  loom_status_t s = loom_alloc(n, &p);
  if (s == LOOM_OK) return p;
  fprintf(stderr, "loom (SPLASH macros): G_MALLOC(%zu): %s: %s\n", n, loom_strerror(s), loom_last_error());
  return NULL;
}

static inline void loom_splash_lock_init(uint32_t *l) { loom_splash_check(loom_lock_alloc(1, l), "LOCKINIT"); }
static inline void loom_splash_alock_init(uint32_t *l, long n) {
  uint32_t first = 0;
  loom_splash_check(loom_lock_alloc((uint32_t)n, &first), "ALOCKINIT");
  for (long i = 0; i < n; i++) l[i] = first + (uint32_t)i;
}
static inline void loom_splash_lock(uint32_t l) { loom_splash_check(loom_lock(l), "LOCK"); }
static inline void loom_splash_unlock(uint32_t l) { loom_splash_check(loom_unlock(l), "UNLOCK"); }

static inline void loom_splash_procs(long p, const char *macro) {
  if (p == loom_nranks()) return;
  fprintf(stderr,
          "loom (SPLASH macros): %s for %ld processes, but the job has %d ranks: run the program with "
          "mpiexec -n %ld (each process is a rank)\n",
          macro, p, loom_nranks(), p);
  exit(1);
}

static inline void loom_splash_barrier(long p) {
  loom_splash_procs(p, "BARRIER");
  loom_splash_check(loom_barrier(), "BARRIER");
}

/* CREATE(fn, P): fn takes no argument; it travels as the spawn's argument. */
static inline void loom_splash_trampoline(void *fn) { ((void (*)(void))fn)(); }
static inline void loom_splash_create(void (*fn)(void), long p) {
  loom_splash_procs(p, "CREATE");
  loom_splash_check(loom_spawn(loom_splash_trampoline, (void *)fn, LOOM_SPAWN_ROOT_LAST), "CREATE");
  fn();
}

/* Waits on Loom atomics: spin briefly, then sleep a little longer each time
 * (up to 1 ms). */
static inline void loom_splash_backoff(long *i) {
  if (++*i < 64) return;
  if (*i < 256) {
    sched_yield();
    return;
  }
  long ns = (*i - 255) * 2000;
  struct timespec ts = {0, ns < 1000000 ? ns : 1000000};
  nanosleep(&ts, NULL);
}

/* PAUSE: a counting semaphore in a 64-bit word of Loom memory.  SETPAUSE
 * is a release, a successful WAITPAUSE an acquire. */
static inline void loom_splash_pause_set(uint64_t *w) {
  loom_splash_check(loom_atomic_fetch_add_explicit(w, 1, NULL, LOOM_RELEASE), "SETPAUSE");
}
static inline void loom_splash_pause_wait(uint64_t *w) {
  for (long i = 0;; loom_splash_backoff(&i)) {
    uint64_t v = 0, old = 0;
    loom_splash_check(loom_atomic_load(w, &v), "WAITPAUSE");
    if (v == 0) continue;
    loom_splash_check(loom_atomic_cas_explicit(w, v, v - 1, &old, LOOM_ACQUIRE), "WAITPAUSE");
    if (old == v) return;
  }
}

/* Condition variables: a sequence number in a 64-bit word of Loom memory,
 * read under the lock before it is released, so a signal after that is
 * never missed; waking re-takes the lock (the acquire).  Spurious wake-ups
 * are allowed, as with pthreads; SIGNAL wakes every waiter. */
static inline void loom_splash_cond_wait(uint64_t *cv, uint32_t lock) {
  uint64_t seq = 0, now = 0;
  loom_splash_check(loom_atomic_load(cv, &seq), "CONDVARWAIT");
  loom_splash_unlock(lock);
  for (long i = 0;; loom_splash_backoff(&i)) {
    loom_splash_check(loom_atomic_load(cv, &now), "CONDVARWAIT");
    if (now != seq) break;
  }
  loom_splash_lock(lock);
}
static inline void loom_splash_cond_signal(uint64_t *cv) {
  loom_splash_check(loom_atomic_fetch_add(cv, 1, NULL), "CONDVARSIGNAL");
}

/* CLOCK: microseconds of this rank's monotonic clock. */
static inline unsigned long loom_splash_clock(void) { return (unsigned long)(loom_wtime() * 1e6); }

#endif
