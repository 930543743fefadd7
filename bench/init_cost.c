/* init_cost: what loom_init costs a rank for a given size of global memory:
 * its time, and the memory it makes resident (the per-page tables and the
 * Meta segment's copy-sets and directory are resident only where touched;
 * before 2026-12-07 the tables were filled at init, 14-17 bytes a page).
 * Then what a collective block of a quarter of the global memory costs to
 * allocate and to free, in time and resident memory (its pages' entries
 * are written at allocation).  The program starts MPI itself, then for each size
 * named on the command line (bytes, K/M/G/T suffixes) runs loom_init and
 * loom_finalize, reading VmRSS and VmSize from /proc/self/status before,
 * after init, and after finalize (the tables are given back); also the
 * Meta segment's size (loom_stats_t.meta_bytes, sized by the rank count)
 * and the most any rank made resident, after init and after a barrier and
 * a lock.
 *
 *   mpiexec -n 2 build/bench/init_cost 1G 64G 256G
 *
 * Prints one JSON object per size on rank 0. */
#include <loom/loom.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void vm_status(unsigned long long* rss, unsigned long long* vsz) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  *rss = *vsz = 0;
  while (f && fgets(line, sizeof line, f)) {
    sscanf(line, "VmRSS: %llu kB", rss);
    sscanf(line, "VmSize: %llu kB", vsz);
  }
  if (f) fclose(f);
  *rss *= 1024;
  *vsz *= 1024;
}

static unsigned long long parse_size(const char* s) {
  char* end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  switch (*end) {
    case 'T': v <<= 10; /* fall through */
    case 'G': v <<= 10; /* fall through */
    case 'M': v <<= 10; /* fall through */
    case 'K': v <<= 10; break;
    default: break;
  }
  return v;
}

int main(int argc, char** argv) {
  int provided = 0, me = 0, n = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (int i = 1; i < argc; i++) {
    loom_config_t cfg;
    loom_config_default(&cfg);
    cfg.mem_size = parse_size(argv[i]);
    unsigned long long rss0, vsz0, rss1, vsz1, rss2, vsz2;
    vm_status(&rss0, &vsz0);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    loom_status_t s = loom_init(NULL, NULL, &cfg);
    double t1 = MPI_Wtime();
    vm_status(&rss1, &vsz1);
    if (s != LOOM_OK) {
      if (me == 0) fprintf(stderr, "init_cost: %s: %s\n", argv[i], loom_last_error());
      continue;
    }
    /* Its Meta segment (sized by the rank count), and what a barrier and a
     * lock taken by every rank in turn make resident on top (ring heads,
     * interval records, queue nodes). */
    loom_stats_t st;
    loom_stats_get(&st);
    unsigned long long rss3, vsz3, rss_max = 0, sync_max = 0;
    loom_barrier();
    loom_lock(0);
    loom_unlock(0);
    loom_barrier();
    vm_status(&rss3, &vsz3);
    unsigned long long mine[3] = {rss1 - rss0, rss3 - rss0, 0}, most[3];
    /* A block of a quarter of the memory, allocated and freed. */
    void* block = NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    double ta0 = MPI_Wtime();
    loom_status_t as = loom_alloc_collective((size_t)(cfg.mem_size / 4), &block);
    double ta1 = MPI_Wtime();
    unsigned long long rss4, vsz4;
    vm_status(&rss4, &vsz4);
    mine[2] = rss4 - rss3;
    if (as == LOOM_OK) loom_free_collective(block);
    else if (me == 0) fprintf(stderr, "init_cost: %s: the quarter block: %s\n", argv[i], loom_last_error());
    double ta2 = MPI_Wtime();
    MPI_Allreduce(mine, most, 3, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    rss_max = most[0];
    sync_max = most[1];
    loom_finalize();
    vm_status(&rss2, &vsz2);
    const double pages = (double)cfg.mem_size / 4096.0;
    if (me == 0)
      printf("{\"ranks\": %d, \"mem_size\": %llu, \"init_s\": %.4f, \"rss_added_by_init\": %llu, "
             "\"rss_bytes_per_page\": %.2f, \"address_space_added_by_init\": %llu, \"rss_after_finalize_minus_before\": %lld, "
             "\"meta_bytes\": %llu, \"rss_added_by_init_max_rank\": %llu, \"rss_added_after_barrier_and_lock_max_rank\": %llu, "
             "\"quarter_alloc_s\": %.4f, \"quarter_free_s\": %.4f, \"rss_added_by_quarter_alloc_max_rank\": %llu, "
             "\"quarter_alloc_bytes_per_page\": %.2f}\n",
             n, (unsigned long long)cfg.mem_size, t1 - t0, rss1 - rss0, (double)(rss1 - rss0) / pages, vsz1 - vsz0,
             (long long)rss2 - (long long)rss0, (unsigned long long)st.meta_bytes, rss_max, sync_max, ta1 - ta0, ta2 - ta1,
             most[2], (double)most[2] / (pages / 4));
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
