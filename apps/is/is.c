/* NAS IS (Integer Sort), following NPB's is.c (the counting-sort ranking
 * without buckets) and the TreadMarks IS: 2^n keys in [0, 2^k) are ranked
 * ten times.  Keys are generated with NPB's randlc (a = 5^13, seed
 * 314159265): each key is (max_key/4) * (sum of 4 draws); every worker
 * generates its contiguous share, skipping ahead in the stream to it, as
 * NPB's find_my_seed does.  Ranking iteration i (1..10) first sets
 * key[i] = i and key[i+10] = max_key - i, as NPB does; one untimed iteration
 * (i = 1) precedes the ten timed ones, as in NPB.
 *
 * Parallel ranking, per iteration:
 *   count   each worker counts its contiguous share of keys into a private
 *           histogram;
 *   merge   lock (default, as TreadMarks IS): the shared histogram is cut
 *           into one part per worker, each part under its own lock; worker w
 *           adds its private counts into part w, w+1, ... (staggered, so the
 *           workers pipeline instead of queueing on one lock);
 *           --merge-array: each worker copies its private histogram to its
 *           own row of a shared per-worker array; barrier; worker w sums the
 *           rows over its key slice;
 *   prefix  worker w turns its key slice into an inclusive prefix sum and
 *           posts the slice total; barrier; adds the totals of the slices
 *           before it.
 * Barriers separate the phases.  The shared histogram alternates between
 * two arrays (pass parity) so zeroing one never races with reading the
 * other.  The result, as NPB's key_buff1, is cum[k] = number of keys <= k;
 * the rank of key k is cum[k-1].
 *
 * Validation (worker 0, untimed):
 *   partial  each iteration worker 0 records the ranks of 5 test keys, as
 *            NPB's partial_verify.  For class S (2^16 keys, max 2^11) and
 *            class A (2^23, 2^19) they must equal NPB's test_rank_array
 *            with NPB's per-iteration shifts; for every size they must equal
 *            those of a sequential ranking computed in the same run (keys
 *            generated sequentially by worker 0, the ten iterations ranked
 *            sequentially);
 *   exact    the final shared keys and cumulative histogram must equal the
 *            sequential ones;
 *   full     NPB's full_verify: the keys are placed by their final ranks
 *            (key_array[--cum[key]] = key); every slot must be filled once
 *            and the order must be nondecreasing.
 *
 *   is [--log2keys 23] [--log2maxkey 19] [--merge-array] [--corrupt]
 *
 * --corrupt: the last worker does not count its last key in the last
 * iteration.  Sub-phase times in the RESULT line are the slowest worker's
 * totals over the ten timed iterations.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"

#define MAX_ITERATIONS 10
#define TEST_ARRAY_SIZE 5
#define A_MULT 1220703125ULL /* 5^13 */
#define SEED 314159265ULL
#define MASK46 ((1ULL << 46) - 1)
#define ALIGN 1024 /* ints per 4 KiB page: shares and slices start on pages */

static const int S_test_index_array[TEST_ARRAY_SIZE] = {48427, 17148, 23627, 62548, 4431};
static const int S_test_rank_array[TEST_ARRAY_SIZE] = {0, 18, 346, 64917, 65463};
static const int A_test_index_array[TEST_ARRAY_SIZE] = {2112377, 662041, 5336171, 3642833, 4250760};
static const int A_test_rank_array[TEST_ARRAY_SIZE] = {104, 17523, 123928, 8288932, 8388264};

/* randlc in integer form: x <- a*x mod 2^46, returns x * 2^-46 (NPB's
 * double-precision randlc computes exactly this). */
static inline uint64_t mulmod46(uint64_t a, uint64_t x) { return (a * x) & MASK46; }
static const double R46 = 1.0 / 70368744177664.0; /* 2^-46 */

/* The seed after skipping n draws: SEED * a^n. */
static uint64_t skip_seed(uint64_t n) {
  uint64_t s = SEED, p = A_MULT;
  while (n) {
    if (n & 1) s = mulmod46(p, s);
    p = mulmod46(p, p);
    n >>= 1;
  }
  return s;
}

/* NPB's create_seq for keys [k1, k2). */
static void create_seq(int* key, long k1, long k2, int max_key) {
  uint64_t s = skip_seed(4 * (uint64_t)k1);
  const int k = max_key / 4;
  for (long i = k1; i < k2; i++) {
    double x = 0;
    for (int j = 0; j < 4; j++) {
      s = mulmod46(A_MULT, s);
      x += (double)s * R46;
    }
    key[i] = (int)(k * x);
  }
}

/* Start of block w of n items cut in nw parts, on ALIGN boundaries. */
static long block(long n, int w, int nw) {
  if (w >= nw) return n;
  long b = n * w / nw;
  return b - b % ALIGN;
}

/* NPB's per-class expected rank of test key i at iteration it. */
static int npb_expected(char cls, int i, int it) {
  if (cls == 'S') return i <= 2 ? S_test_rank_array[i] + it : S_test_rank_array[i] - it;
  return i <= 2 ? A_test_rank_array[i] + (it - 1) : A_test_rank_array[i] - (it - 1);
}

static void modify_keys(int* key, long k1, long k2, int it, int max_key) {
  if (it >= k1 && it < k2) key[it] = it;
  if (it + MAX_ITERATIONS >= k1 && it + MAX_ITERATIONS < k2) key[it + MAX_ITERATIONS] = max_key - it;
}

static int worker(int argc, char** argv) {
  const int lk = par_arg_int(argc, argv, "log2keys", 23);
  const int lm = par_arg_int(argc, argv, "log2maxkey", 19);
  const int use_array = par_arg_flag(argc, argv, "merge-array");
  const int corrupt = par_arg_flag(argc, argv, "corrupt");
  const int id = par_id(), nw = par_nworkers();
  if (lk < 10 || lk > 30 || lm < 2 || lm > 30) {
    if (id == 0) fprintf(stderr, "is: need 10 <= --log2keys <= 30 and 2 <= --log2maxkey <= 30\n");
    return 2;
  }
  const long nkeys = 1L << lk;
  const int max_key = 1 << lm;
  const char cls = (lk == 16 && lm == 11) ? 'S' : (lk == 23 && lm == 19) ? 'A' : 0;
  int test_index[TEST_ARRAY_SIZE];
  for (int i = 0; i < TEST_ARRAY_SIZE; i++)
    test_index[i] = cls == 'S'   ? S_test_index_array[i]
                    : cls == 'A' ? A_test_index_array[i]
                                 : (int)(nkeys * (2 * i + 1) / 10); /* spread, all > 20 */

  /* My share of keys and my slice of key values. */
  const long k1 = block(nkeys, id, nw), k2 = block(nkeys, id + 1, nw);
  const long v1 = block(max_key, id, nw), v2 = block(max_key, id + 1, nw);

  int* key = (int*)par_alloc((size_t)nkeys * sizeof(int));
  int* hist[2];
  hist[0] = (int*)par_alloc((size_t)max_key * sizeof(int));
  hist[1] = (int*)par_alloc((size_t)max_key * sizeof(int));
  int* rows = use_array ? (int*)par_alloc((size_t)nw * max_key * sizeof(int)) : NULL;
  int* total = (int*)par_alloc((size_t)nw * 16 * sizeof(int)); /* a cache line each */
  double* times = (double*)par_alloc((size_t)nw * 8 * sizeof(double));
  int* priv = (int*)malloc((size_t)max_key * sizeof(int));

  /* First touch: each worker generates its keys and zeroes its slices. */
  create_seq(key, k1, k2, max_key);
  memset(hist[0] + v1, 0, (size_t)(v2 - v1) * sizeof(int));
  memset(hist[1] + v1, 0, (size_t)(v2 - v1) * sizeof(int));
  if (rows) memset(rows + (size_t)id * max_key, 0, (size_t)max_key * sizeof(int));
  par_barrier();

  int ranks[MAX_ITERATIONS + 1][TEST_ARRAY_SIZE]; /* worker 0: partial verification */
  int vals[MAX_ITERATIONS + 1][TEST_ARRAY_SIZE];
  double t_count = 0, t_merge = 0, t_prefix = 0;

  /* The ranking passes; pass p leaves its cumulative histogram in hist[p & 1]. */
  for (int pass = 0; pass <= MAX_ITERATIONS; pass++) {
    /* pass 0: NPB's untimed rank(1); passes 1..10 are timed */
    const int it = pass == 0 ? 1 : pass;
    if (pass == 1) par_region_begin();
    int* cum = hist[pass & 1];
    double ta = par_time();

    modify_keys(key, k1, k2, it, max_key);
    if (id == 0)
      for (int i = 0; i < TEST_ARRAY_SIZE; i++) vals[it][i] = key[test_index[i]];
    if (!use_array) memset(cum + v1, 0, (size_t)(v2 - v1) * sizeof(int));
    memset(priv, 0, (size_t)max_key * sizeof(int));
    long kend = k2;
    if (corrupt && pass == MAX_ITERATIONS && id == nw - 1) kend--; /* drop one key once */
    for (long i = k1; i < kend; i++) priv[key[i]]++;
    double tb = par_time();

    double tc;
    if (!use_array) {
      par_barrier(); /* every slice is zeroed */
      tc = par_time();
      for (int j = 0; j < nw; j++) {
        int w = (id + j) % nw;
        long a = block(max_key, w, nw), b = block(max_key, w + 1, nw);
        par_lock(w);
        for (long k = a; k < b; k++) cum[k] += priv[k];
        par_unlock(w);
      }
      par_barrier(); /* all counts are in */
    } else {
      tc = par_time();
      memcpy(rows + (size_t)id * max_key, priv, (size_t)max_key * sizeof(int));
      par_barrier(); /* all rows are written */
      for (long k = v1; k < v2; k++) {
        int s = 0;
        for (int w = 0; w < nw; w++) s += rows[(size_t)w * max_key + k];
        cum[k] = s;
      }
    }
    double td = par_time();

    for (long k = v1 + 1; k < v2; k++) cum[k] += cum[k - 1];
    total[id * 16] = v2 > v1 ? cum[v2 - 1] : 0;
    par_barrier(); /* the slice totals are posted */
    int off = 0;
    for (int w = 0; w < id; w++) off += total[w * 16];
    if (off)
      for (long k = v1; k < v2; k++) cum[k] += off;
    double te = par_time();
    par_barrier(); /* cum is complete */

    if (pass > 0) {
      t_count += tb - ta;
      t_merge += td - tc;
      t_prefix += te - td;
    }
    if (id == 0)
      for (int i = 0; i < TEST_ARRAY_SIZE; i++) {
        int k = vals[it][i];
        ranks[it][i] = (k > 0 && k <= nkeys - 1) ? cum[k - 1] : -1; /* NPB tests 0 < k <= N-1 */
      }
  }
  par_region_end();
  times[id * 8 + 0] = t_count;
  times[id * 8 + 1] = t_merge;
  times[id * 8 + 2] = t_prefix;
  par_barrier();

  int valid = 1;
  char extra[512];
  extra[0] = 0;
  if (id == 0) {
    const int* cum = hist[MAX_ITERATIONS & 1]; /* the last pass's */
    /* Sequential reference: keys generated and ranked on worker 0 alone. */
    int* skey = (int*)malloc((size_t)nkeys * sizeof(int));
    int* scum = (int*)malloc((size_t)max_key * sizeof(int));
    create_seq(skey, 0, nkeys, max_key);
    int npb_failed = 0, seq_failed = 0, npb_passed = 0;
    for (int it = 1; it <= MAX_ITERATIONS; it++) {
      modify_keys(skey, 0, nkeys, it, max_key);
      memset(scum, 0, (size_t)max_key * sizeof(int));
      for (long i = 0; i < nkeys; i++) scum[skey[i]]++;
      for (long k = 1; k < max_key; k++) scum[k] += scum[k - 1];
      for (int i = 0; i < TEST_ARRAY_SIZE; i++) {
        int k = skey[test_index[i]];
        int r = (k > 0 && k <= nkeys - 1) ? scum[k - 1] : -1;
        if (vals[it][i] != k || ranks[it][i] != r) {
          seq_failed++;
          fprintf(stderr, "is: iteration %d test key %d: value %d rank %d, sequential %d rank %d\n", it, i,
                  vals[it][i], ranks[it][i], k, r);
        }
        if (cls && ranks[it][i] >= 0) {
          if (ranks[it][i] == npb_expected(cls, i, it))
            npb_passed++;
          else {
            npb_failed++;
            fprintf(stderr, "is: failed NPB partial verification: iteration %d, test key %d (rank %d, NPB %d)\n",
                    it, i, ranks[it][i], npb_expected(cls, i, it));
          }
        }
      }
    }
    long key_diff = 0, cum_diff = 0;
    for (long i = 0; i < nkeys; i++) key_diff += key[i] != skey[i];
    for (long k = 0; k < max_key; k++) cum_diff += cum[k] != scum[k];
    if (key_diff || cum_diff)
      fprintf(stderr, "is: %ld keys and %ld histogram entries differ from the sequential run\n", key_diff, cum_diff);

    /* NPB's full_verify on the shared result. */
    memcpy(scum, cum, (size_t)max_key * sizeof(int));
    int* sorted = (int*)malloc((size_t)nkeys * sizeof(int));
    for (long i = 0; i < nkeys; i++) sorted[i] = -1;
    long misplaced = 0, unsorted = 0;
    for (long i = 0; i < nkeys; i++) {
      int k = key[i];
      long pos = (long)--scum[k];
      if (pos < 0 || pos >= nkeys || sorted[pos] != -1)
        misplaced++;
      else
        sorted[pos] = k;
    }
    for (long i = 0; i < nkeys; i++)
      if (sorted[i] < 0 || (i > 0 && sorted[i - 1] > sorted[i])) unsorted++;
    if (misplaced || unsorted)
      fprintf(stderr, "is: full verification: %ld keys misplaced, %ld slots empty or out of order\n", misplaced,
              unsorted);

    valid = !npb_failed && !seq_failed && !key_diff && !cum_diff && !misplaced && !unsorted;
    if (cls && npb_passed != TEST_ARRAY_SIZE * MAX_ITERATIONS) valid = 0;
    free(sorted);
    free(scum);
    free(skey);

    double tc = 0, tm = 0, tp = 0;
    for (int w = 0; w < nw; w++) {
      if (times[w * 8] > tc) tc = times[w * 8];
      if (times[w * 8 + 1] > tm) tm = times[w * 8 + 1];
      if (times[w * 8 + 2] > tp) tp = times[w * 8 + 2];
    }
    char pv[64];
    if (cls)
      snprintf(pv, sizeof pv, "npb_class_%c+sequential", cls);
    else
      snprintf(pv, sizeof pv, "sequential");
    snprintf(extra, sizeof extra,
             "\"keys\": %ld, \"max_key\": %d, \"iterations\": %d, \"merge\": \"%s\", \"ranking_time\": %.6f, "
             "\"partial_verify\": \"%s\", \"npb_partial_passed\": %d, \"full_verify\": %s, "
             "\"count_time\": %.6f, \"merge_time\": %.6f, \"prefix_time\": %.6f",
             nkeys, max_key, MAX_ITERATIONS, use_array ? "array" : "lock", par_region_time(), pv, npb_passed,
             (misplaced || unsorted) ? "false" : "true", tc, tm, tp);
  }
  par_report("is", valid, extra);
  free(priv);
  par_free(times);
  par_free(total);
  if (rows) par_free(rows);
  par_free(hist[1]);
  par_free(hist[0]);
  par_free(key);
  return 0;
}

int main(int argc, char** argv) { return par_main(argc, argv, worker); }
