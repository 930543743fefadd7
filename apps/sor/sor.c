/* Ocean-style red-black successive over-relaxation on a 2-D grid (the
 * SPLASH-2 Ocean kernel's solver pattern): rows are split across workers,
 * each colour sweep is followed by a barrier, and every `check` iterations
 * the workers combine their residuals through shared memory to decide
 * whether to stop.
 *
 * Red-black ordering makes the result independent of the worker count, so
 * validation compares the grid bit for bit with a sequential run of the same
 * number of iterations made in the same program.
 *
 *   sor [--n 1026] [--iters 2000] [--tol 1e-6] [--omega 1.9] [--check 10] [--corrupt]
 *       [--ckpt K] [--die-at K] [--jacobi] [--root-init]
 *
 * --jacobi runs plain Jacobi instead (two grids, each sweep reads one and
 * writes the other; also independent of the worker count).  --root-init
 * has worker 0 initialize every row, as a program whose setup is serial
 * does: under first-touch homing every page is then homed on rank 0 (the
 * placement advisor's case, issue #17).
 *
 * --ckpt K checkpoints the shared memory after every K-th iteration
 * (par_checkpoint; loom: into LOOM_CHECKPOINT_DIR); --die-at K kills the
 * last worker after iteration K.  Run again with LOOM_RESTART, the program
 * gets its grid back and continues after the saved iteration; the
 * validation (a sequential run of the same iterations, bit for bit) then
 * checks that the restarted run computed exactly what an uninterrupted one
 * does (tests/checkpoint_app.sh).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"

static void boundary(double* g, int n) {
  for (int j = 0; j < n; j++) {
    g[j] = 1.0;                          /* hot top edge */
    g[(size_t)(n - 1) * n + j] = 0.0;
  }
  for (int i = 0; i < n; i++) {
    g[(size_t)i * n] = 0.5;
    g[(size_t)i * n + n - 1] = 0.0;
  }
}

/* One colour sweep over rows [r0, r1) of the interior; returns the largest
 * change. */
static double sweep(double* g, int n, int r0, int r1, int colour, double omega) {
  double dmax = 0;
  for (int i = r0 < 1 ? 1 : r0; i < r1 && i < n - 1; i++) {
    double* row = g + (size_t)i * n;
    for (int j = 1 + (i + colour) % 2; j < n - 1; j += 2) {
      double nv = 0.25 * (row[j - n] + row[j + n] + row[j - 1] + row[j + 1]);
      double d = omega * (nv - row[j]);
      row[j] += d;
      if (fabs(d) > dmax) dmax = fabs(d);
    }
  }
  return dmax;
}

/* One Jacobi sweep over rows [r0, r1) of the interior, from g into h;
 * returns the largest change. */
static double jacobi(const double* g, double* h, int n, int r0, int r1) {
  double dmax = 0;
  for (int i = r0 < 1 ? 1 : r0; i < r1 && i < n - 1; i++) {
    const double* row = g + (size_t)i * n;
    double* out = h + (size_t)i * n;
    for (int j = 1; j < n - 1; j++) {
      out[j] = 0.25 * (row[j - n] + row[j + n] + row[j - 1] + row[j + 1]);
      double d = fabs(out[j] - row[j]);
      if (d > dmax) dmax = d;
    }
  }
  return dmax;
}

static int worker(int argc, char** argv) {
  const int n = par_arg_int(argc, argv, "n", 1026);
  const int max_iters = par_arg_int(argc, argv, "iters", 2000);
  const double tol = par_arg_double(argc, argv, "tol", 1e-6);
  const double omega = par_arg_double(argc, argv, "omega", 1.9);
  const int check = par_arg_int(argc, argv, "check", 10);
  const int corrupt = par_arg_flag(argc, argv, "corrupt");
  const int ckpt = par_arg_int(argc, argv, "ckpt", 0), die_at = par_arg_int(argc, argv, "die-at", -1);
  const int use_jacobi = par_arg_flag(argc, argv, "jacobi"), root_init = par_arg_flag(argc, argv, "root-init");
  const int id = par_id(), nw = par_nworkers();
  const int r0 = (int)((long)n * id / nw), r1 = (int)((long)n * (id + 1) / nw);

  double* g = (double*)par_alloc((size_t)n * n * sizeof(double));
  double* h = use_jacobi ? (double*)par_alloc((size_t)n * n * sizeof(double)) : NULL;
  double* const blocks[2] = {g, h};
  double* resid = (double*)par_alloc((size_t)nw * 64); /* one cache line per worker */
  volatile int* done = (volatile int*)par_alloc(64);   /* iterations completed (checkpoints) */
  const int first = par_restarted() ? done[0] + 1 : 1;
  if (first == 1) {
    /* Each worker initializes its own rows (first touch places them), or
     * worker 0 all of them. */
    const int i0 = root_init ? (id == 0 ? 0 : n) : r0, i1 = root_init ? n : r1;
    for (int i = i0; i < i1; i++) {
      memset(g + (size_t)i * n, 0, (size_t)n * sizeof(double));
      if (h) memset(h + (size_t)i * n, 0, (size_t)n * sizeof(double));
    }
    par_barrier(); /* the boundary crosses every worker's rows */
    if (id == 0) {
      boundary(g, n);
      if (h) boundary(h, n);
    }
  } else {
    if (id == 0) fprintf(stderr, "sor: restarted after iteration %d\n", first - 1);
    if (h && (first - 1) % 2) { /* Jacobi: each iteration's result is in the other grid */
      g = blocks[1];
      h = blocks[0];
    }
  }
  par_barrier();

  par_region_begin();
  int it = 0;
  double res = 0;
  for (it = first; it <= max_iters; it++) {
    /* --corrupt: the last worker skips its first row in one sweep, so the
     * validation must catch it. */
    int skip = corrupt && it == 1 && id == nw - 1;
    double d;
    if (use_jacobi) {
      d = jacobi(g, h, n, r0 + skip, r1);
      double* t = g;
      g = h;
      h = t;
    } else {
      d = sweep(g, n, r0, r1, 0, omega);
      par_barrier();
      double d2 = sweep(g, n, r0 + skip, r1, 1, omega);
      if (d2 > d) d = d2;
    }
    if (it % check == 0) {
      resid[id * 8] = d;
      par_barrier();
      res = 0;
      for (int w = 0; w < nw; w++)
        if (resid[w * 8] > res) res = resid[w * 8];
      par_barrier(); /* all have read before anyone writes again */
      if (res < tol) break;
    } else {
      par_barrier();
    }
    if (ckpt > 0 && it % ckpt == 0) {
      if (id == 0) done[0] = it;
      par_checkpoint();
    }
    if (it == die_at && id == nw - 1) par_die();
  }
  if (it > max_iters) it = max_iters;
  par_region_end();

  /* Validation: the same number of iterations sequentially, bit for bit. */
  int valid = 1;
  char extra[160];
  if (id == 0) {
    double* s = (double*)calloc((size_t)n * n, sizeof(double));
    double* t = use_jacobi ? (double*)calloc((size_t)n * n, sizeof(double)) : NULL;
    boundary(s, n);
    if (t) boundary(t, n);
    for (int k = 1; k <= it; k++) {
      if (t) {
        jacobi(s, t, n, 0, n);
        double* x = s;
        s = t;
        t = x;
      } else {
        sweep(s, n, 0, n, 0, omega);
        sweep(s, n, 0, n, 1, omega);
      }
    }
    size_t diff = 0;
    for (size_t k = 0; k < (size_t)n * n; k++) diff += s[k] != g[k];
    valid = diff == 0;
    if (!valid) fprintf(stderr, "sor: %zu grid points differ from the sequential run\n", diff);
    free(s);
    free(t);
  }
  snprintf(extra, sizeof extra, "\"n\": %d, \"iterations\": %d, \"residual\": %.3e", n, it, res);
  par_report(use_jacobi ? "jacobi" : "sor", valid, extra);
  par_free((void*)done);
  par_free(resid);
  if (blocks[1]) par_free(blocks[1]);
  par_free(blocks[0]);
  return 0;
}

int main(int argc, char** argv) { return par_main(argc, argv, worker); }
