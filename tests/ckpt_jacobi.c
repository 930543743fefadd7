/* ckpt_jacobi: Jacobi relaxation that checkpoints itself and can be killed
 * and restarted (tests/checkpoint.sh runs it three ways and compares).
 *
 *   ckpt_jacobi N SWEEPS EVERY DIE_AT
 *
 * An N x N grid (top edge 1, the rest 0), rows split among the ranks; two
 * collective arrays and a collective state page holding the next sweep.
 * After every EVERY-th sweep, loom_checkpoint(NULL) (LOOM_CHECKPOINT_DIR).
 * After sweep DIE_AT (-1: never) the last rank kills itself with SIGKILL.
 * With LOOM_RESTART set, the same collective allocations get the saved
 * blocks back and the loop continues from the saved sweep.  Rank 0 prints
 * "checksum <hex>" (FNV-1a of the final grid's bytes, so equal means
 * bit-identical), "restarted at sweep S" after a restart, and the time of
 * each checkpoint with the bytes the ranks hold.
 *
 * CKPT_SQUAT=restart|ADDRESS: before loom_init the last rank maps a page at
 * the restart's checkpoint address (read from LOOM_RESTART's LATEST) or at
 * ADDRESS, standing in for a thread stack or an MPI segment that the
 * process's random layout placed there.  It says whether the page was free. */
#include <loom/loom.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The address a restart will need: LATEST is {"LOOMCKP2", seq, nranks,
 * mem_size, base} (src/checkpoint.cpp). */
static uint64_t restart_base(void) {
  const char* dir = getenv("LOOM_RESTART");
  char path[4096];
  uint64_t f[5] = {0};
  snprintf(path, sizeof path, "%s/LATEST", dir ? dir : ".");
  FILE* fp = fopen(path, "rb");
  if (!fp) return 0;
  const size_t got = fread(f, sizeof f, 1, fp);
  fclose(fp);
  return got == 1 && !memcmp(f, "LOOMCKP2", 8) ? f[4] : 0;
}

static void squat(const char* what) {
  const char* ranks = getenv("PMI_SIZE") ? getenv("PMI_SIZE") : getenv("OMPI_COMM_WORLD_SIZE");
  const char* rank = getenv("PMI_RANK") ? getenv("PMI_RANK") : getenv("OMPI_COMM_WORLD_RANK");
  if (!ranks || !rank || atoi(rank) != atoi(ranks) - 1) return;
  const uint64_t at = !strcmp(what, "restart") ? restart_base() : strtoull(what, NULL, 0);
  if (!at) {
    fprintf(stderr, "CKPT_SQUAT=%s: no address\n", what);
    exit(2);
  }
  void* p = mmap((void*)(uintptr_t)at, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | 0x100000 /* MAP_FIXED_NOREPLACE */,
                 -1, 0);
  printf("squat at 0x%llx: %s\n", (unsigned long long)at, p == (void*)(uintptr_t)at ? "taken" : "already held");
  fflush(stdout);
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: ckpt_jacobi N SWEEPS EVERY DIE_AT\n");
    return 2;
  }
  const long N = atol(argv[1]), sweeps = atol(argv[2]), every = atol(argv[3]), die_at = atol(argv[4]);
  if (getenv("CKPT_SQUAT")) squat(getenv("CKPT_SQUAT"));
  if (loom_init(&argc, &argv, NULL) != LOOM_OK) {
    fprintf(stderr, "loom_init: %s\n", loom_last_error());
    return 2;
  }
  const int me = loom_rank(), n = loom_nranks();
  double *a = NULL, *b = NULL;
  volatile long* state = NULL;
  const size_t bytes = (size_t)N * (size_t)N * sizeof(double);
  if (loom_alloc_collective(bytes, (void**)&a) != LOOM_OK || loom_alloc_collective(bytes, (void**)&b) != LOOM_OK ||
      loom_alloc_collective(4096, (void**)&state) != LOOM_OK) {
    fprintf(stderr, "rank %d: allocation: %s\n", me, loom_last_error());
    return 2;
  }
  const long lo = 1 + (N - 2) * me / n, hi = 1 + (N - 2) * (me + 1) / n; /* interior rows [lo, hi) */
  long start = 0;
  if (loom_restarted()) {
    start = state[0];
    if (me == 0) printf("restarted at sweep %ld\n", start);
  } else {
    for (long i = lo; i < hi; i++)
      for (long j = 0; j < N; j++) a[i * N + j] = b[i * N + j] = 0.0;
    if (me == 0) {
      for (long j = 0; j < N; j++) a[j] = b[j] = 1.0;
      for (long j = 0; j < N; j++) a[(N - 1) * N + j] = b[(N - 1) * N + j] = 0.0;
      state[0] = 0;
    }
  }
  loom_barrier();
  double ck_time = 0;
  int ck_count = 0;
  for (long s = start; s < sweeps; s++) {
    const double* src = s % 2 ? b : a;
    double* dst = s % 2 ? a : b;
    for (long i = lo; i < hi; i++)
      for (long j = 1; j < N - 1; j++)
        dst[i * N + j] = 0.25 * (src[(i - 1) * N + j] + src[(i + 1) * N + j] + src[i * N + j - 1] + src[i * N + j + 1]);
    loom_barrier();
    if (me == 0) state[0] = s + 1;
    if (every > 0 && (s + 1) % every == 0) {
      double t0 = MPI_Wtime();
      loom_status_t st = loom_checkpoint(NULL);
      ck_time += MPI_Wtime() - t0;
      ck_count++;
      if (st != LOOM_OK) {
        fprintf(stderr, "rank %d: loom_checkpoint: %s\n", me, loom_last_error());
        return 1;
      }
    }
    if (s + 1 == die_at && me == n - 1) {
      fprintf(stderr, "rank %d dies after sweep %ld\n", me, s + 1);
      fflush(stderr);
      kill(getpid(), SIGKILL);
    }
  }
  loom_barrier();
  if (me == 0) {
    const double* fin = sweeps % 2 ? b : a;
    const unsigned char* p = (const unsigned char*)fin;
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < bytes; k++) h = (h ^ p[k]) * 1099511628211ull;
    printf("checksum %016llx\n", (unsigned long long)h);
    if (ck_count)
      printf("checkpoints %d, %.4f s each, global memory in use %.1f MiB (%.2f s/GiB)\n", ck_count, ck_time / ck_count,
             (2.0 * bytes + 4096) / 1048576.0, ck_time / ck_count / ((2.0 * bytes + 4096) / 1073741824.0));
  }
  loom_finalize();
  return 0;
}
