/* NAS MG (NPB multigrid kernel): V-cycle multigrid for the 3-D Poisson-like
 * problem A u = v on an n^3 periodic grid, following the NPB 3.3 serial
 * code: residual A with a = [-8/3, 0, 1/6, 1/12], smoother S with
 * c = [-3/8, 1/32, -1/64, 0] (classes S/W/A), restriction rprj3 (trilinear
 * weights 1/2, 1/4, 1/8, 1/16) and prolongation interp (trilinear), levels
 * n, n/2, ..., 2 (lb = 1), each grid with one ghost layer per side.  The
 * right-hand side is NPB's zran3: +1 at the 10 largest and -1 at the 10
 * smallest values of the randlc field (seed 314159265, multiplier 5^13),
 * zero elsewhere.  Like NPB, one untimed V-cycle is run first and u reset.
 * The timed part is: r = v - A u, then --iters times (V-cycle, r = v - A u),
 * then the norm ||r|| = sqrt(sum r^2 / n^3) (NPB's "L2 norm").
 *
 * Parallelization: at every level the interior z-planes are split into
 * contiguous blocks in proportion (worker w owns planes
 * [1 + N*w/nw, 1 + N*(w+1)/nw) of the N planes of the level; at coarse levels
 * with fewer planes than workers some workers own none and just wait).
 * Every grid is in shared memory, planes padded to whole 4 KiB pages, each
 * worker first-touching the planes it writes.  An operator computes its own
 * planes, fills their in-plane periodic ghosts, and the owner of plane N
 * (resp. 1) copies it into ghost plane 0 (resp. N+1); then a barrier; the
 * next operator reads its neighbours' planes from shared memory.  Plane norms
 * and the zran3 candidates go through per-worker pages of partials + barrier.
 * Every grid point is computed by the same formula whatever the worker count
 * and the norm adds per-plane partials in plane order, so the run is bitwise
 * identical to a sequential one.
 *
 * Validation (worker 0): the same code run sequentially (one worker, private
 * memory) must give bitwise-equal v, u, r grids and the same norm; the
 * residual norm must have dropped by 2^iters (at least 10, at most 1e10);
 * for NPB classes S (n 32), W (128), A (256) with 4 iterations the norm must
 * match the NPB verification value within 1e-8 relative.
 *
 *   mg [--n 64] [--iters 40] [--corrupt]
 * --corrupt: in the last V-cycle the last worker skips the fine-grid
 * smoothing of one of its planes.
 * Extra RESULT fields: n, iterations, residual_norm, initial_residual_norm,
 * residual_max, class, npb_error, and worker 0's time in resid, psinv, rprj3,
 * interp and barriers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "mg_core.h"

/* The shared-memory builds: every grid is shared, so a barrier publishes it. */
static void par_sync(mg_t* g, double* a, int k) {
  (void)g, (void)a, (void)k;
  par_barrier();
}
static void par_begin(mg_t* g) {
  (void)g;
  par_region_begin(); /* a barrier */
}
static void par_end(mg_t* g) {
  (void)g;
  par_region_end();
}

static size_t count_diff(const mg_t* a, const double* x, const double* y, int k) {
  size_t d = 0;
  const int m = a->m[k];
  for (int i3 = 0; i3 < m; i3++)
    for (int i2 = 0; i2 < m; i2++)
      for (int i1 = 0; i1 < m; i1++) {
        size_t o = (size_t)i3 * a->ps[k] + (size_t)i2 * m + i1;
        d += memcmp(&x[o], &y[o], sizeof(double)) != 0;
      }
  return d;
}

static int worker(int argc, char** argv) {
  const int n = par_arg_int(argc, argv, "n", 64);
  const int iters = par_arg_int(argc, argv, "iters", 40);
  const int corrupt = par_arg_flag(argc, argv, "corrupt");
  const int id = par_id(), nw = par_nworkers();
  const int lt = mg_levels("mg", n, iters, id != 0);
  if (lt < 0) return 2;

  mg_t g;
  mg_setup(&g, lt, id, nw);
  g.sync = par_sync;
  g.region_begin = par_begin;
  g.region_end = par_end;
  for (int k = 1; k <= lt; k++) {
    g.u[k] = (double*)par_alloc(grid_doubles(&g, k) * sizeof(double));
    g.r[k] = (double*)par_alloc(grid_doubles(&g, k) * sizeof(double));
  }
  g.v = (double*)par_alloc(grid_doubles(&g, lt) * sizeof(double));
  g.part = (double*)par_alloc(g.part_stride * (size_t)nw * sizeof(double));
  g.cand = (double*)par_alloc((size_t)PAGE_DOUBLES * nw * sizeof(double));
  /* First touch: every worker zeroes the planes it will write. */
  for (int k = 1; k <= lt; k++) {
    zero3(&g, g.u[k], k);
    zero3(&g, g.r[k], k);
  }
  zero3(&g, g.v, lt);
  memset(g.part + (size_t)id * g.part_stride, 0, g.part_stride * sizeof(double));
  memset(g.cand + (size_t)id * PAGE_DOUBLES, 0, PAGE_DOUBLES * sizeof(double));
  par_barrier();

  double rnm2_0 = 0, rnm2 = 0, rnmu = 0;
  mg_run(&g, iters, corrupt, 1, &rnm2_0, &rnm2, &rnmu);

  /* NPB verification values (classes with the S(a) smoother). */
  char cls;
  const double npb = mg_npb_value(n, iters, &cls);
  double npb_err = npb > 0 ? fabs(rnm2 - npb) / npb : 0;

  int valid = 1;
  if (id == 0) {
    mg_t s;
    mg_setup(&s, lt, 0, 1);
    s.sync = nosync;
    if (!mg_private_alloc(&s)) {
      fprintf(stderr, "mg: out of memory for the sequential run's grids\n");
      exit(2);
    }
    double s0 = 0, s2 = 0, su = 0;
    mg_run(&s, iters, 0, 0, &s0, &s2, &su);
    size_t dv = count_diff(&g, g.v, s.v, lt), du = count_diff(&g, g.u[lt], s.u[lt], lt),
           dr = count_diff(&g, g.r[lt], s.r[lt], lt);
    valid = mg_validate("mg", (long)dv, (long)du, (long)dr, rnm2, rnm2_0, s2, s0, iters, npb, cls);
    mg_private_free(&s);
  }

  char extra[640], ebuf[32];
  par_json_num(ebuf, sizeof ebuf, npb > 0, npb_err);
  /* sub-phase times: worker 0's (compute only; barrier waits separately) */
  snprintf(extra, sizeof extra,
           "\"n\": %d, \"iterations\": %d, \"class\": \"%c\", \"residual_norm\": %.13e, "
           "\"initial_residual_norm\": %.13e, \"residual_max\": %.6e, \"npb_error\": %s, \"resid_time\": %.4f, "
           "\"psinv_time\": %.4f, \"rprj3_time\": %.4f, \"interp_time\": %.4f, \"barrier_time\": %.4f",
           n, iters, cls, rnm2, rnm2_0, rnmu, ebuf, g.t_resid, g.t_psinv, g.t_rprj3, g.t_interp, g.t_sync);
  par_report("mg", valid, extra);
  par_free(g.cand);
  par_free(g.part);
  par_free(g.v);
  for (int k = lt; k >= 1; k--) {
    par_free(g.r[k]);
    par_free(g.u[k]);
  }
  free(g.s1);
  free(g.s2);
  free(g.s3);
  return 0;
}

int main(int argc, char** argv) { return par_main(argc, argv, worker); }
