/* The pseudo-global clock.  ctest injects LOOM_CLOCK_SKEW_NS (rank * skew
 * added to each rank's clock); the ranks share one host clock underneath, so
 * the true offset of rank r from rank 0 is exactly -r * skew.  The estimate
 * must be within the bound it reports, the bound must be small (one host),
 * global times taken on different ranks at one moment must agree, and a
 * later check must report no drift to speak of.
 *
 * mr_clock T runs T threads per rank: thread 0 makes the collective calls
 * (loom_clock_sync, loom_clock_check) while its siblings wait; then every
 * thread reads loom_wtime and loom_global_time at once and must find the
 * rank's offset between them.  Every worker takes the global time just
 * before and just after a barrier of all workers: each worker's time
 * before must be earlier than every worker's time after, within the two
 * ranks' bounds (with one host clock a skew left uncorrected breaks it).
 * Thread 0's argument error stays its own: its siblings' loom_last_error
 * does not report it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mr.h"

static loom_clock_t g_c, g_k;

static void body(int w, int W) {
  const int r = loom_rank(), t = mr_t;
  const char* s = getenv("LOOM_CLOCK_SKEW_NS");
  const double skew = s ? atof(s) * 1e-9 : 0;
  const double truth = -(double)r * skew;
  if (t == 0) {
    loom_clock_t c;
    CHECK_OK(loom_clock_sync(200, &c));
    CHECK(fabs(c.offset - truth) <= c.bound);
    if (fabs(c.offset - truth) > c.bound)
      fprintf(stderr, "rank %d: offset %.9f true %.9f bound %.9f\n", r, c.offset, truth, c.bound);
    CHECK(c.bound < 1e-3); /* ranks of one host: well under a millisecond */
    CHECK(c.worst_bound >= c.bound);
    if (r == 0) CHECK(c.offset == 0 && c.bound == 0);
    g_c = c;
  }
  mr_rbar();
  const loom_clock_t c = g_c;

  /* The skewed local clocks disagree by r * skew; the global ones agree,
   * read by every thread at once. */
  double local = loom_wtime(), global = loom_global_time();
  CHECK(fabs((global - local) - c.offset) < 1e-3);
  if (fabs((global - local) - c.offset) >= 1e-3)
    fprintf(stderr, "rank %d thread %d: global - local %.9f, offset %.9f\n", r, t, global - local, c.offset);

  /* Global times around a barrier of all workers: [w] before, [W + w]
   * after, [2W + w] the bound of w's rank. */
  double* tm = (double*)mr_walloc((size_t)3 * W * sizeof(double), 0);
  const double before = loom_global_time();
  mr_wbar();
  const double after = loom_global_time();
  tm[w] = before;
  tm[W + w] = after;
  tm[2 * W + w] = c.bound;
  mr_wbar();
  int bad = 0;
  for (int u = 0; u < W; u++)
    for (int v = 0; v < W; v++)
      if (tm[u] > tm[W + v] + tm[2 * W + u] + tm[2 * W + v] + 1e-9) {
        if (!bad)
          fprintf(stderr, "rank %d thread %d: worker %d's time before the barrier %.9f is after worker %d's after it %.9f\n",
                  r, t, u, tm[u], v, tm[W + v]);
        bad++;
      }
  CHECK(bad == 0);
  mr_wfree(tm);

  mr_rbar(); /* the siblings' reads are done before the next collective */
  if (t == 0) {
    loom_clock_t k;
    CHECK_OK(loom_clock_check(200, &k));
    CHECK(fabs(k.offset - truth) <= k.bound);
    /* One host clock: the two estimates agree within their bounds.  (Not
     * drift < 1e-3: drift is a rate over the time between sync and check, a
     * few ms here, so estimates a few us apart under load, well within their
     * bounds, exceeded it.) */
    CHECK(fabs(k.offset - c.offset) <= c.bound + k.bound + 1e-9);
    if (fabs(k.offset - c.offset) > c.bound + k.bound + 1e-9)
      fprintf(stderr, "rank %d: sync %.9f +- %.9f, check %.9f +- %.9f\n", r, c.offset, c.bound, k.offset, k.bound);
    g_k = k;
  }
  mr_rbar();
  /* The check changed no thread's offset. */
  local = loom_wtime();
  global = loom_global_time();
  CHECK(fabs((global - local) - c.offset) < 1e-3);

  if (t == 0) {
    loom_clock_t z = g_k;
    CHECK_ERR(loom_clock_sync(0, &z), LOOM_ERR_INVALID);
    CHECK(strstr(loom_last_error(), "loom_clock_sync") != NULL);
    CHECK(memcmp(&z, &g_k, sizeof z) == 0); /* output written only on success */
  }
  mr_rbar();
  if (t != 0) CHECK(strstr(loom_last_error(), "loom_clock_sync") == NULL); /* thread 0's error, not theirs */
  mr_rbar();
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), body);
  return mr_finish("mr_clock");
}
