/* NAS CG (NPB "conjugate gradient" kernel): estimate the smallest eigenvalue
 * of a sparse symmetric positive definite matrix with the inverse power
 * method; every outer iteration solves A z = x with 25 unpreconditioned
 * conjugate-gradient iterations, then zeta = shift + 1/(x.z), x = z/|z|.
 *
 * The matrix is NPB's own: makea/sprnvc/vecset/sparse driven by randlc
 * (seed 314159265, multiplier 5^13, one draw before makea), reimplemented
 * here from the NPB 2.3 serial algorithm, with rcond = 0.1.  The NPB classes
 * are recognised by n: S 1400 (nonzer 7, niter 15, shift 10), W 7000 (8, 15,
 * 12), A 14000 (11, 15, 20), B 75000 (13, 75, 60), C 150000 (15, 75, 110);
 * other sizes use --nonzer (7) and --shift (10).
 *
 * Parallelization: rows are cut into chunks of 512 (one 4 KiB page of every
 * vector) and each worker owns a contiguous block of chunks.  The CSR arrays
 * (rowstr, colidx, a) and the vectors x z p q r live in shared memory; every
 * worker first-touches its own rows.  Each dot product is reduced through
 * partial sums in shared memory (one page of partials per worker, one
 * partial per chunk) and a barrier; every worker then adds the partials in
 * chunk order.  That order does not depend on the worker count, so the run
 * is bitwise identical to a sequential run (and to any other worker count).
 * Barriers separate the phases (3 per CG iteration, 2 more per outer one).
 *
 * Validation (worker 0): the same algorithm (same code, same reduction
 * order) run sequentially in private memory must give bitwise the same zeta
 * and rnorm (stricter than the usual 1e-10 / 1e-6 relative tolerances, which
 * are reported too); for an NPB class run with its niter, zeta must also
 * match the NPB verification value within 1e-10.
 *
 *   cg [--n 14000] [--iters <class niter, 15>] [--nonzer k] [--shift s]
 *      [--verbose] [--corrupt]
 * --corrupt: the last worker skips one row of q = A.p once (first CG
 * iteration of the last outer iteration, so zeta itself is off).
 * Extra RESULT fields: n, nonzer, shift, class, iterations, nnz, zeta, rnorm,
 * zeta_error (vs. the NPB value, or null), seq_zeta_reldiff, seq_rnorm_reldiff,
 * makea_time (worker 0's), matvec_time (worker 0's time in q = A.p).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nas_random.h"
#include "par.h"

#define CHUNK 512 /* rows per reduction chunk: one page of doubles */
#define CGITMAX 25
#define RCOND 0.1


/* ----------------------------------------------------------------- makea */
/* All arrays below are 1-based, as in NPB. */
typedef struct {
  double tran, amult;
} rng_t;

/* A sparse n-vector (v, iv) with nz distinct random positions. */
static void sprnvc(rng_t* g, int n, int nz, double* v, int* iv, int* nzloc, int* mark) {
  int nn1 = 1, nzv = 0, nzrow = 0;
  do nn1 *= 2;
  while (nn1 < n);
  while (nzv < nz) {
    double vecelt = randlc(&g->tran, g->amult);
    double vecloc = randlc(&g->tran, g->amult);
    int i = (int)(nn1 * vecloc) + 1;
    if (i > n) continue;
    if (mark[i] == 0) {
      mark[i] = 1;
      nzloc[++nzrow] = i;
      nzv++;
      v[nzv] = vecelt;
      iv[nzv] = i;
    }
  }
  for (int ii = 1; ii <= nzrow; ii++) mark[nzloc[ii]] = 0;
}

/* Set element i of (v, iv) to val, appending it if absent. */
static void vecset(double* v, int* iv, int* nzv, int i, double val) {
  int set = 0;
  for (int k = 1; k <= *nzv; k++)
    if (iv[k] == i) {
      v[k] = val;
      set = 1;
    }
  if (!set) {
    ++*nzv;
    v[*nzv] = val;
    iv[*nzv] = i;
  }
}

typedef struct {
  int n, nnz;
  int* rowstr; /* 0-based CSR: rowstr[0..n], colidx[0..nnz-1] */
  int* colidx;
  double* a;
} csr_t;

/* NPB makea + sparse: the sum of n outer products of random sparse vectors
 * with geometrically decreasing weights, plus (rcond - shift) I, assembled
 * into CSR with duplicates summed (in NPB's order). */
static csr_t makea(int n, int nonzer, double shift, rng_t* g) {
  const long nzmax = (long)n * (nonzer + 1) * (nonzer + 1) + (long)n * (nonzer + 2);
  int* arow = (int*)malloc(sizeof(int) * (size_t)(nzmax + 1));
  int* acol = (int*)malloc(sizeof(int) * (size_t)(nzmax + 1));
  double* aelt = (double*)malloc(sizeof(double) * (size_t)(nzmax + 1));
  double* v = (double*)calloc((size_t)n + 2, sizeof(double));
  int* iv = (int*)calloc((size_t)n + 2, sizeof(int));
  int* nzloc = (int*)calloc((size_t)n + 2, sizeof(int));
  int* mark = (int*)calloc((size_t)n + 2, sizeof(int));
  if (!arow || !acol || !aelt || !v || !iv || !nzloc || !mark) {
    fprintf(stderr, "cg: out of memory in makea\n");
    abort();
  }
  double size = 1.0, ratio = pow(RCOND, 1.0 / (double)n);
  long nnza = 0;
  for (int iouter = 1; iouter <= n; iouter++) {
    int nzv = nonzer;
    sprnvc(g, n, nzv, v, iv, nzloc, mark);
    vecset(v, iv, &nzv, iouter, 0.5);
    for (int ivelt = 1; ivelt <= nzv; ivelt++) {
      int jcol = iv[ivelt];
      double scale = size * v[ivelt];
      for (int ivelt1 = 1; ivelt1 <= nzv; ivelt1++) {
        nnza++;
        acol[nnza] = jcol;
        arow[nnza] = iv[ivelt1];
        aelt[nnza] = v[ivelt1] * scale;
      }
    }
    size *= ratio;
  }
  for (int i = 1; i <= n; i++) {
    nnza++;
    acol[nnza] = i;
    arow[nnza] = i;
    aelt[nnza] = RCOND - shift;
  }
  if (nnza > nzmax) {
    fprintf(stderr, "cg: makea overflow (%ld > %ld)\n", nnza, nzmax);
    abort();
  }

  /* sparse(): bucket sort of the triples by row, then sum duplicates. */
  int* rowstr = (int*)calloc((size_t)n + 2, sizeof(int));
  int* colidx = (int*)malloc(sizeof(int) * (size_t)(nnza + 1));
  double* a = (double*)malloc(sizeof(double) * (size_t)(nnza + 1));
  double* x = (double*)calloc((size_t)n + 2, sizeof(double));
  if (!rowstr || !colidx || !a || !x) {
    fprintf(stderr, "cg: out of memory in sparse\n");
    abort();
  }
  for (long k = 1; k <= nnza; k++) rowstr[arow[k] + 1]++;
  rowstr[1] = 1;
  for (int j = 2; j <= n + 1; j++) rowstr[j] += rowstr[j - 1];
  for (long k = 1; k <= nnza; k++) {
    int j = arow[k], pos = rowstr[j];
    a[pos] = aelt[k];
    colidx[pos] = acol[k];
    rowstr[j]++;
  }
  for (int j = n; j >= 1; j--) rowstr[j + 1] = rowstr[j];
  rowstr[1] = 1;
  for (int i = 1; i <= n; i++) mark[i] = 0;
  int nza = 0, jajp1 = rowstr[1];
  for (int j = 1; j <= n; j++) {
    int nzrow = 0;
    for (int k = jajp1; k < rowstr[j + 1]; k++) {
      int i = colidx[k];
      x[i] += a[k];
      if (!mark[i] && x[i] != 0.0) {
        mark[i] = 1;
        nzloc[++nzrow] = i;
      }
    }
    for (int k = 1; k <= nzrow; k++) {
      int i = nzloc[k];
      mark[i] = 0;
      double xi = x[i];
      x[i] = 0.0;
      if (xi != 0.0) {
        nza++;
        a[nza] = xi;
        colidx[nza] = i;
      }
    }
    jajp1 = rowstr[j + 1];
    rowstr[j + 1] = nza + rowstr[1];
  }

  /* To 0-based CSR. */
  csr_t m;
  m.n = n;
  m.nnz = nza;
  m.rowstr = (int*)malloc(sizeof(int) * ((size_t)n + 1));
  m.colidx = (int*)malloc(sizeof(int) * (size_t)(nza > 0 ? nza : 1));
  m.a = (double*)malloc(sizeof(double) * (size_t)(nza > 0 ? nza : 1));
  for (int j = 0; j <= n; j++) m.rowstr[j] = rowstr[j + 1] - 1;
  for (int k = 0; k < nza; k++) {
    m.colidx[k] = colidx[k + 1] - 1;
    m.a[k] = a[k + 1];
  }
  free(arow);
  free(acol);
  free(aelt);
  free(v);
  free(iv);
  free(nzloc);
  free(mark);
  free(rowstr);
  free(colidx);
  free(a);
  free(x);
  return m;
}

/* -------------------------------------------------------------------- CG */
enum { S_RHO, S_D, S_RES, S_N11, S_N12, NSLOT };

typedef struct {
  int n, nchunks, nw, id;
  const int* rowstr;
  const int* colidx;
  const double* a;
  double *x, *z, *p, *q, *r;
  double* part;        /* partials: worker w's at part + w*stride, slot s at + s*cmax */
  size_t stride;
  int cmax;
  const int* cfirst;   /* cfirst[w] .. cfirst[w+1]-1: worker w's chunks */
  const int* cowner;   /* owner of each chunk */
  void (*sync)(void);
  int corrupt_once;    /* skip the first own row of q = A.p once */
  double t_matvec;
} cg_t;

static void nosync(void) {}

static double* mine(cg_t* c, int slot) { return c->part + (size_t)c->id * c->stride + (size_t)slot * c->cmax; }

/* Sum of the chunk partials of `slot`, in chunk order (every worker alike). */
static double reduce(const cg_t* c, int slot) {
  double s = 0;
  for (int ch = 0; ch < c->nchunks; ch++) {
    int w = c->cowner[ch];
    s += c->part[(size_t)w * c->stride + (size_t)slot * c->cmax + (size_t)(ch - c->cfirst[w])];
  }
  return s;
}

#define FOR_CHUNKS(c, ch, lo, hi)                                                  \
  for (int ch = (c)->cfirst[(c)->id], lo, hi; ch < (c)->cfirst[(c)->id + 1] &&     \
       (lo = ch * CHUNK, hi = (ch + 1) * CHUNK < (c)->n ? (ch + 1) * CHUNK : (c)->n, 1); \
       ch++)

/* NPB conj_grad: 25 CG iterations on A z = x from z = 0; returns
 * ||x - A z|| (explicitly computed). */
static double conj_grad(cg_t* c) {
  const int* rowstr = c->rowstr;
  const int* colidx = c->colidx;
  const double* a = c->a;
  double *x = c->x, *z = c->z, *p = c->p, *q = c->q, *r = c->r;
  const int c0 = c->cfirst[c->id];

  FOR_CHUNKS(c, ch, lo, hi) {
    double s = 0;
    for (int j = lo; j < hi; j++) {
      q[j] = 0.0;
      z[j] = 0.0;
      r[j] = x[j];
      p[j] = r[j];
      s += x[j] * x[j];
    }
    mine(c, S_RHO)[ch - c0] = s;
  }
  c->sync();
  double rho = reduce(c, S_RHO);

  for (int cgit = 1; cgit <= CGITMAX; cgit++) {
    double rho0 = rho;
    double t = par_time();
    /* q = A.p on own rows, then the chunk partials of p.q */
    FOR_CHUNKS(c, ch, lo, hi) {
      for (int j = lo; j < hi; j++) {
        if (c->corrupt_once) {
          c->corrupt_once = 0;
          continue;
        }
        double sum = 0.0;
        for (int k = rowstr[j]; k < rowstr[j + 1]; k++) sum += a[k] * p[colidx[k]];
        q[j] = sum;
      }
      double d = 0;
      for (int j = lo; j < hi; j++) d += p[j] * q[j];
      mine(c, S_D)[ch - c0] = d;
    }
    c->t_matvec += par_time() - t;
    c->sync();
    double alpha = rho0 / reduce(c, S_D);
    /* z = z + alpha p, r = r - alpha q, partials of r.r */
    FOR_CHUNKS(c, ch, lo, hi) {
      double s = 0;
      for (int j = lo; j < hi; j++) {
        z[j] = z[j] + alpha * p[j];
        r[j] = r[j] - alpha * q[j];
      }
      for (int j = lo; j < hi; j++) s += r[j] * r[j];
      mine(c, S_RHO)[ch - c0] = s;
    }
    c->sync();
    rho = reduce(c, S_RHO);
    double beta = rho / rho0;
    FOR_CHUNKS(c, ch, lo, hi) {
      for (int j = lo; j < hi; j++) p[j] = r[j] + beta * p[j];
    }
    c->sync(); /* p complete before the next q = A.p reads all of it */
  }

  /* ||x - A z||: r = A z on own rows */
  FOR_CHUNKS(c, ch, lo, hi) {
    for (int j = lo; j < hi; j++) {
      double d = 0.0;
      for (int k = rowstr[j]; k < rowstr[j + 1]; k++) d += a[k] * z[colidx[k]];
      r[j] = d;
    }
    double s = 0;
    for (int j = lo; j < hi; j++) {
      double d = x[j] - r[j];
      s += d * d;
    }
    mine(c, S_RES)[ch - c0] = s;
  }
  c->sync();
  return sqrt(reduce(c, S_RES));
}

/* One inverse-power step: solve, zeta = shift + 1/(x.z), x = z/||z||. */
static double power_step(cg_t* c, double shift, double* zeta) {
  double rnorm = conj_grad(c);
  const int c0 = c->cfirst[c->id];
  FOR_CHUNKS(c, ch, lo, hi) {
    double s11 = 0, s12 = 0;
    for (int j = lo; j < hi; j++) {
      s11 += c->x[j] * c->z[j];
      s12 += c->z[j] * c->z[j];
    }
    mine(c, S_N11)[ch - c0] = s11;
    mine(c, S_N12)[ch - c0] = s12;
  }
  c->sync();
  double nt11 = reduce(c, S_N11);
  double nt12 = 1.0 / sqrt(reduce(c, S_N12));
  *zeta = shift + 1.0 / nt11;
  FOR_CHUNKS(c, ch, lo, hi) {
    for (int j = lo; j < hi; j++) c->x[j] = nt12 * c->z[j];
  }
  /* no barrier needed: the next conj_grad reads x only on own rows and
   * synchronizes before anyone reads another worker's data */
  return rnorm;
}

static void set_x_one(cg_t* c) {
  FOR_CHUNKS(c, ch, lo, hi) {
    for (int j = lo; j < hi; j++) c->x[j] = 1.0;
  }
}

/* ------------------------------------------------------------------ main */
struct npb_class {
  char name;
  int n, nonzer, niter;
  double shift, zeta;
};
static const struct npb_class classes[] = {
    {'S', 1400, 7, 15, 10.0, 8.5971775078648},     {'W', 7000, 8, 15, 12.0, 10.362595087124},
    {'A', 14000, 11, 15, 20.0, 17.130235054029},   {'B', 75000, 13, 75, 60.0, 22.712745482631},
    {'C', 150000, 15, 75, 110.0, 28.973605592845},
};

static double reldiff(double a, double b) {
  double m = fabs(b) > 0 ? fabs(b) : 1.0;
  return fabs(a - b) / m;
}

static int worker(int argc, char** argv) {
  const int n = par_arg_int(argc, argv, "n", 14000);
  const struct npb_class* cls = NULL;
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
    if (classes[i].n == n) cls = &classes[i];
  const int nonzer = par_arg_int(argc, argv, "nonzer", cls ? cls->nonzer : 7);
  const double shift = par_arg_double(argc, argv, "shift", cls ? cls->shift : 10.0);
  const int niter = par_arg_int(argc, argv, "iters", cls ? cls->niter : 15);
  const int corrupt = par_arg_flag(argc, argv, "corrupt");
  const int verbose = par_arg_flag(argc, argv, "verbose");
  if (cls && (nonzer != cls->nonzer || shift != cls->shift)) cls = NULL;
  const int check_npb = cls && niter == cls->niter;
  const int id = par_id(), nw = par_nworkers();
  if (n < 2 || niter < 1 || nonzer < 1) {
    if (id == 0) fprintf(stderr, "cg: bad arguments\n");
    return 2;
  }

  /* Every worker generates the matrix privately (the generator is one
   * sequential random stream), then copies its own rows to shared memory. */
  double t0 = par_time();
  rng_t g = {314159265.0, 1220703125.0};
  (void)randlc(&g.tran, g.amult); /* NPB: zeta = randlc(tran, amult) before makea */
  csr_t m = makea(n, nonzer, shift, &g);
  double t_makea = par_time() - t0;

  const int nchunks = (n + CHUNK - 1) / CHUNK;
  int* cfirst = (int*)malloc(sizeof(int) * ((size_t)nw + 1));
  int* cowner = (int*)malloc(sizeof(int) * (size_t)nchunks);
  int cmax = 1;
  for (int w = 0; w <= nw; w++) cfirst[w] = (int)((long)nchunks * w / nw);
  for (int w = 0; w < nw; w++) {
    if (cfirst[w + 1] - cfirst[w] > cmax) cmax = cfirst[w + 1] - cfirst[w];
    for (int ch = cfirst[w]; ch < cfirst[w + 1]; ch++) cowner[ch] = w;
  }
  const int r0 = cfirst[id] * CHUNK < n ? cfirst[id] * CHUNK : n;
  const int r1 = cfirst[id + 1] * CHUNK < n ? cfirst[id + 1] * CHUNK : n;
  const size_t stride = ((size_t)NSLOT * cmax + 511) / 512 * 512;

  int* rowstr = (int*)par_alloc(sizeof(int) * ((size_t)n + 1));
  int* colidx = (int*)par_alloc(sizeof(int) * (size_t)m.nnz);
  double* a = (double*)par_alloc(sizeof(double) * (size_t)m.nnz);
  double* vec[5];
  for (int i = 0; i < 5; i++) vec[i] = (double*)par_alloc(sizeof(double) * (size_t)n);
  double* part = (double*)par_alloc(sizeof(double) * stride * (size_t)nw);

  /* First touch: own rows of the matrix and the vectors, own partials. */
  for (int j = r0; j < r1; j++) rowstr[j] = m.rowstr[j];
  if (r1 == n && r0 < r1) rowstr[n] = m.rowstr[n];
  if (r0 < r1) {
    memcpy(colidx + m.rowstr[r0], m.colidx + m.rowstr[r0], sizeof(int) * (size_t)(m.rowstr[r1] - m.rowstr[r0]));
    memcpy(a + m.rowstr[r0], m.a + m.rowstr[r0], sizeof(double) * (size_t)(m.rowstr[r1] - m.rowstr[r0]));
  }
  for (int i = 0; i < 5; i++)
    if (r0 < r1) memset(vec[i] + r0, 0, sizeof(double) * (size_t)(r1 - r0));
  memset(part + (size_t)id * stride, 0, sizeof(double) * stride);
  const int nnz = m.nnz;
  if (id != 0) { /* worker 0 keeps its private copy for the sequential reference */
    free(m.rowstr);
    free(m.colidx);
    free(m.a);
  }

  cg_t c = {.n = n, .nchunks = nchunks, .nw = nw, .id = id, .rowstr = rowstr, .colidx = colidx, .a = a,
            .x = vec[0], .z = vec[1], .p = vec[2], .q = vec[3], .r = vec[4], .part = part, .stride = stride,
            .cmax = cmax, .cfirst = cfirst, .cowner = cowner, .sync = par_barrier};
  set_x_one(&c);
  par_barrier();

  /* NPB: one untimed iteration, then x = 1 again. */
  double zeta = 0, rnorm = 0;
  power_step(&c, shift, &zeta);
  set_x_one(&c);
  c.t_matvec = 0;

  par_region_begin();
  for (int it = 1; it <= niter; it++) {
    c.corrupt_once = corrupt && it == niter && id == nw - 1 && r0 < r1;
    rnorm = power_step(&c, shift, &zeta);
    if (verbose && id == 0) printf("  iteration %3d  ||r|| %20.14e  zeta %20.13e\n", it, rnorm, zeta);
  }
  par_region_end();

  int valid = 1;
  double zerr = 0, zrel = 0, rrel = 0;
  if (id == 0) {
    /* Sequential reference: the same code, one "worker", private memory. */
    cfirst[0] = 0;
    cfirst[1] = nchunks;
    for (int ch = 0; ch < nchunks; ch++) cowner[ch] = 0;
    double* sv[5];
    for (int i = 0; i < 5; i++) sv[i] = (double*)calloc((size_t)n, sizeof(double));
    size_t sstride = (size_t)NSLOT * nchunks;
    double* spart = (double*)calloc(sstride, sizeof(double));
    cg_t s = {.n = n, .nchunks = nchunks, .nw = 1, .id = 0, .rowstr = m.rowstr, .colidx = m.colidx, .a = m.a,
              .x = sv[0], .z = sv[1], .p = sv[2], .q = sv[3], .r = sv[4], .part = spart, .stride = sstride,
              .cmax = nchunks, .cfirst = cfirst, .cowner = cowner, .sync = nosync};
    set_x_one(&s);
    double szeta = 0, srnorm = 0;
    for (int it = 1; it <= niter; it++) srnorm = power_step(&s, shift, &szeta);
    zrel = reldiff(zeta, szeta);
    rrel = reldiff(rnorm, srnorm);
    /* The reduction order is the same, so the results must be identical
     * (this implies zeta within 1e-10 and ||r|| within 1e-6 relative). */
    if (zeta != szeta || rnorm != srnorm) {
      valid = 0;
      fprintf(stderr, "cg: parallel zeta %.17g rnorm %.17g != sequential zeta %.17g rnorm %.17g\n", zeta, rnorm,
              szeta, srnorm);
    }
    size_t xdiff = 0;
    for (int j = 0; j < n; j++) xdiff += c.x[j] != s.x[j];
    if (xdiff) {
      valid = 0;
      fprintf(stderr, "cg: %zu entries of x differ from the sequential run\n", xdiff);
    }
    if (check_npb) {
      zerr = fabs(zeta - cls->zeta);
      if (!(zerr <= 1e-10)) {
        valid = 0;
        fprintf(stderr, "cg: zeta %.13f differs from the NPB class %c value %.13f by %.3e\n", zeta, cls->name,
                cls->zeta, zerr);
      }
    }
    for (int i = 0; i < 5; i++) free(sv[i]);
    free(spart);
    free(m.rowstr);
    free(m.colidx);
    free(m.a);
  }

  char extra[640], zbuf[48];
  par_json_num(zbuf, sizeof zbuf, check_npb, zerr);
  snprintf(extra, sizeof extra,
           "\"n\": %d, \"nonzer\": %d, \"shift\": %g, \"class\": \"%c\", \"iterations\": %d, \"nnz\": %d, "
           "\"zeta\": %.13f, \"rnorm\": %.14e, \"zeta_error\": %s, \"seq_zeta_reldiff\": %.3e, "
           "\"seq_rnorm_reldiff\": %.3e, \"makea_time\": %.4f, \"matvec_time\": %.4f",
           n, nonzer, shift, check_npb ? cls->name : 'U', niter, nnz, zeta, rnorm, zbuf, zrel, rrel, t_makea,
           c.t_matvec);
  par_report("cg", valid, extra);
  par_free(part);
  for (int i = 4; i >= 0; i--) par_free(vec[i]);
  par_free(a);
  par_free(colidx);
  par_free(rowstr);
  free(cfirst);
  free(cowner);
  return 0;
}

int main(int argc, char** argv) { return par_main(argc, argv, worker); }
