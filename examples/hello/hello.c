/* The smallest Loom program: every rank writes its share of an array, a
 * barrier, everyone checks the whole array, a lock-protected counter.
 * Exits non-zero if anything is wrong. */
#include <loom/loom.h>
#include <stdio.h>

int main(int argc, char** argv) {
  loom_status_t s = loom_init(&argc, &argv, NULL);
  if (s != LOOM_OK) {
    fprintf(stderr, "loom_init: %s: %s\n", loom_strerror(s), loom_last_error());
    return 1;
  }
  int r = loom_rank(), n = loom_nranks(), bad = 0;
  long* a = NULL;
  const long N = 1 << 16;
  if (loom_alloc_collective((N + 1) * sizeof(long), (void**)&a) != LOOM_OK) return 1;
  for (long i = r; i < N; i += n) a[i] = 3 * i;
  loom_barrier();
  for (long i = 0; i < N; i++) bad += a[i] != 3 * i;
  loom_lock(0);
  a[N] += 1;
  loom_unlock(0);
  loom_barrier();
  bad += a[N] != n;
  if (r == 0) printf("hello from %d ranks: %s\n", n, bad ? "WRONG" : "ok");
  loom_finalize();
  return bad != 0;
}
