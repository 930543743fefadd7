// A writer rewrites every page of a block each phase and the other rank
// reads it after a barrier: stale words are printed per phase.
// stale PAGES WRITER HOME (run.sh: across 2 emulated hosts under rma).
#include <loom/loom.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  if (loom_init(&argc, &argv, NULL) != 0) return 1;
  int r = loom_rank(), n = loom_nranks();
  int pages = argc > 1 ? atoi(argv[1]) : 16;
  int writer = argc > 2 ? atoi(argv[2]) : 0;
  int home = argc > 3 ? atoi(argv[3]) : 0;
  uint64_t M = (uint64_t)pages * 512;
  uint64_t* a = NULL;
  loom_alloc_collective_at(M * 8, home, (void**)&a);
  long totbad = 0;
  for (int ph = 0; ph < 8; ph++) {
    if (r == writer) for (uint64_t i = 0; i < M; i++) a[i] = i * 7 + ph * 1000003;
    loom_barrier();
    long bad = 0; uint64_t firstbad = (uint64_t)-1;
    for (uint64_t i = 0; i < M; i++) if (a[i] != i * 7 + ph * 1000003) { if (!bad) firstbad = i; bad++; }
    if (bad) fprintf(stderr, "rank %d phase %d: %ld stale words, first %lu (page %lu) value %lu\n", r, ph, bad, firstbad, firstbad/512, a[firstbad]);
    totbad += bad;
    loom_barrier();
  }
  printf("rank %d: %s (%ld stale)\n", r, totbad ? "FAIL" : "ok", totbad);
  loom_finalize();
  return totbad ? 1 : 0;
}
