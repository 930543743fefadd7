/* Barnes-Hut N-body simulation in three dimensions, following SPLASH-2
 * Barnes: a Plummer-model star cluster (SPLASH-2's testdata() prescription,
 * fixed-seed generator) advanced by `steps` leapfrog steps of length dt,
 * gravity softened by eps, cells opened when size^2 > theta^2 * d^2
 * (SPLASH-2's subdivp with tol = theta; monopole cells, no quadrupoles).
 *
 * Each step, with a barrier after each phase:
 *  1. tree build: every worker inserts its own bodies into ONE shared octree.
 *     As in SPLASH-2, cell modifications are protected by locks hashed by cell
 *     (par_lock(cell % PAR_LOCKS)); here every read and every write of a
 *     published cell's child pointers happens under that cell's lock.  A new
 *     cell is taken from the inserting worker's own pre-allocated pool in
 *     shared memory (no lock for allocation) and is filled in while still
 *     unpublished (only its creator can reach it); it is published by writing
 *     its index into the parent's child slot under the parent's lock, so the
 *     parent's unlock (release) orders its contents before any other worker,
 *     which can only find it by taking the parent's lock (acquire).  A slot
 *     that holds a cell never changes again, so each worker remembers (in
 *     private memory) the cell indices it has read under a lock or published
 *     itself and descends through them later without re-reading the slot:
 *     about 1 lock per insertion instead of one per level, close to SPLASH-2,
 *     which descends without locks (--nocache: lock every level).
 *  2. centre of mass, bottom-up, one worker per subtree: the cells at the
 *     first depth having >= 8 * workers cells are dealt out cyclically, each
 *     worker computes its subtrees, barrier, then worker 0 computes the cells
 *     above that depth.
 *  3. forces: each worker walks the (now read-only) tree for its bodies.
 *  4. update of the worker's own bodies (SPLASH-2's leapfrog with the
 *     velocity correction), and of its bounding box for the next step.
 * Bodies are partitioned in contiguous blocks of equal size.  No costzones;
 * instead the bodies are numbered once, at the start, in octree (Morton)
 * order of their initial positions, so that each block is a compact region
 * of space, as costzones' zones are (--nosort: keep the generation order,
 * every block then spans the whole cluster).  Leaves hold one body (SPLASH-2
 * allows a few per leaf).
 *
 * Deterministic tree: leaves hold one body and a cell always splits at its
 * geometric centre, so the octree's shape for a body set does not depend on
 * insertion order (a region is a cell iff it holds >= 2 bodies); children are
 * always combined and visited in octant order, so centres of mass and forces
 * are bit-for-bit those of a sequential build.  Only the cells' storage
 * locations differ.
 *
 * Validation (worker 0): the same simulation run sequentially in private
 * memory with the same tree code must give bit-identical final positions and
 * velocities of every body, and the same number of cells (tolerance zero,
 * for any worker count: see "Deterministic tree").  Also checked, as a
 * sanity check of the physics: the total energy (kinetic + tree potential,
 * sampled at each force phase, where the velocities are synchronized)
 * changes by less than 5e-3 relative between the first and the last step,
 * and the total momentum by less than 1e-3 * steps of sum(m|v|) (Barnes-Hut
 * forces are not exactly antisymmetric, so momentum drifts about linearly).
 * Measured with theta 1: energy drift 1e-4 (default run) and at most 7.4e-4
 * (256..4096 bodies, 3 steps, 8 seeds); momentum drift 1e-5..2e-4 per step.
 * The bounds catch a broken integrator or force, not the tree's force error
 * (measured against direct summation: 1.4% mean at theta 1, 0.2% at 0.5).
 * --corrupt: the last worker skips the force on its first body in step 0
 * (keeps the old acceleration), which the exact comparison must catch.
 *
 * Reported: "tree_build_time", "cofm_time", "force_time", "update_time":
 * each worker's own time in that phase (barrier waits excluded) summed over
 * the steps, the slowest worker's value; "bodies", "steps", "cells".
 *
 *   barnes [--bodies 16384] [--steps 3] [--dt 0.025] [--theta 1.0]
 *          [--eps 0.05] [--seed 123] [--nosort] [--nocache] [--corrupt]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"

typedef struct {
  double pos[3], mass;
} bpos_t; /* read by everyone: tree build, forces */

typedef struct {
  double vel[3], acc[3], phi, pad;
} bdyn_t; /* written and read by the owner only (and by the validation) */

/* A cell: 64 bytes, 64 to a page.  child[o] == 0: empty octant; > 0: index of
 * a cell (the root, index 0, is nobody's child); < 0: body -(child+1). */
typedef struct {
  double mass, pos[3];
  int child[8];
} cell_t;

#define ROOT_CELLS 64 /* cell 0 (the root) alone on the first page */
#define MAX_DEPTH 120
#define STACK 2048

typedef struct {
  cell_t* cells;
  const bpos_t* bp;
  int locking;    /* 1: the shared tree (par_lock), 0: the private reference */
  int next, end;  /* this worker's cell pool [next, end) */
  int pool_begin; /* first cell of the pool (reset each step) */
  int* known;     /* private: known[c*8+o] = the cell in c's octant o, once seen */
  size_t* kset;   /* entries of `known` set this step (cleared at the next) */
  int nk;
  double ctr[3], rsize; /* root cell: centre and edge */
} tree_t;

/* ---------------------------------------------------------------- RNG, input */

/* The generator state is per call (the threads build runs every worker in
 * one process). */
static double xrand(unsigned long long* rng, double lo, double hi) { /* splitmix64 -> [lo, hi) */
  unsigned long long z = (*rng += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return lo + (hi - lo) * ((double)(z >> 11) * (1.0 / 9007199254740992.0));
}

static void pickshell(unsigned long long* rng, double v[3], double rad) {
  double rsq;
  do {
    for (int k = 0; k < 3; k++) v[k] = xrand(rng, -1.0, 1.0);
    rsq = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  } while (rsq > 1.0 || rsq == 0.0);
  double s = rad / sqrt(rsq);
  for (int k = 0; k < 3; k++) v[k] *= s;
}

/* SPLASH-2 testdata(): Plummer model (Aarseth, Henon & Wielen 1974) in
 * virial units, shifted to the centre-of-mass frame. */
static void plummer(int n, unsigned long long seed, bpos_t* bp, bdyn_t* bd) {
  const double MFRAC = 0.999, PI = 3.14159265358979323846;
  const double rsc = 3 * PI / 16, vsc = sqrt(1.0 / rsc);
  double cmr[3] = {0, 0, 0}, cmv[3] = {0, 0, 0};
  unsigned long long rng = seed;
  for (int i = 0; i < n; i++) {
    memset(&bd[i], 0, sizeof bd[i]);
    bp[i].mass = 1.0 / n;
    double r = 1.0 / sqrt(pow(xrand(&rng, 0.0, MFRAC), -2.0 / 3.0) - 1.0);
    pickshell(&rng, bp[i].pos, rsc * r);
    double x, y;
    do {
      x = xrand(&rng, 0.0, 1.0);
      y = xrand(&rng, 0.0, 0.1);
    } while (y > x * x * pow(1.0 - x * x, 3.5));
    double v = sqrt(2.0) * x / pow(1.0 + r * r, 0.25);
    pickshell(&rng, bd[i].vel, vsc * v);
    for (int k = 0; k < 3; k++) {
      cmr[k] += bp[i].mass * bp[i].pos[k];
      cmv[k] += bp[i].mass * bd[i].vel[k];
    }
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      bp[i].pos[k] -= cmr[k];
      bd[i].vel[k] -= cmv[k];
    }
}

/* Renumber the bodies in octree (Morton) order of their initial positions,
 * so that a contiguous block of bodies is a compact region of space: a
 * static stand-in for SPLASH-2's costzones (equal body counts, not equal
 * costs; the bodies move little in a few steps). */
typedef struct {
  unsigned long long key;
  int idx;
} mkey_t;
static int mkey_cmp(const void* a, const void* b) {
  const mkey_t *x = (const mkey_t*)a, *y = (const mkey_t*)b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->idx - y->idx;
}
static void morton_sort(int n, bpos_t* bp, bdyn_t* bd) {
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, side = 0;
  double hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      if (bp[i].pos[k] < lo[k]) lo[k] = bp[i].pos[k];
      if (bp[i].pos[k] > hi[k]) hi[k] = bp[i].pos[k];
    }
  for (int k = 0; k < 3; k++)
    if (hi[k] - lo[k] > side) side = hi[k] - lo[k];
  side *= 1.00002;
  mkey_t* m = (mkey_t*)malloc(sizeof(mkey_t) * (size_t)n);
  for (int i = 0; i < n; i++) {
    unsigned long long q[3], key = 0;
    for (int k = 0; k < 3; k++) {
      double f = (bp[i].pos[k] - lo[k]) / side * 2097152.0;
      q[k] = f < 0 ? 0 : f >= 2097151.0 ? 2097151 : (unsigned long long)f;
    }
    for (int l = 20; l >= 0; l--) /* the octant of each level: x bit 0, y bit 1, z bit 2 */
      key = key << 3 | ((q[2] >> l) & 1) << 2 | ((q[1] >> l) & 1) << 1 | ((q[0] >> l) & 1);
    m[i].key = key;
    m[i].idx = i;
  }
  qsort(m, (size_t)n, sizeof *m, mkey_cmp);
  bpos_t* p2 = (bpos_t*)malloc(sizeof(bpos_t) * (size_t)n);
  bdyn_t* d2 = (bdyn_t*)malloc(sizeof(bdyn_t) * (size_t)n);
  for (int i = 0; i < n; i++) {
    p2[i] = bp[m[i].idx];
    d2[i] = bd[m[i].idx];
  }
  memcpy(bp, p2, sizeof(bpos_t) * (size_t)n);
  memcpy(bd, d2, sizeof(bdyn_t) * (size_t)n);
  free(p2);
  free(d2);
  free(m);
}

/* ---------------------------------------------------------------- the tree */

static inline int octant(const double p[3], const double c[3]) {
  return (p[0] >= c[0]) | (p[1] >= c[1]) << 1 | (p[2] >= c[2]) << 2;
}
static inline void sub_centre(const double c[3], double size, int o, double out[3]) {
  double q = 0.25 * size;
  for (int k = 0; k < 3; k++) out[k] = c[k] + ((o >> k) & 1 ? q : -q);
}
static inline void lock_cell(const tree_t* t, int c) {
  if (t->locking) par_lock(c % PAR_LOCKS);
}
static inline void unlock_cell(const tree_t* t, int c) {
  if (t->locking) par_unlock(c % PAR_LOCKS);
}

/* A child slot that holds a cell never changes again during the build, so a
 * worker may remember a cell index it has read under the parent's lock (or
 * written itself) and descend through that slot later without re-reading
 * it: every read of shared child pointers stays under the cell's lock, but
 * the upper levels are locked about as rarely as in SPLASH-2 (which reads
 * them without locks). */
static inline void remember(tree_t* t, int c, int o, int ch) {
  if (!t->known) return;
  t->known[(size_t)c * 8 + o] = ch;
  t->kset[t->nk++] = (size_t)c * 8 + o;
}
static void forget_all(tree_t* t) {
  if (!t->known) return;
  for (int i = 0; i < t->nk; i++) t->known[t->kset[i]] = 0;
  t->nk = 0;
}

static int new_cell(tree_t* t) {
  if (t->next >= t->end) {
    fprintf(stderr, "barnes: worker %d's cell pool (%d cells) is exhausted\n", par_id(), t->end - t->pool_begin);
    abort();
  }
  int c = t->next++;
  memset(&t->cells[c], 0, sizeof(cell_t)); /* unpublished: only we can see it */
  return c;
}

/* Root box from the bounding box [lo, hi] (SPLASH-2 setbound: a cube a bit
 * larger than the largest extent). */
static void set_root(tree_t* t, const double lo[3], const double hi[3]) {
  double side = 0;
  for (int k = 0; k < 3; k++)
    if (hi[k] - lo[k] > side) side = hi[k] - lo[k];
  t->rsize = 1.00002 * side;
  for (int k = 0; k < 3; k++) t->ctr[k] = lo[k] + 0.5 * t->rsize;
}

static void insert(tree_t* t, int b) {
  cell_t* cells = t->cells;
  const double* p = t->bp[b].pos;
  double ctr[3] = {t->ctr[0], t->ctr[1], t->ctr[2]}, size = t->rsize;
  int c = 0;
  for (int depth = 0;; depth++) {
    int o = octant(p, ctr);
    int ch = t->known ? t->known[(size_t)c * 8 + o] : 0;
    if (ch > 0) { /* seen before: descend without the lock */
      c = ch;
      sub_centre(ctr, size, o, ctr);
      size *= 0.5;
      continue;
    }
    lock_cell(t, c);
    ch = cells[c].child[o];
    if (ch > 0) { /* a cell: descend (its pointer never changes again) */
      unlock_cell(t, c);
      remember(t, c, o, ch);
      c = ch;
      sub_centre(ctr, size, o, ctr);
      size *= 0.5;
      continue;
    }
    if (ch == 0) { /* empty octant: the body becomes a leaf here */
      cells[c].child[o] = -(b + 1);
      unlock_cell(t, c);
      return;
    }
    /* A body b2 is there: build, unpublished, the chain of cells down to the
     * level where b and b2 fall into different octants, then publish it. */
    const double* p2 = t->bp[-ch - 1].pos;
    double cc[3];
    sub_centre(ctr, size, o, cc);
    double cs = 0.5 * size;
    int top = new_cell(t), cur = top;
    for (int d = depth + 1;; d++) {
      if (d > MAX_DEPTH) {
        fprintf(stderr, "barnes: bodies %d and %d coincide\n", b, -ch - 1);
        abort();
      }
      int ob = octant(p, cc), o2 = octant(p2, cc);
      if (ob != o2) {
        cells[cur].child[ob] = -(b + 1);
        cells[cur].child[o2] = ch;
        break;
      }
      int nx = new_cell(t);
      cells[cur].child[ob] = nx;
      remember(t, cur, ob, nx);
      sub_centre(cc, cs, ob, cc);
      cs *= 0.5;
      cur = nx;
    }
    cells[c].child[o] = top;
    unlock_cell(t, c);
    remember(t, c, o, top);
    return;
  }
}

/* Centre of mass of cell c from its children's (already computed) values;
 * always in octant order, so the arithmetic is the same in every run. */
static void cofm_combine(cell_t* cells, const bpos_t* bp, int c) {
  double m = 0, s[3] = {0, 0, 0};
  for (int o = 0; o < 8; o++) {
    int ch = cells[c].child[o];
    const double* q;
    double mq;
    if (ch > 0) {
      q = cells[ch].pos;
      mq = cells[ch].mass;
    } else if (ch < 0) {
      q = bp[-ch - 1].pos;
      mq = bp[-ch - 1].mass;
    } else {
      continue;
    }
    m += mq;
    for (int k = 0; k < 3; k++) s[k] += mq * q[k];
  }
  cells[c].mass = m;
  for (int k = 0; k < 3; k++) cells[c].pos[k] = s[k] / m;
}

static void cofm_subtree(cell_t* cells, const bpos_t* bp, int c) {
  for (int o = 0; o < 8; o++)
    if (cells[c].child[o] > 0) cofm_subtree(cells, bp, cells[c].child[o]);
  cofm_combine(cells, bp, c);
}

/* The cells above depth `stop` (those at depth `stop` are done already). */
static void cofm_top(cell_t* cells, const bpos_t* bp, int c, int depth, int stop) {
  if (depth == stop) return;
  for (int o = 0; o < 8; o++)
    if (cells[c].child[o] > 0) cofm_top(cells, bp, cells[c].child[o], depth + 1, stop);
  cofm_combine(cells, bp, c);
}

/* The cells at the first depth having >= want cells (or the deepest level),
 * in depth-first octant order; returns their count, *depth_out their depth. */
static int frontier(const cell_t* cells, int want, int** out, int* depth_out) {
  int cap = 64, n = 1, depth = 0;
  int* cur = (int*)malloc(sizeof(int) * (size_t)cap);
  cur[0] = 0;
  while (n < want) {
    int m = 0;
    for (int i = 0; i < n; i++)
      for (int o = 0; o < 8; o++) m += cells[cur[i]].child[o] > 0;
    if (m == 0) break;
    int* nx = (int*)malloc(sizeof(int) * (size_t)m);
    m = 0;
    for (int i = 0; i < n; i++)
      for (int o = 0; o < 8; o++)
        if (cells[cur[i]].child[o] > 0) nx[m++] = cells[cur[i]].child[o];
    free(cur);
    cur = nx;
    n = m;
    depth++;
  }
  *out = cur;
  *depth_out = depth;
  return n;
}

/* Force on body i: walk from the root, SPLASH-2's opening test
 * (open a cell if size^2 > theta^2 * d^2), softened monopole gravity. */
static void force_body(const tree_t* t, int i, double theta2, double eps2, double acc[3], double* phi) {
  const cell_t* cells = t->cells;
  const bpos_t* bp = t->bp;
  const double* p = bp[i].pos;
  int stack[STACK];
  double ssize[STACK];
  int sp = 0;
  double a[3] = {0, 0, 0}, ph = 0;
  stack[sp] = 0;
  ssize[sp++] = t->rsize;
  while (sp > 0) {
    sp--;
    int c = stack[sp];
    double size = ssize[sp];
    const cell_t* cl = &cells[c];
    double dr[3], d2 = 0;
    for (int k = 0; k < 3; k++) {
      dr[k] = cl->pos[k] - p[k];
      d2 += dr[k] * dr[k];
    }
    if (!(theta2 * d2 < size * size)) { /* far enough: the cell as a whole */
      double r2 = d2 + eps2, inv = 1.0 / sqrt(r2), mi = cl->mass * inv, mi3 = mi * inv * inv;
      ph -= mi;
      for (int k = 0; k < 3; k++) a[k] += mi3 * dr[k];
      continue;
    }
    for (int o = 0; o < 8; o++) {
      int ch = cl->child[o];
      if (ch > 0) {
        if (sp >= STACK) {
          fprintf(stderr, "barnes: tree walk stack overflow\n");
          abort();
        }
        stack[sp] = ch;
        ssize[sp++] = 0.5 * size;
      } else if (ch < 0 && -ch - 1 != i) {
        const bpos_t* q = &bp[-ch - 1];
        double e[3], r2 = eps2;
        for (int k = 0; k < 3; k++) {
          e[k] = q->pos[k] - p[k];
          r2 += e[k] * e[k];
        }
        double inv = 1.0 / sqrt(r2), mi = q->mass * inv, mi3 = mi * inv * inv;
        ph -= mi;
        for (int k = 0; k < 3; k++) a[k] += mi3 * e[k];
      }
    }
  }
  for (int k = 0; k < 3; k++) acc[k] = a[k];
  *phi = ph;
}

/* Force phase for bodies [b0, b1): new acceleration, SPLASH-2's velocity
 * correction (step > 0), and the energy / momentum sums at this synchronized
 * time: e[0] kinetic, e[1] potential, e[2..4] momentum, e[5] sum m|v|. */
static void forces(const tree_t* t, bdyn_t* bd, int b0, int b1, int step, double dt, double theta2, double eps2,
                   int skip, double e_out[6]) {
  const bpos_t* bp = t->bp;
  double e[6] = {0, 0, 0, 0, 0, 0}; /* local: e_out is shared memory */
  for (int i = b0; i < b1; i++) {
    double acc[3], phi;
    if (i == skip) { /* --corrupt */
      for (int k = 0; k < 3; k++) acc[k] = bd[i].acc[k];
      phi = bd[i].phi;
    } else {
      force_body(t, i, theta2, eps2, acc, &phi);
    }
    if (step > 0)
      for (int k = 0; k < 3; k++) bd[i].vel[k] += (acc[k] - bd[i].acc[k]) * (0.5 * dt);
    for (int k = 0; k < 3; k++) bd[i].acc[k] = acc[k];
    bd[i].phi = phi;
    double m = bp[i].mass, v2 = 0;
    for (int k = 0; k < 3; k++) {
      v2 += bd[i].vel[k] * bd[i].vel[k];
      e[2 + k] += m * bd[i].vel[k];
    }
    e[0] += 0.5 * m * v2;
    e[1] += 0.5 * m * phi;
    e[5] += m * sqrt(v2);
  }
  for (int k = 0; k < 6; k++) e_out[k] = e[k];
}

/* Update of bodies [b0, b1) (SPLASH-2 stepsystem) and their bounding box. */
static void advance(bpos_t* bp, bdyn_t* bd, int b0, int b1, double dt, double lo[3], double hi[3]) {
  for (int k = 0; k < 3; k++) {
    lo[k] = HUGE_VAL;
    hi[k] = -HUGE_VAL;
  }
  for (int i = b0; i < b1; i++)
    for (int k = 0; k < 3; k++) {
      double dvel = bd[i].acc[k] * (0.5 * dt), vel1 = bd[i].vel[k] + dvel;
      bp[i].pos[k] += vel1 * dt;
      bd[i].vel[k] = vel1 + dvel;
      if (bp[i].pos[k] < lo[k]) lo[k] = bp[i].pos[k];
      if (bp[i].pos[k] > hi[k]) hi[k] = bp[i].pos[k];
    }
}

static void bbox(const bpos_t* bp, int b0, int b1, double lo[3], double hi[3]) {
  for (int k = 0; k < 3; k++) {
    lo[k] = HUGE_VAL;
    hi[k] = -HUGE_VAL;
  }
  for (int i = b0; i < b1; i++)
    for (int k = 0; k < 3; k++) {
      if (bp[i].pos[k] < lo[k]) lo[k] = bp[i].pos[k];
      if (bp[i].pos[k] > hi[k]) hi[k] = bp[i].pos[k];
    }
}

/* The sequential reference: the same code on private memory, one worker. */
static void reference(int n, int steps, double dt, double theta2, double eps2, bpos_t* bp, bdyn_t* bd, int* ncells) {
  int cap = ROOT_CELLS + 2 * n + 64;
  tree_t t = {0};
  t.cells = (cell_t*)calloc((size_t)cap, sizeof(cell_t));
  t.bp = bp;
  t.locking = 0;
  t.pool_begin = ROOT_CELLS;
  t.end = cap;
  double lo[3], hi[3], e[6];
  bbox(bp, 0, n, lo, hi);
  for (int s = 0; s < steps; s++) {
    set_root(&t, lo, hi);
    memset(&t.cells[0], 0, sizeof(cell_t));
    t.next = t.pool_begin;
    for (int i = 0; i < n; i++) insert(&t, i);
    cofm_subtree(t.cells, bp, 0);
    forces(&t, bd, 0, n, s, dt, theta2, eps2, -1, e);
    advance(bp, bd, 0, n, dt, lo, hi);
  }
  *ncells = t.next - t.pool_begin + 1;
  free(t.cells);
}

/* Per-worker record in shared memory (one 64-byte-aligned stride each). */
enum { R_LO = 0, R_HI = 3, R_TBUILD = 6, R_TCOFM, R_TFORCE, R_TUPDATE, R_CELLS, R_E = 11 };

static int worker(int argc, char** argv) {
  const int n = par_arg_int(argc, argv, "bodies", 16384);
  const int steps = par_arg_int(argc, argv, "steps", 3);
  const double dt = par_arg_double(argc, argv, "dt", 0.025);
  const double theta = par_arg_double(argc, argv, "theta", 1.0);
  const double eps = par_arg_double(argc, argv, "eps", 0.05);
  const unsigned long long seed = (unsigned long long)par_arg_int(argc, argv, "seed", 123);
  const int corrupt = par_arg_flag(argc, argv, "corrupt");
  const int nosort = par_arg_flag(argc, argv, "nosort");
  const int nocache = par_arg_flag(argc, argv, "nocache");
  const int id = par_id(), nw = par_nworkers();
  const double theta2 = theta * theta, eps2 = eps * eps;
  if (n < 2 || steps < 1) {
    if (id == 0) fprintf(stderr, "barnes: need --bodies >= 2 and --steps >= 1\n");
    return 2;
  }
  const int b0 = (int)((long)n * id / nw), b1 = (int)((long)n * (id + 1) / nw);

  /* Everyone generates the same bodies privately and first-touches its own
   * block of the shared arrays; worker 0 keeps its copy for the reference. */
  bpos_t* ipos = (bpos_t*)malloc(sizeof(bpos_t) * (size_t)n);
  bdyn_t* idyn = (bdyn_t*)malloc(sizeof(bdyn_t) * (size_t)n);
  plummer(n, seed, ipos, idyn);
  if (!nosort) morton_sort(n, ipos, idyn);

  const int pool = ((2 * n + 64 + 63) / 64) * 64; /* cells per worker, whole pages */
  const int stride = ((R_E + 6 * steps + 7) / 8) * 8;
  bpos_t* bp = (bpos_t*)par_alloc(sizeof(bpos_t) * (size_t)n);
  bdyn_t* bd = (bdyn_t*)par_alloc(sizeof(bdyn_t) * (size_t)n);
  cell_t* cells = (cell_t*)par_alloc(sizeof(cell_t) * ((size_t)ROOT_CELLS + (size_t)pool * nw));
  double* rec = (double*)par_alloc(sizeof(double) * (size_t)stride * nw);
  double* my = rec + (size_t)stride * id;

  memcpy(bp + b0, ipos + b0, sizeof(bpos_t) * (size_t)(b1 - b0));
  memcpy(bd + b0, idyn + b0, sizeof(bdyn_t) * (size_t)(b1 - b0));
  tree_t t = {0};
  t.cells = cells;
  t.bp = bp;
  t.locking = 1;
  t.pool_begin = ROOT_CELLS + pool * id;
  t.end = t.pool_begin + pool;
  const size_t ncells_all = (size_t)ROOT_CELLS + (size_t)pool * nw;
  if (!nocache) {
    t.known = (int*)calloc(ncells_all * 8, sizeof(int));
    t.kset = (size_t*)malloc(sizeof(size_t) * ncells_all);
  }
  for (int c = t.pool_begin; c < t.end; c += 64) memset(&cells[c], 0, sizeof(cell_t)); /* first touch */
  bbox(bp, b0, b1, my + R_LO, my + R_HI);
  if (id == 0) memset(&cells[0], 0, sizeof(cell_t)); /* the root */
  par_barrier();

  double tb = 0, tc = 0, tf = 0, tu = 0;
  int cells_used = 0;
  par_region_begin();
  for (int s = 0; s < steps; s++) {
    /* (1) tree build: the root box from every worker's bounding box */
    double t0 = par_time();
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (int w = 0; w < nw; w++)
      for (int k = 0; k < 3; k++) {
        const double* r = rec + (size_t)stride * w;
        if (r[R_LO + k] < lo[k]) lo[k] = r[R_LO + k];
        if (r[R_HI + k] > hi[k]) hi[k] = r[R_HI + k];
      }
    set_root(&t, lo, hi);
    t.next = t.pool_begin;
    forget_all(&t);
    for (int i = b0; i < b1; i++) insert(&t, i);
    cells_used = t.next - t.pool_begin;
    tb += par_time() - t0;
    par_barrier(); /* the tree is complete: from here on it is read-only */

    /* (2) centre of mass: one worker per subtree, then worker 0 on top */
    t0 = par_time();
    int *front, fdepth;
    int nf = frontier(cells, 8 * nw, &front, &fdepth);
    for (int f = id; f < nf; f += nw) cofm_subtree(cells, bp, front[f]);
    free(front);
    double tmid = par_time();
    tc += tmid - t0;
    par_barrier();
    t0 = par_time();
    if (id == 0) cofm_top(cells, bp, 0, 0, fdepth);
    tc += par_time() - t0;
    par_barrier();

    /* (3) forces on the worker's own bodies */
    t0 = par_time();
    int skip = corrupt && s == 0 && id == nw - 1 ? b0 : -1;
    forces(&t, bd, b0, b1, s, dt, theta2, eps2, skip, my + R_E + 6 * s);
    tf += par_time() - t0;
    par_barrier(); /* everyone has finished reading positions and cells */

    /* (4) update of own bodies; worker 0 clears the root for the next step */
    t0 = par_time();
    advance(bp, bd, b0, b1, dt, my + R_LO, my + R_HI);
    if (id == 0) memset(&cells[0], 0, sizeof(cell_t));
    tu += par_time() - t0;
    par_barrier();
  }
  my[R_TBUILD] = tb;
  my[R_TCOFM] = tc;
  my[R_TFORCE] = tf;
  my[R_TUPDATE] = tu;
  my[R_CELLS] = cells_used;
  par_region_end(); /* ends with a barrier: every worker's record is visible */

  int valid = 1;
  char extra[512];
  extra[0] = 0;
  if (id == 0) {
    double mx[4] = {0, 0, 0, 0}, ncells = 1;
    for (int w = 0; w < nw; w++) {
      const double* r = rec + (size_t)stride * w;
      for (int k = 0; k < 4; k++)
        if (r[R_TBUILD + k] > mx[k]) mx[k] = r[R_TBUILD + k];
      ncells += r[R_CELLS];
    }
    /* energy and momentum at the first and the last force phase */
    double e0[6] = {0}, e1[6] = {0};
    for (int w = 0; w < nw; w++) {
      const double* r = rec + (size_t)stride * w;
      for (int k = 0; k < 6; k++) {
        e0[k] += r[R_E + k];
        e1[k] += r[R_E + 6 * (steps - 1) + k];
      }
    }
    double E0 = e0[0] + e0[1], E1 = e1[0] + e1[1];
    double dE = fabs(E1 - E0) / fabs(E0);
    double dP = sqrt((e1[2] - e0[2]) * (e1[2] - e0[2]) + (e1[3] - e0[3]) * (e1[3] - e0[3]) +
                     (e1[4] - e0[4]) * (e1[4] - e0[4])) /
                e0[5];

    /* the sequential reference, bit for bit */
    int refcells;
    reference(n, steps, dt, theta2, eps2, ipos, idyn, &refcells);
    long diff = 0;
    double dmax = 0;
    for (int i = 0; i < n; i++)
      for (int k = 0; k < 3; k++) {
        if (bp[i].pos[k] != ipos[i].pos[k] || bd[i].vel[k] != idyn[i].vel[k]) diff++;
        double d = fabs(bp[i].pos[k] - ipos[i].pos[k]);
        if (d > dmax) dmax = d;
      }
    int exact = diff == 0 && refcells == (int)ncells;
    if (!exact)
      fprintf(stderr, "barnes: %ld coordinates differ from the sequential run (max |dx| %.3e), cells %d vs %d\n",
              diff, dmax, (int)ncells, refcells);
    const double dE_max = 5e-3, dP_max = 1e-3 * steps;
    if (!(dE < dE_max)) fprintf(stderr, "barnes: energy drift %.3e is too large\n", dE);
    if (!(dP < dP_max)) fprintf(stderr, "barnes: momentum drift %.3e is too large\n", dP);
    valid = exact && dE < dE_max && dP < dP_max;
    snprintf(extra, sizeof extra,
             "\"bodies\": %d, \"steps\": %d, \"cells\": %d, \"tree_build_time\": %.6f, \"cofm_time\": %.6f, "
             "\"force_time\": %.6f, \"update_time\": %.6f, \"energy\": %.9f, \"energy_drift\": %.3e, "
             "\"momentum_drift\": %.3e, \"max_dx\": %.3e",
             n, steps, (int)ncells, mx[0], mx[1], mx[2], mx[3], E1, dE, dP, dmax);
  }
  par_report("barnes", valid, extra);
  free(ipos);
  free(idyn);
  free(t.known);
  free(t.kset);
  par_free(rec);
  par_free(cells);
  par_free(bd);
  par_free(bp);
  return 0;
}

int main(int argc, char** argv) { return par_main(argc, argv, worker); }
