/* NAS LU (NPB "lower-upper" pseudo-application): the 3-D compressible
 * Navier-Stokes equations on an n^3 grid, discretized with second-order
 * central differences and fourth-order artificial dissipation, solved to a
 * steady state by symmetric successive over-relaxation (SSOR): every
 * iteration factors the implicit operator into a block lower and a block
 * upper triangular part (5x5 blocks, one per grid point) and solves
 *   (D + omega L) D^-1 (D + omega U) du = dt R(u),  u += du / (omega (2 - omega))
 * with omega = 1.2, then recomputes the residual R(u) = F - div(fluxes).
 * Second-order dissipation 0.75 across x and y, 1.0 across z; fourth-order
 * dissipation 1/4 of the largest.
 * The forcing F is chosen so that a known polynomial (13 coefficients per
 * component) is the steady solution; the boundary holds that polynomial and
 * the interior starts from its transfinite interpolation.  Written here
 * from the NPB specification: the same coefficients, dissipation, Jacobian
 * blocks and SSOR schedule as the NPB 3.x serial program, so the NPB
 * verification values apply.
 *
 * Parallelization: the interior j-rows (y) are split into contiguous blocks,
 * one per worker.  The grid arrays u, rsd (the residual, overwritten by the
 * update in the sweeps), frct (the forcing) and the point scalars 1/rho and
 * q live in shared memory, laid out j-slab by j-slab, each slab padded to
 * whole 4 KiB pages, so a worker's rows are its own pages (first-touched by
 * it).  The residual of a row reads u two rows away in y, i.e. the
 * neighbours' rows, after a barrier.  The triangular solves are a pipelined
 * wavefront in k: the lower sweep at point (i, j, k) needs (i-1, j, k),
 * (i, j-1, k) and (i, j, k-1), so worker w solves its rows of plane k at
 * step k + w, after worker w-1 finished plane k at the step before; the
 * upper sweep runs the other way (worker w waits for w+1).  par.h has no
 * point-to-point signal, so the steps are separated by barriers:
 * (nz - 2) + (workers - 1) per sweep, which is also what makes the
 * neighbour's row visible under release consistency.  --kblock B makes a
 * step B planes (fewer barriers, longer pipeline fill; 1, NPB's choice, by
 * default).  Every grid value is computed by the same formula in the same
 * order whatever the worker count, and the norms are summed by worker 0 in
 * NPB's order, so a run is bitwise identical to a sequential one.
 *
 * Validation (worker 0): for an NPB class run as specified (size, itmax,
 * dt), the five residual norms rsdnm, the five error norms errnm (against
 * the exact solution) and the surface integral frc must match NPB's
 * published values within 1e-8 relative (NPB's own tolerance).  Any other
 * run (--itmax, --n, --dt) is checked instead against the same code run
 * sequentially in private memory, bit for bit.  Like NPB, the timed part is
 * the SSOR iterations; unlike NPB, no untimed warm-up iteration is run and
 * the norm of the update (delunm) is not computed (it is not verified).
 *
 *   nas_lu [--class S|W|A (W)] [--itmax N] [--n N --dt X] [--kblock 1] [--corrupt]
 * Classes: S 12^3, 50 iterations, dt 0.5; W 33^3, 300, 1.5e-3 (the default,
 * the size the SS-VIA paper measured); A 64^3, 250, 2.0.
 * --corrupt: in the last iteration the last worker skips the update of u on
 * its first row.
 * Extra RESULT fields: class, n, itmax, dt, kblock, rsdnm, errnm, frc, npb_error
 * (largest relative difference to the NPB values, or null), and worker 0's
 * time in the lower sweep, the upper sweep, the residual and barriers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"

#define PAGE_DOUBLES 512

/* Physical and numerical constants (NPB's c1..c5, omega). */
static const double C1 = 1.40, C2 = 0.40, C3 = 1.00e-1, C4 = 1.00, C5 = 1.40;
static const double OMEGA = 1.2;
/* Second-order dissipation per direction (x, y, z; the same for the five
 * components); the fourth-order one is the largest over 4. */
static const double DCOEF[3] = {0.75, 0.75, 1.00};
static const double R43 = 4.0 / 3.0;

/* Exact solution u_m(xi, eta, zeta) = ce[m][0] + polynomials of degree 4 in
 * xi (ce 1, 4, 7, 10), eta (2, 5, 8, 11) and zeta (3, 6, 9, 12). */
static const double CE[5][13] = {
    {2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 0.5, 0.02, 0.01, 0.03, 0.5, 0.4, 0.3},
    {1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.01, 0.03, 0.02, 0.4, 0.3, 0.5},
    {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.04, 0.03, 0.05, 0.3, 0.5, 0.4},
    {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.03, 0.05, 0.04, 0.2, 0.1, 0.3},
    {5.0, 4.0, 3.0, 2.0, 0.1, 0.4, 0.3, 0.05, 0.04, 0.03, 0.1, 0.3, 0.2},
};

/* NPB classes and their published verification values. */
struct npb_class {
  char name;
  int n, itmax;
  double dt;
  double rsdnm[5], errnm[5], frc;
};
static const struct npb_class classes[] = {
    {'S', 12, 50, 0.5,
     {1.6196343210976702e-02, 2.1976745164821318e-03, 1.5179927653399185e-03, 1.5029584435994323e-03,
      3.4264073155896461e-02},
     {6.4223319957960924e-04, 8.4144342047347926e-05, 5.8588269616485186e-05, 5.8474222595157350e-05,
      1.3103347914111294e-03},
     7.8418928865937083e+00},
    {'W', 33, 300, 1.5e-3,
     {0.1236511638192e+02, 0.1317228477799e+01, 0.2550120713095e+01, 0.2326187750252e+01, 0.2826799444189e+02},
     {0.4867877144216e+00, 0.5064652880982e-01, 0.9281818101960e-01, 0.8570126542733e-01, 0.1084277417792e+01},
     0.1161399311023e+02},
    {'A', 64, 250, 2.0,
     {7.7902107606689367e+02, 6.3402765259692870e+01, 1.9499249727292479e+02, 1.7845301160418537e+02,
      1.8384760349464247e+03},
     {2.9964085685471943e+01, 2.8194576365003349e+00, 7.3473412698774742e+00, 6.7139225687777051e+00,
      7.0715315688392578e+01},
     2.6030925604886277e+01},
};

typedef double mat5[5][5]; /* [equation][variable] */

typedef struct {
  int n;                   /* points per side (nx = ny = nz), boundary included */
  int id, nw;
  int lo, hi;              /* own interior rows [lo, hi) of 1 .. n-2 */
  int kb;                  /* planes per wavefront step */
  int r0, r1;              /* rows this worker initializes: own, plus 0 / n-1 at the ends */
  size_t slab5, slab1;     /* doubles per j-slab: 5-vectors, scalars (whole pages) */
  double *u, *rsd, *frct;  /* 5-vectors [j][k][i][m] */
  double *rho, *qs;        /* scalars [j][k][i]: 1/rho, |momentum|^2 / (2 rho) */
  double dt;
  double t1[3], t2[3], t3[3]; /* 1/h^2, 1/(2h), 1/h per direction */
  double dssp;
  double* fl;              /* private flux scratch, n 5-vectors */
  void (*sync)(void);
  double t_lower, t_upper, t_rhs, t_sync;
} lu_t;

static void nosync(void) {}

static void lsync(lu_t* g) {
  double t = par_time();
  g->sync();
  g->t_sync += par_time() - t;
}

static double* V5(const lu_t* g, double* a, int j, int k, int i) {
  return a + (size_t)j * g->slab5 + ((size_t)k * g->n + (size_t)i) * 5;
}
static size_t S1(const lu_t* g, int j, int k, int i) { return (size_t)j * g->slab1 + (size_t)k * g->n + (size_t)i; }

static size_t round_page(size_t d) { return (d + PAGE_DOUBLES - 1) / PAGE_DOUBLES * PAGE_DOUBLES; }

static void lu_setup(lu_t* g, int n, double dt, int id, int nw, int kb) {
  memset(g, 0, sizeof *g);
  g->kb = kb;
  g->n = n;
  g->id = id;
  g->nw = nw;
  g->lo = 1 + (int)((long)(n - 2) * id / nw);
  g->hi = 1 + (int)((long)(n - 2) * (id + 1) / nw);
  g->r0 = id == 0 ? 0 : g->lo;
  g->r1 = id == nw - 1 ? n : g->hi;
  g->slab5 = round_page((size_t)n * n * 5);
  g->slab1 = round_page((size_t)n * n);
  g->dt = dt;
  const double h = 1.0 / (n - 1);
  for (int d = 0; d < 3; d++) {
    g->t1[d] = 1.0 / (h * h);
    g->t2[d] = 1.0 / (2.0 * h);
    g->t3[d] = 1.0 / h;
  }
  g->dssp = DCOEF[2] / 4.0;
  g->fl = (double*)malloc(sizeof(double) * 5 * (size_t)n);
  g->sync = nosync;
}

static void exact(int n, int i, int j, int k, double ue[5]) {
  const double xi = (double)i / (n - 1), eta = (double)j / (n - 1), zeta = (double)k / (n - 1);
  for (int m = 0; m < 5; m++) {
    const double* c = CE[m];
    ue[m] = c[0] + (c[1] + (c[4] + (c[7] + c[10] * xi) * xi) * xi) * xi +
            (c[2] + (c[5] + (c[8] + c[11] * eta) * eta) * eta) * eta +
            (c[3] + (c[6] + (c[9] + c[12] * zeta) * zeta) * zeta) * zeta;
  }
}

static void point_scalars(const double* w, double* rho, double* qs) {
  const double r = 1.0 / w[0];
  *rho = r;
  *qs = 0.5 * (w[1] * w[1] + w[2] * w[2] + w[3] * w[3]) * r;
}

/* u on rows [r0, r1): the exact solution on the boundary faces (NPB setbv),
 * its transfinite interpolation inside (setiv); then 1/rho and q. */
static void init_u(lu_t* g) {
  const int n = g->n;
  for (int j = g->r0; j < g->r1; j++)
    for (int k = 0; k < n; k++)
      for (int i = 0; i < n; i++) {
        double* u = V5(g, g->u, j, k, i);
        if (i == 0 || i == n - 1 || j == 0 || j == n - 1 || k == 0 || k == n - 1) {
          exact(n, i, j, k, u);
        } else {
          const double xi = (double)i / (n - 1), eta = (double)j / (n - 1), zeta = (double)k / (n - 1);
          double ux0[5], ux1[5], uy0[5], uy1[5], uz0[5], uz1[5];
          exact(n, 0, j, k, ux0);
          exact(n, n - 1, j, k, ux1);
          exact(n, i, 0, k, uy0);
          exact(n, i, n - 1, k, uy1);
          exact(n, i, j, 0, uz0);
          exact(n, i, j, n - 1, uz1);
          for (int m = 0; m < 5; m++) {
            const double px = (1.0 - xi) * ux0[m] + xi * ux1[m];
            const double py = (1.0 - eta) * uy0[m] + eta * uy1[m];
            const double pz = (1.0 - zeta) * uz0[m] + zeta * uz1[m];
            u[m] = px + py + pz - px * py - py * pz - pz * px + px * py * pz;
          }
        }
        point_scalars(u, &g->rho[S1(g, j, k, i)], &g->qs[S1(g, j, k, i)]);
      }
}

/* Adds the flux differences of direction dir (0 x, 1 y, 2 z) of the field w
 * to out, at the positions [plo, phi) of one grid line of n points: the
 * inviscid flux (central), the viscous flux and second-order dissipation,
 * and the fourth-order dissipation (one-sided next to the boundary).  w and
 * out point at the line's first point, 5-vectors s5 doubles apart; rho and
 * qs at its first scalar, s1 apart. */
static void line_residual(const lu_t* g, int dir, const double* w, const double* rho, const double* qs, double* out,
                          size_t s5, size_t s1, int plo, int phi) {
  const int n = g->n, c = dir + 1; /* c: the momentum component along dir */
  const double t1 = g->t1[dir], t2 = g->t2[dir], t3 = g->t3[dir], dssp = g->dssp, dc = DCOEF[dir];
  double* fl = g->fl;
#define W(p, m) w[(size_t)(p) * s5 + (m)]
#define O(p, m) out[(size_t)(p) * s5 + (m)]
#define F(p, m) fl[(size_t)(p) * 5 + (m)]
  for (int p = plo - 1; p <= phi; p++) {
    const double q = qs[(size_t)p * s1], uc = W(p, c) * rho[(size_t)p * s1];
    F(p, 0) = W(p, c);
    for (int m = 1; m <= 3; m++) F(p, m) = W(p, m) * uc;
    F(p, c) += C2 * (W(p, 4) - q);
    F(p, 4) = (C1 * W(p, 4) - C2 * q) * uc;
  }
  for (int p = plo; p < phi; p++)
    for (int m = 0; m < 5; m++) O(p, m) -= t2 * (F(p + 1, m) - F(p - 1, m));
  for (int p = plo; p <= phi; p++) {
    const double r = rho[(size_t)p * s1], rm = rho[(size_t)(p - 1) * s1];
    double v[5], vm[5];
    for (int m = 1; m < 5; m++) {
      v[m] = r * W(p, m);
      vm[m] = rm * W(p - 1, m);
    }
    for (int m = 1; m <= 3; m++) F(p, m) = (m == c ? R43 * t3 : t3) * (v[m] - vm[m]);
    F(p, 4) = 0.5 * (1.0 - C1 * C5) * t3 *
                  ((v[1] * v[1] + v[2] * v[2] + v[3] * v[3]) - (vm[1] * vm[1] + vm[2] * vm[2] + vm[3] * vm[3])) +
              (1.0 / 6.0) * t3 * (v[c] * v[c] - vm[c] * vm[c]) + C1 * C5 * t3 * (v[4] - vm[4]);
  }
  for (int p = plo; p < phi; p++) {
    O(p, 0) += dc * t1 * (W(p - 1, 0) - 2.0 * W(p, 0) + W(p + 1, 0));
    for (int m = 1; m < 5; m++)
      O(p, m) += t3 * C3 * C4 * (F(p + 1, m) - F(p, m)) + dc * t1 * (W(p - 1, m) - 2.0 * W(p, m) + W(p + 1, m));
  }
  for (int p = plo; p < phi; p++)
    for (int m = 0; m < 5; m++) {
      double d;
      if (p == 1) d = 5.0 * W(1, m) - 4.0 * W(2, m) + W(3, m);
      else if (p == 2) d = -4.0 * W(1, m) + 6.0 * W(2, m) - 4.0 * W(3, m) + W(4, m);
      else if (p == n - 3) d = W(n - 5, m) - 4.0 * W(n - 4, m) + 6.0 * W(n - 3, m) - 4.0 * W(n - 2, m);
      else if (p == n - 2) d = W(n - 4, m) - 4.0 * W(n - 3, m) + 5.0 * W(n - 2, m);
      else d = W(p - 2, m) - 4.0 * W(p - 1, m) + 6.0 * W(p, m) - 4.0 * W(p + 1, m) + W(p + 2, m);
      O(p, m) -= dssp * d;
    }
#undef W
#undef O
#undef F
}

/* out += flux differences of w on the own rows, x then y then z (NPB's order
 * for every point).  The y lines read w, rho, qs two rows beyond the own
 * rows. */
static void residual(lu_t* g, const double* w, const double* rho, const double* qs, double* out) {
  const int n = g->n;
  const size_t s5k = (size_t)n * 5;
  for (int j = g->lo; j < g->hi; j++)
    for (int k = 1; k < n - 1; k++)
      line_residual(g, 0, V5(g, (double*)w, j, k, 0), rho + S1(g, j, k, 0), qs + S1(g, j, k, 0),
                    V5(g, out, j, k, 0), 5, 1, 1, n - 1);
  if (g->lo < g->hi)
    for (int k = 1; k < n - 1; k++)
      for (int i = 1; i < n - 1; i++)
        line_residual(g, 1, V5(g, (double*)w, 0, k, i), rho + S1(g, 0, k, i), qs + S1(g, 0, k, i),
                      V5(g, out, 0, k, i), g->slab5, g->slab1, g->lo, g->hi);
  for (int j = g->lo; j < g->hi; j++)
    for (int i = 1; i < n - 1; i++)
      line_residual(g, 2, V5(g, (double*)w, j, 0, i), rho + S1(g, j, 0, i), qs + S1(g, j, 0, i),
                    V5(g, out, j, 0, i), s5k, (size_t)n, 1, n - 1);
}

/* NPB erhs: frct = the flux differences of the exact solution, own rows
 * (the exact field is computed privately, whole). */
static void forcing(lu_t* g) {
  const int n = g->n;
  double* ue = (double*)calloc((size_t)n * g->slab5, sizeof(double));
  double* rho = (double*)calloc((size_t)n * g->slab1, sizeof(double));
  double* qs = (double*)calloc((size_t)n * g->slab1, sizeof(double));
  if (!ue || !rho || !qs) {
    fprintf(stderr, "nas_lu: out of memory\n");
    exit(1);
  }
  for (int j = 0; j < n; j++)
    for (int k = 0; k < n; k++)
      for (int i = 0; i < n; i++) {
        double* p = V5(g, ue, j, k, i);
        exact(n, i, j, k, p);
        point_scalars(p, &rho[S1(g, j, k, i)], &qs[S1(g, j, k, i)]);
      }
  for (int j = g->lo; j < g->hi; j++) memset(V5(g, g->frct, j, 0, 0), 0, sizeof(double) * 5 * (size_t)n * n);
  residual(g, ue, rho, qs, g->frct);
  free(ue);
  free(rho);
  free(qs);
}

/* NPB rhs: rsd = -frct + flux differences of u, own rows. */
static void rhs(lu_t* g) {
  double t = par_time();
  const size_t row = (size_t)5 * g->n * g->n;
  for (int j = g->lo; j < g->hi; j++) {
    const double* f = V5(g, g->frct, j, 0, 0);
    double* r = V5(g, g->rsd, j, 0, 0);
    for (size_t x = 0; x < row; x++) r[x] = -f[x];
  }
  residual(g, g->u, g->rho, g->qs, g->rsd);
  g->t_rhs += par_time() - t;
}

/* The diagonal block at (i, j, k) (NPB jacld/jacu "d"). */
static void jac_diag(const lu_t* g, int i, int j, int k, mat5 d) {
  const double* u = V5(g, g->u, j, k, i);
  const double r1 = g->rho[S1(g, j, k, i)], r2 = r1 * r1, r3 = r1 * r2;
  const double dt = g->dt, tx1 = g->t1[0], ty1 = g->t1[1], tz1 = g->t1[2];
  const double c34 = C3 * C4, c1345 = C1 * C3 * C4 * C5;
  const double dsum = tx1 * DCOEF[0] + ty1 * DCOEF[1] + tz1 * DCOEF[2];
  const double vx = tx1 * (R43 * c34 - c1345) + ty1 * (c34 - c1345) + tz1 * (c34 - c1345);
  const double vy = tx1 * (c34 - c1345) + ty1 * (R43 * c34 - c1345) + tz1 * (c34 - c1345);
  const double vz = tx1 * (c34 - c1345) + ty1 * (c34 - c1345) + tz1 * (R43 * c34 - c1345);
  memset(d, 0, sizeof(mat5));
  d[0][0] = 1.0 + dt * 2.0 * dsum;
  d[1][0] = -dt * 2.0 * (tx1 * R43 + ty1 + tz1) * c34 * r2 * u[1];
  d[1][1] = 1.0 + dt * 2.0 * c34 * r1 * (tx1 * R43 + ty1 + tz1) + dt * 2.0 * dsum;
  d[2][0] = -dt * 2.0 * (tx1 + ty1 * R43 + tz1) * c34 * r2 * u[2];
  d[2][2] = 1.0 + dt * 2.0 * c34 * r1 * (tx1 + ty1 * R43 + tz1) + dt * 2.0 * dsum;
  d[3][0] = -dt * 2.0 * (tx1 + ty1 + tz1 * R43) * c34 * r2 * u[3];
  d[3][3] = 1.0 + dt * 2.0 * c34 * r1 * (tx1 + ty1 + tz1 * R43) + dt * 2.0 * dsum;
  d[4][0] = -dt * 2.0 * ((vx * (u[1] * u[1]) + vy * (u[2] * u[2]) + vz * (u[3] * u[3])) * r3 +
                         (tx1 + ty1 + tz1) * c1345 * r2 * u[4]);
  d[4][1] = dt * 2.0 * r2 * u[1] * vx;
  d[4][2] = dt * 2.0 * r2 * u[2] * vy;
  d[4][3] = dt * 2.0 * r2 * u[3] * vz;
  d[4][4] = 1.0 + dt * 2.0 * (tx1 + ty1 + tz1) * c1345 * r1 + dt * 2.0 * dsum;
}

/* The off-diagonal block coupling a point to its neighbour (ni, nj, nk) in
 * direction dir: sign -1 for the lower neighbour (NPB jacld a, b, c), +1
 * for the upper one (jacu).  It is dt times the inviscid flux Jacobian
 * (times -+1/(2h)) and the viscous and dissipation terms (times -1/h^2), all
 * evaluated at the neighbour. */
static void jac_off(const lu_t* g, int dir, double sign, int ni, int nj, int nk, mat5 a) {
  const double* w = V5(g, g->u, nj, nk, ni);
  const size_t s = S1(g, nj, nk, ni);
  const double r1 = g->rho[s], r2 = r1 * r1, r3 = r1 * r2, q = g->qs[s];
  const double c34 = C3 * C4, c1345 = C1 * C3 * C4 * C5;
  const int c = dir + 1;
  const double e = sign * g->dt * g->t2[dir], v = g->dt * g->t1[dir];
  const double uc = w[c] * r1, dc = DCOEF[dir];
  double f[4];
  for (int m = 1; m <= 3; m++) f[m] = m == c ? R43 * c34 : c34;
  memset(a, 0, sizeof(mat5));
  /* continuity */
  a[0][0] = -v * dc;
  a[0][c] = e;
  /* momentum across dir */
  for (int m = 1; m <= 3; m++) {
    if (m == c) continue;
    a[m][0] = e * (-(w[m] * w[c]) * r2) - v * (-c34 * r2 * w[m]);
    a[m][m] = e * uc - v * (c34 * r1) - v * dc;
    a[m][c] = e * (w[m] * r1);
  }
  /* momentum along dir */
  a[c][0] = e * (-(uc * uc) + C2 * q * r1) - v * (-R43 * c34 * r2 * w[c]);
  a[c][c] = e * ((2.0 - C2) * uc) - v * (R43 * c34 * r1) - v * dc;
  for (int m = 1; m <= 3; m++)
    if (m != c) a[c][m] = e * (-C2 * (w[m] * r1));
  a[c][4] = e * C2;
  /* energy */
  a[4][0] = e * ((C2 * 2.0 * q - C1 * w[4]) * (w[c] * r2)) -
            v * (-(f[1] - c1345) * r3 * (w[1] * w[1]) - (f[2] - c1345) * r3 * (w[2] * w[2]) -
                 (f[3] - c1345) * r3 * (w[3] * w[3]) - c1345 * r2 * w[4]);
  for (int m = 1; m <= 3; m++) {
    if (m == c) a[4][m] = e * (C1 * (w[4] * r1) - C2 * (w[c] * w[c] * r2 + q * r1)) - v * (f[m] - c1345) * r2 * w[m];
    else a[4][m] = e * (-C2 * (w[m] * w[c]) * r2) - v * (f[m] - c1345) * r2 * w[m];
  }
  a[4][4] = e * (C1 * uc) - v * c1345 * r1 - v * dc;
}

/* x = d^-1 b by Gaussian elimination without pivoting (d is diagonally
 * dominant); b is overwritten with x. */
static void solve5(mat5 d, double b[5]) {
  for (int p = 0; p < 5; p++) {
    const double inv = 1.0 / d[p][p];
    for (int r = p + 1; r < 5; r++) {
      const double f = inv * d[r][p];
      for (int c = p + 1; c < 5; c++) d[r][c] -= f * d[p][c];
      b[r] -= b[p] * f;
    }
  }
  for (int r = 4; r >= 0; r--) {
    double s = b[r];
    for (int c = r + 1; c < 5; c++) s -= d[r][c] * b[c];
    b[r] = s / d[r][r];
  }
}

static double dot5(const double a[5], const double* x) {
  return a[0] * x[0] + a[1] * x[1] + a[2] * x[2] + a[3] * x[3] + a[4] * x[4];
}

/* Lower sweep of row (j, k) (NPB jacld + blts), after scaling rsd by dt. */
static void lower_row(lu_t* g, int j, int k) {
  const int n = g->n;
  double* v0 = V5(g, g->rsd, j, k, 0);
  for (int x = 5; x < 5 * (n - 1); x++) v0[x] *= g->dt;
  for (int i = 1; i < n - 1; i++) {
    mat5 a, b, c, d;
    jac_off(g, 2, -1.0, i, j, k - 1, a);
    jac_off(g, 1, -1.0, i, j - 1, k, b);
    jac_off(g, 0, -1.0, i - 1, j, k, c);
    jac_diag(g, i, j, k, d);
    double* v = V5(g, g->rsd, j, k, i);
    const double *vz = V5(g, g->rsd, j, k - 1, i), *vy = V5(g, g->rsd, j - 1, k, i), *vx = V5(g, g->rsd, j, k, i - 1);
    for (int m = 0; m < 5; m++) v[m] -= OMEGA * dot5(a[m], vz);
    double t[5];
    for (int m = 0; m < 5; m++) t[m] = v[m] - OMEGA * (dot5(b[m], vy) + dot5(c[m], vx));
    solve5(d, t);
    for (int m = 0; m < 5; m++) v[m] = t[m];
  }
}

/* Upper sweep of row (j, k) (NPB jacu + buts). */
static void upper_row(lu_t* g, int j, int k) {
  const int n = g->n;
  for (int i = n - 2; i >= 1; i--) {
    mat5 a, b, c, d;
    jac_off(g, 0, 1.0, i + 1, j, k, a);
    jac_off(g, 1, 1.0, i, j + 1, k, b);
    jac_off(g, 2, 1.0, i, j, k + 1, c);
    jac_diag(g, i, j, k, d);
    double* v = V5(g, g->rsd, j, k, i);
    const double *vz = V5(g, g->rsd, j, k + 1, i), *vy = V5(g, g->rsd, j + 1, k, i), *vx = V5(g, g->rsd, j, k, i + 1);
    double t[5];
    for (int m = 0; m < 5; m++) t[m] = OMEGA * dot5(c[m], vz);
    for (int m = 0; m < 5; m++) t[m] += OMEGA * (dot5(b[m], vy) + dot5(a[m], vx));
    solve5(d, t);
    for (int m = 0; m < 5; m++) v[m] -= t[m];
  }
}

/* The wavefronts.  The planes 1 .. n-2 are cut into blocks of kb; at step
 * s worker w does block s - w (lower, planes ascending) or block
 * s - (nw-1-w) (upper, planes descending), then a barrier.  kb = 1 is NPB's
 * plane-by-plane pipeline; larger blocks trade pipeline fill for fewer
 * barriers. */
static void lower_sweep(lu_t* g) {
  double t = par_time(), t_sync0 = g->t_sync;
  const int n = g->n, kb = g->kb, nb = (n - 2 + kb - 1) / kb, steps = nb + g->nw - 1;
  for (int s = 0; s < steps; s++) {
    const int b = s - g->id;
    if (b >= 0 && b < nb)
      for (int k = 1 + b * kb; k <= n - 2 && k < 1 + (b + 1) * kb; k++)
        for (int j = g->lo; j < g->hi; j++) lower_row(g, j, k);
    if (g->nw > 1) lsync(g);
  }
  g->t_lower += par_time() - t - (g->t_sync - t_sync0);
}

static void upper_sweep(lu_t* g) {
  double t = par_time(), t_sync0 = g->t_sync;
  const int n = g->n, kb = g->kb, nb = (n - 2 + kb - 1) / kb, steps = nb + g->nw - 1;
  for (int s = 0; s < steps; s++) {
    const int b = s - (g->nw - 1 - g->id);
    if (b >= 0 && b < nb)
      for (int k = n - 2 - b * kb; k >= 1 && k > n - 2 - (b + 1) * kb; k--)
        for (int j = g->hi - 1; j >= g->lo; j--) upper_row(g, j, k);
    if (g->nw > 1) lsync(g);
  }
  g->t_upper += par_time() - t - (g->t_sync - t_sync0);
}

/* u += rsd / (omega (2 - omega)) on the own rows, then 1/rho and q there. */
static void update(lu_t* g, int skip_first_row) {
  const int n = g->n;
  const double f = 1.0 / (OMEGA * (2.0 - OMEGA));
  for (int j = g->lo; j < g->hi; j++) {
    if (skip_first_row && j == g->lo) continue; /* --corrupt */
    for (int k = 1; k < n - 1; k++)
      for (int i = 1; i < n - 1; i++) {
        double* u = V5(g, g->u, j, k, i);
        const double* r = V5(g, g->rsd, j, k, i);
        for (int m = 0; m < 5; m++) u[m] += f * r[m];
        point_scalars(u, &g->rho[S1(g, j, k, i)], &g->qs[S1(g, j, k, i)]);
      }
  }
}

static void ssor(lu_t* g, int itmax, int corrupt) {
  for (int it = 1; it <= itmax; it++) {
    lower_sweep(g);
    upper_sweep(g);
    update(g, corrupt && it == itmax && g->id == g->nw - 1);
    lsync(g); /* the neighbours' u before the residual */
    rhs(g);
  }
}

/* NPB's phi: (gamma - 1) times the internal energy at (i, j, k). */
static double pressure(const lu_t* g, int i, int j, int k) {
  const double* u = V5(g, g->u, j, k, i);
  return C2 * (u[4] - 0.5 * (u[1] * u[1] + u[2] * u[2] + u[3] * u[3]) / u[0]);
}

/* s plus the pressure at the four corners of the cell face at (i, j, k)
 * spanned by axes a and b, added one by one in NPB's order. */
enum { X = 1, Y = 2, Z = 4 };
static double corners(const lu_t* g, double s, int i, int j, int k, int a, int b) {
  const int ab = a | b;
  s += pressure(g, i, j, k);
  s += pressure(g, i + !!(a & X), j + !!(a & Y), k + !!(a & Z));
  s += pressure(g, i + !!(b & X), j + !!(b & Y), k + !!(b & Z));
  s += pressure(g, i + !!(ab & X), j + !!(ab & Y), k + !!(ab & Z));
  return s;
}

/* Worker 0, after a barrier: NPB l2norm of rsd, error (errnm) and pintgr
 * (frc), summed in NPB's loop order. */
static void norms(const lu_t* g, double rsdnm[5], double errnm[5], double* frc) {
  const int n = g->n;
  const double vol = (double)(n - 2) * (n - 2) * (n - 2);
  for (int m = 0; m < 5; m++) rsdnm[m] = errnm[m] = 0;
  for (int k = 1; k < n - 1; k++)
    for (int j = 1; j < n - 1; j++)
      for (int i = 1; i < n - 1; i++) {
        const double* r = V5(g, g->rsd, j, k, i);
        const double* u = V5(g, g->u, j, k, i);
        double ue[5];
        exact(n, i, j, k, ue);
        for (int m = 0; m < 5; m++) {
          rsdnm[m] += r[m] * r[m];
          const double e = ue[m] - u[m];
          errnm[m] += e * e;
        }
      }
  for (int m = 0; m < 5; m++) {
    rsdnm[m] = sqrt(rsdnm[m] / vol);
    errnm[m] = sqrt(errnm[m] / vol);
  }
  /* Surface integral of the pressure over a box inside the grid: i in
   * [1, n-2], j in [1, n-3], k in [2, n-2] (NPB's ii1..ii2, ji1..ji2,
   * ki1..ki2, 0-based). */
  const int ib = 1, ie = n - 2, jb = 1, je = n - 3, kb = 2, ke = n - 2;
  const double h = 1.0 / (n - 1);
  double f1 = 0, f2 = 0, f3 = 0;
  for (int j = jb; j < je; j++)
    for (int i = ib; i < ie; i++) f1 += corners(g, corners(g, 0.0, i, j, kb, X, Y), i, j, ke, X, Y);
  f1 *= h * h;
  for (int k = kb; k < ke; k++)
    for (int i = ib; i < ie; i++) f2 += corners(g, corners(g, 0.0, i, jb, k, X, Z), i, je, k, X, Z);
  f2 *= h * h;
  for (int k = kb; k < ke; k++)
    for (int j = jb; j < je; j++) f3 += corners(g, corners(g, 0.0, ib, j, k, Y, Z), ie, j, k, Y, Z);
  f3 *= h * h;
  *frc = 0.25 * (f1 + f2 + f3);
}

static double reldiff(double a, double b) { return b != 0 ? fabs((a - b) / b) : fabs(a); }

static const char* arg_str(int argc, char** argv, const char* name, const char* dflt) {
  for (int i = 1; i + 1 < argc; i++)
    if (argv[i][0] == '-' && argv[i][1] == '-' && !strcmp(argv[i] + 2, name)) return argv[i + 1];
  return dflt;
}

static void alloc_arrays(lu_t* g, int shared) {
  const size_t v5 = (size_t)g->n * g->slab5 * sizeof(double), v1 = (size_t)g->n * g->slab1 * sizeof(double);
  if (shared) {
    g->u = (double*)par_alloc(v5);
    g->rsd = (double*)par_alloc(v5);
    g->frct = (double*)par_alloc(v5);
    g->rho = (double*)par_alloc(v1);
    g->qs = (double*)par_alloc(v1);
  } else {
    g->u = (double*)calloc(1, v5);
    g->rsd = (double*)calloc(1, v5);
    g->frct = (double*)calloc(1, v5);
    g->rho = (double*)calloc(1, v1);
    g->qs = (double*)calloc(1, v1);
    if (!g->u || !g->rsd || !g->frct || !g->rho || !g->qs) {
      fprintf(stderr, "nas_lu: out of memory\n");
      exit(1);
    }
  }
}

static int worker(int argc, char** argv) {
  const char* cname = arg_str(argc, argv, "class", "W");
  const struct npb_class* cls = NULL;
  for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++)
    if (cname[0] == classes[c].name && cname[1] == 0) cls = &classes[c];
  if (!cls) {
    if (par_id() == 0) fprintf(stderr, "nas_lu: --class %s: expected S, W or A\n", cname);
    return 2;
  }
  const int n = par_arg_int(argc, argv, "n", cls->n);
  const int itmax = par_arg_int(argc, argv, "itmax", cls->itmax);
  const double dt = par_arg_double(argc, argv, "dt", cls->dt);
  const int kblock = par_arg_int(argc, argv, "kblock", 1);
  const int corrupt = par_arg_flag(argc, argv, "corrupt");
  const int check_npb = n == cls->n && itmax == cls->itmax && dt == cls->dt;
  const int id = par_id(), nw = par_nworkers();
  if (n < 8 || itmax < 1 || kblock < 1) {
    if (id == 0) fprintf(stderr, "nas_lu: need --n >= 8, --itmax >= 1, --kblock >= 1\n");
    return 2;
  }

  lu_t g;
  lu_setup(&g, n, dt, id, nw, kblock);
  alloc_arrays(&g, 1);
  init_u(&g);
  forcing(&g);
  par_barrier(); /* the neighbours' u, 1/rho, q */
  rhs(&g);
  g.sync = par_barrier;
  g.t_rhs = 0;

  par_region_begin();
  ssor(&g, itmax, corrupt);
  par_region_end();
  par_barrier(); /* everyone's rsd and u for worker 0 */

  int valid = 1;
  double rsdnm[5], errnm[5], frc = 0, npb_err = 0;
  if (id == 0) {
    norms(&g, rsdnm, errnm, &frc);
    if (check_npb) {
      for (int m = 0; m < 5; m++) {
        const double er = reldiff(rsdnm[m], cls->rsdnm[m]), ee = reldiff(errnm[m], cls->errnm[m]);
        if (er > npb_err) npb_err = er;
        if (ee > npb_err) npb_err = ee;
        if (!(er <= 1e-8))
          fprintf(stderr, "nas_lu: rsdnm[%d] %.16e, NPB %.16e (%.3e)\n", m, rsdnm[m], cls->rsdnm[m], er);
        if (!(ee <= 1e-8))
          fprintf(stderr, "nas_lu: errnm[%d] %.16e, NPB %.16e (%.3e)\n", m, errnm[m], cls->errnm[m], ee);
      }
      const double ef = reldiff(frc, cls->frc);
      if (ef > npb_err) npb_err = ef;
      if (!(ef <= 1e-8)) fprintf(stderr, "nas_lu: frc %.16e, NPB %.16e (%.3e)\n", frc, cls->frc, ef);
      if (!(npb_err <= 1e-8)) valid = 0;
    } else {
      /* Not an NPB class run: the same code, sequentially, in private memory. */
      lu_t s;
      lu_setup(&s, n, dt, 0, 1, 1);
      alloc_arrays(&s, 0);
      init_u(&s);
      forcing(&s);
      rhs(&s);
      ssor(&s, itmax, 0);
      double sr[5], se[5], sf;
      norms(&s, sr, se, &sf);
      size_t udiff = 0;
      for (int j = 0; j < n; j++)
        for (int k = 0; k < n; k++)
          for (int i = 0; i < n; i++)
            for (int m = 0; m < 5; m++) udiff += V5(&g, g.u, j, k, i)[m] != V5(&s, s.u, j, k, i)[m];
      int same = udiff == 0 && sf == frc;
      for (int m = 0; m < 5; m++) same = same && sr[m] == rsdnm[m] && se[m] == errnm[m];
      if (!same) {
        valid = 0;
        fprintf(stderr, "nas_lu: %zu values of u differ from the sequential run; frc %.16e vs %.16e\n", udiff, frc, sf);
      }
      free(s.u);
      free(s.rsd);
      free(s.frct);
      free(s.rho);
      free(s.qs);
      free(s.fl);
    }
  }

  char extra[1024], ebuf[48];
  par_json_num(ebuf, sizeof ebuf, check_npb, npb_err);
  if (id == 0)
    snprintf(extra, sizeof extra,
             "\"class\": \"%c\", \"n\": %d, \"itmax\": %d, \"dt\": %g, \"kblock\": %d, "
             "\"rsdnm\": [%.14e, %.14e, %.14e, %.14e, %.14e], \"errnm\": [%.14e, %.14e, %.14e, %.14e, %.14e], "
             "\"frc\": %.14e, \"npb_error\": %s, \"lower_time\": %.4f, \"upper_time\": %.4f, \"rhs_time\": %.4f, "
             "\"sync_time\": %.4f",
             check_npb ? cls->name : 'U', n, itmax, dt, kblock, rsdnm[0], rsdnm[1], rsdnm[2], rsdnm[3], rsdnm[4],
             errnm[0], errnm[1], errnm[2], errnm[3], errnm[4], frc, ebuf, g.t_lower, g.t_upper, g.t_rhs, g.t_sync);
  else
    extra[0] = 0;
  par_report("nas_lu", valid, extra);
  par_free(g.qs);
  par_free(g.rho);
  par_free(g.frct);
  par_free(g.rsd);
  par_free(g.u);
  free(g.fl);
  return 0;
}

int main(int argc, char** argv) { return par_main(argc, argv, worker); }
