/* mg_core.h — NAS MG's grids, operators and V-cycle, shared by the two
 * programs that run them: mg.c (the par.h builds: Loom and threads, every
 * grid in shared memory) and mg_mpi.c (hand-written MPI, the reference:
 * private grids, the planes a neighbour reads sent after each operator).
 * The algorithm, its decomposition and its validation are described at the
 * top of mg.c.  The includer provides par_time() (seconds, monotonic).
 */
#ifndef LOOM_APPS_MG_CORE_H
#define LOOM_APPS_MG_CORE_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nas_random.h"

#define LMAX 12
#define PAGE_DOUBLES 512
#define MM 10 /* zran3: charges of each sign */

static const double A0 = -8.0 / 3.0, A2 = 1.0 / 6.0, A3 = 1.0 / 12.0; /* a[1] = 0 */
static const double C0 = -3.0 / 8.0, C1 = 1.0 / 32.0, C2 = -1.0 / 64.0; /* c[3] = 0 */

static void vranlc(int n, double* x, double a, double* y) {
  for (int i = 0; i < n; i++) y[i] = randlc(x, a);
}
/* a^n mod 2^46 (NPB power) */
static double power(double a, long n) {
  double p = 1.0, aj = a;
  while (n != 0) {
    if (n % 2 == 1) (void)randlc(&p, aj);
    (void)randlc(&aj, aj);
    n /= 2;
  }
  return p;
}

/* ------------------------------------------------------------------ grid */
typedef struct mg_s {
  int lt, id, nw;
  int m[LMAX + 1];       /* points per side incl. ghosts: 2^k + 2 */
  size_t ps[LMAX + 1];   /* plane stride (doubles), whole pages */
  int lo[LMAX + 1], hi[LMAX + 1]; /* own interior planes [lo, hi) */
  double* u[LMAX + 1];
  double* r[LMAX + 1];
  double* v;
  double* part;          /* per-worker pages of partials (norms) */
  size_t part_stride;
  double* cand;          /* per-worker page of zran3 candidates */
  double *s1, *s2, *s3;  /* private scratch rows */
  /* After an operator wrote grid a of level k (or this worker's page of
   * g->part or g->cand, k 0): make it readable to the other workers (a
   * barrier in the shared-memory builds, the planes they read in mg_mpi). */
  void (*sync)(struct mg_s* g, double* a, int k);
  void (*region_begin)(struct mg_s* g); /* the timed part: after u = 0 */
  void (*region_end)(struct mg_s* g);
  int skip_once;         /* --corrupt: skip one fine psinv plane */
  double t_resid, t_psinv, t_rprj3, t_interp, t_sync;
} mg_t;

static void nosync(mg_t* g, double* a, int k) {
  (void)g, (void)a, (void)k;
}

static void msync(mg_t* g, double* a, int k) {
  double t = par_time();
  g->sync(g, a, k);
  g->t_sync += par_time() - t;
}

#define AT(A, ps, m, i3, i2) ((A) + (size_t)(i3) * (ps) + (size_t)(i2) * (m))

static int owner_lo(int nk, int w, int nw) { return 1 + (int)((long)nk * w / nw); }

/* Periodic ghosts inside plane i3 (NPB comm3, axes 1 and 2). */
static void comm_plane(double* a, int m, size_t ps, int i3) {
  for (int i2 = 1; i2 < m - 1; i2++) {
    double* row = AT(a, ps, m, i3, i2);
    row[0] = row[m - 2];
    row[m - 1] = row[1];
  }
  double *first = AT(a, ps, m, i3, 0), *last = AT(a, ps, m, i3, m - 1);
  const double *src1 = AT(a, ps, m, i3, m - 2), *src2 = AT(a, ps, m, i3, 1);
  for (int i1 = 0; i1 < m; i1++) {
    first[i1] = src1[i1];
    last[i1] = src2[i1];
  }
}

/* NPB comm3 axis 3: ghost plane 0 <- plane m-2 and m-1 <- 1, by their owners. */
static void ghost_planes(mg_t* g, double* a, int k) {
  int m = g->m[k];
  size_t ps = g->ps[k], n = (size_t)m * m;
  if (g->lo[k] <= m - 2 && m - 2 < g->hi[k]) memcpy(a, a + (size_t)(m - 2) * ps, n * sizeof(double));
  if (g->lo[k] <= 1 && 1 < g->hi[k]) memcpy(a + (size_t)(m - 1) * ps, a + ps, n * sizeof(double));
}

/* Zero own planes and the ghost planes this worker maintains. */
static void zero3(mg_t* g, double* a, int k) {
  int m = g->m[k];
  size_t ps = g->ps[k];
  for (int i3 = g->lo[k]; i3 < g->hi[k]; i3++) memset(a + (size_t)i3 * ps, 0, ps * sizeof(double));
  if (g->lo[k] <= m - 2 && m - 2 < g->hi[k]) memset(a, 0, ps * sizeof(double));
  if (g->lo[k] <= 1 && 1 < g->hi[k]) memset(a + (size_t)(m - 1) * ps, 0, ps * sizeof(double));
}

/* The two partial sums NPB's stencils share, for row (i3, i2) of a: s1 =
 * the 4 face neighbours across i2 and i3, s2 = the 4 edge neighbours, for
 * every i1.  Returns the row itself. */
static const double* neighbour_sums(const double* a, size_t ps, int m, int i3, int i2, double* s1, double* s2) {
  const double *am = AT(a, ps, m, i3 - 1, i2), *ap = AT(a, ps, m, i3 + 1, i2);
  const double *a0m = AT(a, ps, m, i3, i2 - 1), *a0p = AT(a, ps, m, i3, i2 + 1);
  const double *amm = AT(a, ps, m, i3 - 1, i2 - 1), *amp = AT(a, ps, m, i3 - 1, i2 + 1);
  const double *apm = AT(a, ps, m, i3 + 1, i2 - 1), *app = AT(a, ps, m, i3 + 1, i2 + 1);
  for (int i1 = 0; i1 < m; i1++) {
    s1[i1] = a0m[i1] + a0p[i1] + am[i1] + ap[i1];
    s2[i1] = amm[i1] + amp[i1] + apm[i1] + app[i1];
  }
  return AT(a, ps, m, i3, i2);
}

/* r = v - A u on own planes (v may be r). */
static void resid(mg_t* g, const double* u, const double* v, double* r, int k) {
  double t = par_time();
  const int m = g->m[k];
  const size_t ps = g->ps[k];
  double *u1 = g->s1, *u2 = g->s2;
  for (int i3 = g->lo[k]; i3 < g->hi[k]; i3++) {
    for (int i2 = 1; i2 < m - 1; i2++) {
      const double* u0 = neighbour_sums(u, ps, m, i3, i2, u1, u2);
      const double* vr = AT(v, ps, m, i3, i2);
      double* rr = AT(r, ps, m, i3, i2);
      for (int i1 = 1; i1 < m - 1; i1++)
        rr[i1] = vr[i1] - A0 * u0[i1] - A2 * (u2[i1] + u1[i1 - 1] + u1[i1 + 1]) - A3 * (u2[i1 - 1] + u2[i1 + 1]);
    }
    comm_plane(r, m, ps, i3);
  }
  ghost_planes(g, r, k);
  g->t_resid += par_time() - t;
}

/* u = u + S r on own planes. */
static void psinv(mg_t* g, const double* r, double* u, int k) {
  double t = par_time();
  const int m = g->m[k];
  const size_t ps = g->ps[k];
  double *r1 = g->s1, *r2 = g->s2;
  for (int i3 = g->lo[k]; i3 < g->hi[k]; i3++) {
    if (g->skip_once && k == g->lt) { /* --corrupt */
      g->skip_once = 0;
      continue;
    }
    for (int i2 = 1; i2 < m - 1; i2++) {
      const double* r0 = neighbour_sums(r, ps, m, i3, i2, r1, r2);
      double* uu = AT(u, ps, m, i3, i2);
      for (int i1 = 1; i1 < m - 1; i1++)
        uu[i1] = uu[i1] + C0 * r0[i1] + C1 * (r0[i1 - 1] + r0[i1 + 1] + r1[i1]) +
                 C2 * (r2[i1] + r1[i1 - 1] + r1[i1 + 1]);
    }
    comm_plane(u, m, ps, i3);
  }
  ghost_planes(g, u, k);
  g->t_psinv += par_time() - t;
}

/* s (level k-1) = P r (level k) on own coarse planes. */
static void rprj3(mg_t* g, const double* r, double* s, int k) {
  double t = par_time();
  const int mk = g->m[k], mj = g->m[k - 1];
  const size_t pk = g->ps[k], pj = g->ps[k - 1];
  double *x1 = g->s1, *y1 = g->s2;
  for (int j3 = g->lo[k - 1]; j3 < g->hi[k - 1]; j3++) {
    const int i3 = 2 * j3 - 1;
    for (int j2 = 1; j2 < mj - 1; j2++) {
      const int i2 = 2 * j2 - 1;
      const double *a00 = AT(r, pk, mk, i3, i2), *a02 = AT(r, pk, mk, i3, i2 + 2);
      const double *a11 = AT(r, pk, mk, i3 + 1, i2 + 1), *a10 = AT(r, pk, mk, i3 + 1, i2);
      const double *a12 = AT(r, pk, mk, i3 + 1, i2 + 2), *a01 = AT(r, pk, mk, i3, i2 + 1);
      const double *a21 = AT(r, pk, mk, i3 + 2, i2 + 1), *a20 = AT(r, pk, mk, i3 + 2, i2);
      const double* a22 = AT(r, pk, mk, i3 + 2, i2 + 2);
      for (int j1 = 1; j1 < mj; j1++) {
        const int i1 = 2 * j1 - 1;
        x1[i1] = a10[i1] + a12[i1] + a01[i1] + a21[i1];
        y1[i1] = a00[i1] + a20[i1] + a02[i1] + a22[i1];
      }
      double* ss = AT(s, pj, mj, j3, j2);
      for (int j1 = 1; j1 < mj - 1; j1++) {
        const int i1 = 2 * j1 - 1;
        double y2 = a00[i1 + 1] + a20[i1 + 1] + a02[i1 + 1] + a22[i1 + 1];
        double x2 = a10[i1 + 1] + a12[i1 + 1] + a01[i1 + 1] + a21[i1 + 1];
        ss[j1] = 0.5 * a11[i1 + 1] + 0.25 * (a11[i1] + a11[i1 + 2] + x2) + 0.125 * (x1[i1] + x1[i1 + 2] + y2) +
                 0.0625 * (y1[i1] + y1[i1 + 2]);
      }
    }
    comm_plane(s, mj, pj, j3);
  }
  ghost_planes(g, s, k - 1);
  g->t_rprj3 += par_time() - t;
}

/* u (level k) += Q z (level k-1) on own fine planes (NPB interp, even case;
 * it writes the in-plane ghosts itself; ghost planes are copied). */
static void interp(mg_t* g, const double* z, double* u, int k) {
  double t = par_time();
  const int n = g->m[k], mm = g->m[k - 1];
  const size_t pn = g->ps[k], pm = g->ps[k - 1];
  double *z1 = g->s1, *z2 = g->s2, *z3 = g->s3;
  for (int p = g->lo[k]; p < g->hi[k]; p++) {
    const int i3 = p / 2;
    for (int i2 = 0; i2 < mm - 1; i2++) {
      const double *z00 = AT(z, pm, mm, i3, i2), *z01 = AT(z, pm, mm, i3, i2 + 1);
      if (p % 2 == 0) {
        for (int i1 = 0; i1 < mm; i1++) z1[i1] = z01[i1] + z00[i1];
        double *ua = AT(u, pn, n, p, 2 * i2), *ub = AT(u, pn, n, p, 2 * i2 + 1);
        for (int i1 = 0; i1 < mm - 1; i1++) {
          ua[2 * i1] = ua[2 * i1] + z00[i1];
          ua[2 * i1 + 1] = ua[2 * i1 + 1] + 0.5 * (z00[i1 + 1] + z00[i1]);
        }
        for (int i1 = 0; i1 < mm - 1; i1++) {
          ub[2 * i1] = ub[2 * i1] + 0.5 * z1[i1];
          ub[2 * i1 + 1] = ub[2 * i1 + 1] + 0.25 * (z1[i1] + z1[i1 + 1]);
        }
      } else {
        const double *z10 = AT(z, pm, mm, i3 + 1, i2), *z11 = AT(z, pm, mm, i3 + 1, i2 + 1);
        for (int i1 = 0; i1 < mm; i1++) {
          z1[i1] = z01[i1] + z00[i1];
          z2[i1] = z10[i1] + z00[i1];
          z3[i1] = z11[i1] + z10[i1] + z1[i1];
        }
        double *ua = AT(u, pn, n, p, 2 * i2), *ub = AT(u, pn, n, p, 2 * i2 + 1);
        for (int i1 = 0; i1 < mm - 1; i1++) {
          ua[2 * i1] = ua[2 * i1] + 0.5 * z2[i1];
          ua[2 * i1 + 1] = ua[2 * i1 + 1] + 0.25 * (z2[i1] + z2[i1 + 1]);
        }
        for (int i1 = 0; i1 < mm - 1; i1++) {
          ub[2 * i1] = ub[2 * i1] + 0.25 * z3[i1];
          ub[2 * i1 + 1] = ub[2 * i1 + 1] + 0.125 * (z3[i1] + z3[i1 + 1]);
        }
      }
    }
  }
  ghost_planes(g, u, k);
  g->t_interp += par_time() - t;
}

/* NPB norm2u3 on the finest grid: per-plane partials, summed in plane order. */
static void norm2u3(mg_t* g, const double* r, double* rnm2, double* rnmu) {
  const int k = g->lt, m = g->m[k], nk = m - 2;
  const size_t ps = g->ps[k];
  double* mine = g->part + (size_t)g->id * g->part_stride;
  for (int i3 = g->lo[k]; i3 < g->hi[k]; i3++) {
    double s = 0, mx = 0;
    for (int i2 = 1; i2 < m - 1; i2++) {
      const double* row = AT(r, ps, m, i3, i2);
      for (int i1 = 1; i1 < m - 1; i1++) {
        s += row[i1] * row[i1];
        double a = fabs(row[i1]);
        if (a > mx) mx = a;
      }
    }
    mine[2 * (i3 - g->lo[k])] = s;
    mine[2 * (i3 - g->lo[k]) + 1] = mx;
  }
  msync(g, g->part, 0);
  double s = 0, mx = 0;
  for (int w = 0; w < g->nw; w++) {
    const double* pw = g->part + (size_t)w * g->part_stride;
    int lo = owner_lo(nk, w, g->nw), hi = owner_lo(nk, w + 1, g->nw);
    for (int i3 = lo; i3 < hi; i3++) {
      s += pw[2 * (i3 - lo)];
      if (pw[2 * (i3 - lo) + 1] > mx) mx = pw[2 * (i3 - lo) + 1];
    }
  }
  *rnm2 = sqrt(s / ((double)nk * nk * nk));
  *rnmu = mx;
}

/* NPB bubble: keep ten[0..MM-1] sorted, ten[0] the weakest; dir 1 = largest. */
static void bubble(double* ten, int (*j)[3], int dir) {
  for (int i = 0; i < MM - 1; i++) {
    if (dir ? ten[i] > ten[i + 1] : ten[i] < ten[i + 1]) {
      double t = ten[i + 1];
      ten[i + 1] = ten[i];
      ten[i] = t;
      for (int d = 0; d < 3; d++) {
        int tj = j[i + 1][d];
        j[i + 1][d] = j[i][d];
        j[i][d] = tj;
      }
    } else {
      return;
    }
  }
}

typedef struct {
  double ten[2][MM]; /* [0] smallest, [1] largest */
  int j[2][MM][3];   /* i1, i2, i3 */
} best_t;

static void best_init(best_t* b) {
  for (int i = 0; i < MM; i++) {
    b->ten[1][i] = 0.0;
    b->ten[0][i] = 1.0;
    for (int d = 0; d < 3; d++) b->j[0][i][d] = b->j[1][i][d] = 0;
  }
}
/* Offer a value to list s (1: the largest, 0: the smallest). */
static void best_offer1(best_t* b, int s, double val, int i1, int i2, int i3) {
  if (s ? val > b->ten[1][0] : val < b->ten[0][0]) {
    b->ten[s][0] = val;
    b->j[s][0][0] = i1, b->j[s][0][1] = i2, b->j[s][0][2] = i3;
    bubble(b->ten[s], b->j[s], s);
  }
}
static void best_offer(best_t* b, double val, int i1, int i2, int i3) {
  best_offer1(b, 1, val, i1, i2, i3);
  best_offer1(b, 0, val, i1, i2, i3);
}

/* NPB zran3: v = +1 at the 10 largest and -1 at the 10 smallest values of the
 * random field (each worker scans its own planes with the generator jumped
 * ahead; candidates are merged through shared memory in worker order). */
static void zran3(mg_t* g, double* v) {
  const int k = g->lt, m = g->m[k], nx = m - 2;
  const size_t ps = g->ps[k];
  const double a = 1220703125.0; /* 5^13 */
  const double a1 = power(a, nx), a2 = power(a, (long)nx * nx);
  double x0 = 314159265.0;
  (void)randlc(&x0, power(a, 0));
  for (int i3 = 1; i3 < g->lo[k]; i3++) (void)randlc(&x0, a2);
  best_t b;
  best_init(&b);
  double* row = g->s1;
  for (int i3 = g->lo[k]; i3 < g->hi[k]; i3++) {
    double x1 = x0;
    for (int i2 = 1; i2 <= nx; i2++) {
      double xx = x1;
      vranlc(nx, &xx, a, row);
      for (int i1 = 1; i1 <= nx; i1++) best_offer(&b, row[i1 - 1], i1, i2, i3);
      (void)randlc(&x1, a1);
    }
    (void)randlc(&x0, a2);
  }
  /* publish: per worker 2*MM entries of (value, i1, i2, i3) */
  double* mine = g->cand + (size_t)g->id * PAGE_DOUBLES;
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < MM; i++) {
      double* e = mine + 4 * (s * MM + i);
      e[0] = b.ten[s][i];
      for (int d = 0; d < 3; d++) e[1 + d] = b.j[s][i][d];
    }
  msync(g, g->cand, 0);
  best_t gb;
  best_init(&gb);
  for (int w = 0; w < g->nw; w++) {
    const double* c = g->cand + (size_t)w * PAGE_DOUBLES;
    for (int s = 0; s < 2; s++)
      for (int i = MM - 1; i >= 0; i--) {
        const double* e = c + 4 * (s * MM + i);
        best_offer1(&gb, s, e[0], (int)e[1], (int)e[2], (int)e[3]);
      }
  }
  zero3(g, v, k);
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < MM; i++) {
      int i1 = gb.j[s][i][0], i2 = gb.j[s][i][1], i3 = gb.j[s][i][2];
      if (i3 >= g->lo[k] && i3 < g->hi[k] && i1 > 0 && i2 > 0) AT(v, ps, m, i3, i2)[i1] = s ? 1.0 : -1.0;
    }
  for (int i3 = g->lo[k]; i3 < g->hi[k]; i3++) comm_plane(v, m, ps, i3);
  ghost_planes(g, v, k);
  msync(g, v, k);
}

/* NPB mg3P: one V-cycle. */
static void mg3P(mg_t* g) {
  const int lt = g->lt;
  for (int k = lt; k >= 2; k--) {
    rprj3(g, g->r[k], g->r[k - 1], k);
    msync(g, g->r[k - 1], k - 1);
  }
  zero3(g, g->u[1], 1);
  psinv(g, g->r[1], g->u[1], 1);
  msync(g, g->u[1], 1);
  for (int k = 2; k <= lt - 1; k++) {
    zero3(g, g->u[k], k);
    interp(g, g->u[k - 1], g->u[k], k);
    msync(g, g->u[k], k);
    resid(g, g->u[k], g->r[k], g->r[k], k);
    msync(g, g->r[k], k);
    psinv(g, g->r[k], g->u[k], k);
    msync(g, g->u[k], k);
  }
  interp(g, g->u[lt - 1], g->u[lt], lt);
  msync(g, g->u[lt], lt);
  resid(g, g->u[lt], g->v, g->r[lt], lt);
  msync(g, g->r[lt], lt);
  psinv(g, g->r[lt], g->u[lt], lt);
  msync(g, g->u[lt], lt);
}

/* Set up levels and plane ownership for worker id of nw. */
static void mg_setup(mg_t* g, int lt, int id, int nw) {
  memset(g, 0, sizeof *g);
  g->lt = lt;
  g->id = id;
  g->nw = nw;
  for (int k = 1; k <= lt; k++) {
    int nk = 1 << k;
    g->m[k] = nk + 2;
    g->ps[k] = ((size_t)g->m[k] * g->m[k] + PAGE_DOUBLES - 1) / PAGE_DOUBLES * PAGE_DOUBLES;
    g->lo[k] = owner_lo(nk, id, nw);
    g->hi[k] = owner_lo(nk, id + 1, nw);
  }
  int mmax = g->m[lt];
  g->s1 = (double*)calloc((size_t)mmax, sizeof(double));
  g->s2 = (double*)calloc((size_t)mmax, sizeof(double));
  g->s3 = (double*)calloc((size_t)mmax, sizeof(double));
  g->part_stride = ((size_t)2 * ((1 << lt) / nw + 2) + PAGE_DOUBLES - 1) / PAGE_DOUBLES * PAGE_DOUBLES;
}

static size_t grid_doubles(const mg_t* g, int k) { return (size_t)g->m[k] * g->ps[k]; }

/* The whole computation (both the parallel run and the sequential
 * reference): zran3, NPB's untimed warm-up V-cycle, then the timed part
 * between region_begin/region_end (parallel run only). */
static void mg_run(mg_t* g, int iters, int corrupt, int timed, double* rnm2_0, double* rnm2, double* rnmu) {
  const int lt = g->lt;
  zran3(g, g->v);
  resid(g, g->u[lt], g->v, g->r[lt], lt);
  msync(g, g->r[lt], lt);
  mg3P(g);
  resid(g, g->u[lt], g->v, g->r[lt], lt);
  msync(g, g->r[lt], lt); /* everyone has read u before it is reset */
  zero3(g, g->u[lt], lt);
  g->t_resid = g->t_psinv = g->t_rprj3 = g->t_interp = g->t_sync = 0;
  if (timed)
    g->region_begin(g); /* u = 0 everywhere before resid reads it */
  else
    msync(g, g->u[lt], lt);
  resid(g, g->u[lt], g->v, g->r[lt], lt);
  msync(g, g->r[lt], lt);
  double mx;
  norm2u3(g, g->r[lt], rnm2_0, &mx);
  for (int it = 1; it <= iters; it++) {
    g->skip_once = corrupt && it == iters && g->id == g->nw - 1;
    mg3P(g);
    resid(g, g->u[lt], g->v, g->r[lt], lt);
    msync(g, g->r[lt], lt);
  }
  norm2u3(g, g->r[lt], rnm2, rnmu);
  if (timed) g->region_end(g);
}

/* Private grids for g (the sequential reference, or mg_mpi's rank):
 * zeroed, every worker's pages of partials and candidates.  0 when the
 * memory could not be had (what was had is freed by mg_private_free). */
static int mg_private_alloc(mg_t* g) {
  int ok = 1;
  for (int k = 1; k <= g->lt; k++) {
    g->u[k] = (double*)calloc(grid_doubles(g, k), sizeof(double));
    g->r[k] = (double*)calloc(grid_doubles(g, k), sizeof(double));
    ok &= g->u[k] && g->r[k];
  }
  g->v = (double*)calloc(grid_doubles(g, g->lt), sizeof(double));
  g->part = (double*)calloc(g->part_stride * (size_t)g->nw, sizeof(double));
  g->cand = (double*)calloc((size_t)PAGE_DOUBLES * g->nw, sizeof(double));
  return ok && g->v && g->part && g->cand;
}

/* Frees what mg_private_alloc and mg_setup allocated. */
static void mg_private_free(mg_t* g) {
  for (int k = 1; k <= g->lt; k++) {
    free(g->u[k]);
    free(g->r[k]);
  }
  free(g->v);
  free(g->part);
  free(g->cand);
  free(g->s1);
  free(g->s2);
  free(g->s3);
}

/* The levels of an n^3 run (n = 2^lt), or -1 with a message (unless
 * quiet) where n or iters is out of range. */
static int mg_levels(const char* who, int n, int iters, int quiet) {
  int lt = 0;
  while ((1 << lt) < n) lt++;
  if (n < 4 || (1 << lt) != n || lt > LMAX || iters < 1) {
    if (!quiet) fprintf(stderr, "%s: --n must be a power of two in [4, %d], --iters >= 1\n", who, 1 << LMAX);
    return -1;
  }
  return lt;
}

/* NPB's verification value for a run of n^3 and iters iterations (classes
 * with the S(a) smoother), 0 with *cls 'U' where there is none. */
static double mg_npb_value(int n, int iters, char* cls) {
  *cls = 'U';
  if (iters != 4) return 0;
  if (n == 32) return *cls = 'S', 0.5307707005734e-04;
  if (n == 128) return *cls = 'W', 0.6467329375339e-05;
  if (n == 256) return *cls = 'A', 0.2433365309069e-05;
  return 0;
}

/* The validation: the grids' points that differ from the sequential run
 * (dv, du, dr), the norms against its (s2, s0), the residual's drop by
 * 2^iters (at least 10, at most 1e10), NPB's value where there is one.
 * Prints each failure, prefixed with who; returns 1 when valid. */
static int mg_validate(const char* who, long dv, long du, long dr, double rnm2, double rnm2_0, double s2, double s0,
                       int iters, double npb, char cls) {
  int valid = 1;
  if (dv || du || dr || rnm2 != s2 || rnm2_0 != s0) {
    valid = 0;
    fprintf(stderr,
            "%s: differs from the sequential run: %ld v, %ld u, %ld r points; norm %.17g vs %.17g "
            "(initial %.17g vs %.17g)\n",
            who, dv, du, dr, rnm2, s2, rnm2_0, s0);
  }
  double factor = pow(2.0, iters);
  if (factor < 10) factor = 10;
  if (factor > 1e10) factor = 1e10;
  if (!(rnm2 * factor <= rnm2_0)) {
    valid = 0;
    fprintf(stderr, "%s: residual norm %.3e did not drop by %.0e from %.3e\n", who, rnm2, factor, rnm2_0);
  }
  const double npb_err = npb > 0 ? fabs(rnm2 - npb) / npb : 0;
  if (npb > 0 && !(npb_err <= 1e-8)) {
    valid = 0;
    fprintf(stderr, "%s: norm %.13e differs from the NPB class %c value %.13e (rel. %.3e)\n", who, rnm2, cls, npb,
            npb_err);
  }
  return valid;
}

#endif
