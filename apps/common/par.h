/* par.h — the portability layer the applications are written against.
 *
 * One application source, two builds:
 *   loom     processes (ranks) started by mpiexec, each with T worker
 *            threads (--threads T or $PAR_THREADS, default 1): R ranks x T
 *            threads are R*T workers, worker rank*T + t; shared memory is
 *            Loom memory (par_loom.c);
 *   threads  one process, one thread per worker (hardware shared memory, the
 *            physical limit a DSM is measured against; par_threads.c).
 * The same inputs give the same validated answer in both builds, and the
 * ratio of their times on the same cores is the cost of the DSM.
 *
 * Conventions: every function except par_main is called by workers.  Calls
 * marked "collective" must be made by every worker in the same order.  Bad
 * use (out-of-range lock id, allocation failure) aborts with a message:
 * these are test programs, not a library.
 *
 * Command line: par_main removes "--workers N" (threads build: how many
 * threads, default $PAR_WORKERS or 2; the loom build uses ranks x threads)
 * and "--threads T" (loom build) and passes the rest to the worker.
 */
#ifndef LOOM_APPS_PAR_H
#define LOOM_APPS_PAR_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PAR_LOCKS 1024

typedef int (*par_worker_fn)(int argc, char** argv);

/* Run `worker` on every worker; returns the process exit code (non-zero if
 * any worker returned non-zero or reported an invalid result). */
int par_main(int argc, char** argv, par_worker_fn worker);

int par_id(void);
int par_nworkers(void);
const char* par_build(void); /* "loom" or "threads" */

void* par_alloc(size_t bytes); /* collective: same pointer on every worker, zeroed */
void par_free(void* p);        /* collective */
void par_barrier(void);
/* Collective: a barrier that also checkpoints the shared memory (loom:
 * loom_checkpoint into LOOM_CHECKPOINT_DIR; threads: a barrier).  After a
 * restart (loom: LOOM_RESTART), par_restarted() is 1 and the par_alloc calls,
 * made again in the same order, return the saved blocks with their data. */
void par_checkpoint(void);
int par_restarted(void);
/* Testing checkpoints: the calling worker's process dies (SIGKILL). */
void par_die(void);
void par_lock(int id);
void par_unlock(int id);
double par_time(void); /* seconds, monotonic */

/* Collective: the measured region (Loom statistics are reset at begin and
 * read at end; the region's time is the slowest worker's). */
void par_region_begin(void);
void par_region_end(void);
double par_region_time(void); /* after par_region_end */

/* Collective: worker 0 prints one line
 *   RESULT {"app": ..., "build": ..., "workers": N, "time": s, "valid": b,
 *           "breakdown": {...}, <extra>}
 * where <extra> is a string of further JSON members (may be "" or NULL) and
 * the breakdown holds the Loom time per category as a fraction of the
 * region time, averaged over workers (empty for threads). */
void par_report(const char* app, int valid, const char* extra);

/* Small helpers. */
int par_arg_int(int argc, char** argv, const char* name, int dflt);   /* --name N */
double par_arg_double(int argc, char** argv, const char* name, double dflt);
int par_arg_flag(int argc, char** argv, const char* name);            /* --name */
/* --help (or -h): par_main prints the usage; the worker runs alone, without
 * Loom, and every par_arg_* call prints its option and default; the first
 * par_alloc, par_barrier or par_region_begin ends the process (exit 0). */
extern int par_help_mode;
int par_help_start(int argc, char** argv); /* par_main: 1 when --help is given */
void par_help_stop(void);                   /* ends the process in help mode */
/* A JSON number for the extra members: v as %.3e into buf, or "null" when
 * !have (a check that did not apply).  Returns buf. */
const char* par_json_num(char* buf, size_t len, int have, double v);

#ifdef __cplusplus
}
#endif
#endif
