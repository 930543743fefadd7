/* mg_mpi — NAS MG written by hand in MPI: the reference Loom's MG is
 * measured against across hosts (docs/BENCHMARKS.md), as loom_bench's halo
 * Jacobi is for Jacobi.
 *
 * The same operators as mg.c (mg_core.h: the same kernels, the same z-plane
 * blocks, the same order of operations), but every rank holds private grids
 * and, after each operator, sends each other rank the planes of the grid
 * just written that its next operators read: the plane on each side of its
 * block (the 27-point stencils), the fine planes under its coarse block
 * (restriction), the coarse planes over its fine block (prolongation), and
 * the periodic ghost planes from the owners of planes 1 and N.  One message
 * a pair an operator, an indexed datatype over the planes (no packing by
 * hand), non-blocking sends and receives, no barrier: a rank waits only for
 * the planes it reads, where Loom's MG waits in a barrier for every worker.
 * Norms and zran3's candidates go by MPI_Allgather.
 *
 *   mpiexec -n N mg_mpi [--n 64] [--iters 40] [--corrupt]
 *
 * Validation: every rank runs the same computation sequentially (one
 * worker, untimed) and compares its own planes of v, u and r bit for bit
 * and the norms; the NPB verification values for classes S, W and A as in
 * mg.c.  It prints the same RESULT line as the par.h builds, "build": "mpi",
 * "time" the slowest rank's timed part.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double par_time(void) { return MPI_Wtime(); }

#include "mg_core.h"

/* Which planes of a level-k grid worker q reads after an operator wrote it
 * (need[i] = 1 for plane i of m). */
static void mpi_needs(const mg_t* g, int k, int q, unsigned char* need) {
  const int m = g->m[k], nk = m - 2, nw = g->nw;
  memset(need, 0, (size_t)m);
#define MARK(a, b)                                                  \
  for (int i_ = (a) < 0 ? 0 : (a); i_ <= (b) && i_ < m; i_++) need[i_] = 1
  int lo = owner_lo(nk, q, nw), hi = owner_lo(nk, q + 1, nw);
  if (lo < hi) MARK(lo - 1, hi); /* the stencils' planes on each side */
  if (k >= 2) {                  /* rprj3 onto q's coarse planes */
    lo = owner_lo(nk / 2, q, nw), hi = owner_lo(nk / 2, q + 1, nw);
    if (lo < hi) MARK(2 * lo - 1, 2 * hi - 1);
  }
  if (k + 1 <= g->lt) { /* interp onto q's fine planes */
    lo = owner_lo(nk * 2, q, nw), hi = owner_lo(nk * 2, q + 1, nw);
    if (lo < hi) MARK(lo / 2, (hi - 1) / 2 + 1);
  }
#undef MARK
}

/* The worker that writes plane i of a level-k grid: its owner, and for the
 * ghost planes the owner of the plane they copy. */
static int mpi_writer(const mg_t* g, int k, int i) {
  const int m = g->m[k], nk = m - 2;
  if (i == 0) i = m - 2;
  if (i == m - 1) i = 1;
  for (int w = 0; w < g->nw; w++)
    if (i < owner_lo(nk, w + 1, g->nw)) return w;
  return g->nw - 1;
}

typedef struct {
  MPI_Datatype send[LMAX + 1], recv[LMAX + 1]; /* MPI_DATATYPE_NULL: nothing */
} pair_t;

static pair_t* g_pairs;  /* [nw] */
static MPI_Request* g_reqs;
static double g_t0, g_region;

/* The planes this rank sends q (wanted by q, written here) or receives from
 * q, as one indexed datatype over a grid of level k. */
static MPI_Datatype planes_type(const mg_t* g, int k, int reader, int writer) {
  const int m = g->m[k];
  unsigned char* need = malloc((size_t)m);
  int* disp = malloc(sizeof(int) * (size_t)m);
  mpi_needs(g, k, reader, need);
  int n = 0;
  for (int i = 0; i < m; i++)
    if (need[i] && mpi_writer(g, k, i) == writer) disp[n++] = (int)((size_t)i * g->ps[k]);
  MPI_Datatype t = MPI_DATATYPE_NULL;
  if (n) {
    MPI_Type_create_indexed_block(n, m * m, disp, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
  }
  free(need);
  free(disp);
  return t;
}

static void mpi_setup_pairs(const mg_t* g) {
  g_pairs = calloc((size_t)g->nw, sizeof *g_pairs);
  g_reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)g->nw);
  for (int q = 0; q < g->nw; q++)
    for (int k = 1; k <= g->lt; k++) {
      g_pairs[q].send[k] = g_pairs[q].recv[k] = MPI_DATATYPE_NULL;
      if (q == g->id) continue;
      g_pairs[q].send[k] = planes_type(g, k, q, g->id);
      g_pairs[q].recv[k] = planes_type(g, k, g->id, q);
    }
}

static void mpi_free_pairs(const mg_t* g) {
  for (int q = 0; q < g->nw; q++)
    for (int k = 1; k <= g->lt; k++) {
      if (g_pairs[q].send[k] != MPI_DATATYPE_NULL) MPI_Type_free(&g_pairs[q].send[k]);
      if (g_pairs[q].recv[k] != MPI_DATATYPE_NULL) MPI_Type_free(&g_pairs[q].recv[k]);
    }
  free(g_pairs);
  free(g_reqs);
}

static void mpi_sync(mg_t* g, double* a, int k) {
  if (a == g->part || a == g->cand) {
    const int n = a == g->part ? (int)g->part_stride : PAGE_DOUBLES;
    MPI_Allgather(MPI_IN_PLACE, n, MPI_DOUBLE, a, n, MPI_DOUBLE, MPI_COMM_WORLD);
    return;
  }
  int nr = 0;
  for (int q = 0; q < g->nw; q++)
    if (g_pairs[q].recv[k] != MPI_DATATYPE_NULL) MPI_Irecv(a, 1, g_pairs[q].recv[k], q, k, MPI_COMM_WORLD, &g_reqs[nr++]);
  for (int q = 0; q < g->nw; q++)
    if (g_pairs[q].send[k] != MPI_DATATYPE_NULL) MPI_Isend(a, 1, g_pairs[q].send[k], q, k, MPI_COMM_WORLD, &g_reqs[nr++]);
  MPI_Waitall(nr, g_reqs, MPI_STATUSES_IGNORE);
}

static void mpi_begin(mg_t* g) {
  mpi_sync(g, g->u[g->lt], g->lt); /* u = 0: the zeroed planes the others read */
  MPI_Barrier(MPI_COMM_WORLD);
  g_t0 = MPI_Wtime();
}

static void mpi_end(mg_t* g) {
  double t = MPI_Wtime() - g_t0;
  (void)g;
  MPI_Allreduce(&t, &g_region, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/* Points of this rank's own planes of a level-k grid that differ. */
static long own_diff(const mg_t* g, const double* x, const double* y, int k) {
  long d = 0;
  const size_t n = (size_t)g->m[k] * g->m[k];
  for (int i3 = g->lo[k]; i3 < g->hi[k]; i3++)
    for (size_t j = 0; j < n; j++) {
      size_t o = (size_t)i3 * g->ps[k] + j;
      d += memcmp(&x[o], &y[o], sizeof(double)) != 0;
    }
  return d;
}

static int arg_int(int argc, char** argv, const char* name, int dflt) {
  for (int i = 1; i + 1 < argc; i++)
    if (!strncmp(argv[i], "--", 2) && !strcmp(argv[i] + 2, name)) return atoi(argv[i + 1]);
  return dflt;
}

static int arg_flag(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; i++)
    if (!strncmp(argv[i], "--", 2) && !strcmp(argv[i] + 2, name)) return 1;
  return 0;
}

static void grids_alloc(mg_t* g) {
  if (!mg_private_alloc(g)) {
    fprintf(stderr, "mg_mpi: out of memory for the grids\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int id, nw;
  MPI_Comm_rank(MPI_COMM_WORLD, &id);
  MPI_Comm_size(MPI_COMM_WORLD, &nw);
  const int n = arg_int(argc, argv, "n", 64), iters = arg_int(argc, argv, "iters", 40);
  const int corrupt = arg_flag(argc, argv, "corrupt");
  const int lt = mg_levels("mg_mpi", n, iters, id != 0);
  if (lt < 0) {
    MPI_Finalize();
    return 2;
  }

  mg_t g;
  mg_setup(&g, lt, id, nw);
  g.sync = mpi_sync;
  g.region_begin = mpi_begin;
  g.region_end = mpi_end;
  grids_alloc(&g);
  mpi_setup_pairs(&g);
  double rnm2_0 = 0, rnm2 = 0, rnmu = 0;
  mg_run(&g, iters, corrupt, 1, &rnm2_0, &rnm2, &rnmu);

  /* The sequential run on every rank, each checking its own planes. */
  mg_t s;
  mg_setup(&s, lt, 0, 1);
  s.sync = nosync;
  grids_alloc(&s);
  double s0 = 0, s2 = 0, su = 0;
  mg_run(&s, iters, 0, 0, &s0, &s2, &su);
  long d[3] = {own_diff(&g, g.v, s.v, lt), own_diff(&g, g.u[lt], s.u[lt], lt), own_diff(&g, g.r[lt], s.r[lt], lt)},
       dall[3];
  MPI_Reduce(d, dall, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  char cls;
  const double npb = mg_npb_value(n, iters, &cls), npb_err = npb > 0 ? fabs(rnm2 - npb) / npb : 0;
  double t_sync = 0;
  MPI_Reduce(&g.t_sync, &t_sync, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int valid = 1;
  if (id == 0) {
    valid = mg_validate("mg_mpi", dall[0], dall[1], dall[2], rnm2, rnm2_0, s2, s0, iters, npb, cls);
    char ebuf[32];
    if (npb > 0)
      snprintf(ebuf, sizeof ebuf, "%.3e", npb_err);
    else
      snprintf(ebuf, sizeof ebuf, "null");
    printf("RESULT {\"app\": \"mg\", \"build\": \"mpi\", \"workers\": %d, \"ranks\": %d, \"threads\": 1, \"time\": %.6f, "
           "\"valid\": %s, \"breakdown\": {}, \"counts\": {}, \"n\": %d, \"iterations\": %d, \"class\": \"%c\", "
           "\"residual_norm\": %.13e, \"initial_residual_norm\": %.13e, \"residual_max\": %.6e, \"npb_error\": %s, "
           "\"resid_time\": %.4f, \"psinv_time\": %.4f, \"rprj3_time\": %.4f, \"interp_time\": %.4f, "
           "\"exchange_time\": %.4f}\n",
           nw, nw, g_region, valid ? "true" : "false", n, iters, cls, rnm2, rnm2_0, rnmu, ebuf, g.t_resid, g.t_psinv,
           g.t_rprj3, g.t_interp, t_sync);
    fflush(stdout);
  }
  MPI_Bcast(&valid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  mg_private_free(&s);
  mpi_free_pairs(&g);
  mg_private_free(&g);
  MPI_Finalize();
  return valid ? 0 : 1;
}
