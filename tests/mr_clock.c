/* The pseudo-global clock.  ctest injects LOOM_CLOCK_SKEW_NS (rank * skew
 * added to each rank's clock); the ranks share one host clock underneath, so
 * the true offset of rank r from rank 0 is exactly -r * skew.  The estimate
 * must be within the bound it reports, the bound must be small (one host),
 * global times taken on different ranks at one moment must agree, and a
 * later check must report no drift to speak of. */
#include <math.h>
#include <stdlib.h>

#include "mr.h"

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank();
  const char* s = getenv("LOOM_CLOCK_SKEW_NS");
  const double skew = s ? atof(s) * 1e-9 : 0;
  const double truth = -(double)r * skew;
  loom_clock_t c;
  CHECK_OK(loom_clock_sync(200, &c));
  CHECK(fabs(c.offset - truth) <= c.bound);
  if (fabs(c.offset - truth) > c.bound)
    fprintf(stderr, "rank %d: offset %.9f true %.9f bound %.9f\n", r, c.offset, truth, c.bound);
  CHECK(c.bound < 1e-3);            /* ranks of one host: well under a millisecond */
  CHECK(c.worst_bound >= c.bound);
  if (r == 0) CHECK(c.offset == 0 && c.bound == 0);

  /* The skewed local clocks disagree by r * skew; the global ones agree. */
  double local = loom_wtime(), global = loom_global_time();
  CHECK(fabs((global - local) - c.offset) < 1e-3);

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
  CHECK_ERR(loom_clock_sync(0, &c), LOOM_ERR_INVALID);
  return mr_finish("mr_clock");
}
