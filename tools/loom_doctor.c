/* loom_doctor: the preflight `loom doctor` runs under mpiexec (tools/loom).
 * Each check prints one line, "PASS|WARN|FAIL <check>: <what it found>
 * [-- <what to do>]", from rank 0; the exit status is 1 if any check
 * failed.  The checks: MPI and its version, the thread level, one-sided
 * progress while the target computes, which ranks share a host and whether
 * Loom maps them directly, that every rank reaches every other (and how
 * fast), the address range and mappings Loom needs, memory limits, and a
 * page fetched and a lock passed through Loom. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <loom/loom.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int me, n, failed;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void say(const char* level, const char* check, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(const char* level, const char* check, const char* fmt, ...) {
  if (!strcmp(level, "FAIL")) failed = 1;
  if (me != 0) return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  printf("%-4s %-22s %s\n", level, check, buf);
  fflush(stdout);
}

static long read_long(const char* path) {
  long v = -1;
  FILE* f = fopen(path, "r");
  if (f) {
    if (fscanf(f, "%ld", &v) != 1) v = -1;
    fclose(f);
  }
  return v;
}

/* This process's virtual size (VmSize), KiB. */
static long vm_size_kib(void) {
  long v = -1;
  char line[256];
  FILE* f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "VmSize: %ld", &v) == 1) break;
  fclose(f);
  return v;
}

/* One-sided progress: rank 0 gets from rank `target` while the target
 * computes without calling MPI for `busy` seconds.  Returns the get's time. */
static double get_while_busy(MPI_Win win, int target, double busy) {
  double t = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == target) {
    double t0 = now();
    volatile double x = 0;
    while (now() - t0 < busy) x += 1;
  } else if (me == 0) {
    uint64_t v = 0;
    double t0 = now();
    MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
    MPI_Get(&v, 1, MPI_UINT64_T, target, 0, 1, MPI_UINT64_T, win);
    MPI_Win_unlock(target, win);
    t = now() - t0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return t;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);

  /* MPI. */
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0, ver = 0, sub = 0;
  MPI_Get_library_version(lib, &len);
  lib[strcspn(lib, "\n")] = 0;
  for (char *r = lib, *w = lib;; r++) { /* runs of blanks as one */
    if (*r == ' ' && w > lib && w[-1] == ' ') continue;
    *w++ = *r;
    if (!*r) break;
  }
  MPI_Get_version(&ver, &sub);
  say(ver >= 3 ? "PASS" : "FAIL", "MPI", "%s (MPI %d.%d), %d ranks%s", lib, ver, sub, n,
      ver >= 3 ? "" : " -- Loom needs MPI-3 one-sided communication; build Loom with another MPI");
  say(provided == MPI_THREAD_MULTIPLE ? "PASS" : "WARN", "thread level", "%s%s",
      provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "below MPI_THREAD_MULTIPLE",
      provided == MPI_THREAD_MULTIPLE ? "" : " -- LOOM_TRANSPORT=auto falls back to rma (slower across hosts)");
  if (n < 2) say("WARN", "ranks", "one rank: the checks between ranks are skipped -- run with mpiexec -n 2 or more");

  /* Hosts. */
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  int on_host = 0, leader = 0, hosts = 0;
  MPI_Comm_size(host, &on_host);
  int hrank;
  MPI_Comm_rank(host, &hrank);
  leader = hrank == 0;
  MPI_Allreduce(&leader, &hosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  char name[MPI_MAX_PROCESSOR_NAME];
  MPI_Get_processor_name(name, &len);
  say("PASS", "hosts", "%d host(s) by MPI's shared-memory split; rank 0 on %s with %d rank(s)", hosts, name, on_host);

  /* Every rank reaches every other: a small message each way, timed. */
  if (n > 1) {
    double worst = 0;
    int wa = 0, wb = 0;
    for (int a = 0; a < n; a++)
      for (int b = a + 1; b < n; b++) {
        double t = 0;
        char byte = 1;
        if (me == a) {
          double t0 = now();
          for (int k = 0; k < 10; k++) {
            MPI_Send(&byte, 1, MPI_CHAR, b, 7, MPI_COMM_WORLD);
            MPI_Recv(&byte, 1, MPI_CHAR, b, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          }
          t = (now() - t0) / 20;
          MPI_Send(&t, 1, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
        } else if (me == b) {
          for (int k = 0; k < 10; k++) {
            MPI_Recv(&byte, 1, MPI_CHAR, a, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&byte, 1, MPI_CHAR, a, 7, MPI_COMM_WORLD);
          }
        }
        if (me == 0) {
          MPI_Recv(&t, 1, MPI_DOUBLE, a, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          if (t > worst) worst = t, wa = a, wb = b;
        }
      }
    say("PASS", "reachability", "every rank reaches every other; slowest pair ranks %d-%d, %.1f us one way", wa, wb,
        worst * 1e6);
  }

  /* One-sided progress: a get while the target computes without MPI calls. */
  if (n > 1) {
    uint64_t* base;
    MPI_Win win;
    MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    const int target = n - 1;
    (void)get_while_busy(win, target, 0.0); /* warm up the connection */
    const double idle = get_while_busy(win, target, 0.0), busy = get_while_busy(win, target, 0.3);
    if (busy < 0.15)
      say("PASS", "one-sided progress", "a get from rank %d takes %.0f us while it computes (%.0f us idle)", target,
          busy * 1e6, idle * 1e6);
    else
      say("WARN", "one-sided progress",
          "a get from rank %d waited %.0f ms for it to call MPI -- Loom's progress thread covers this "
          "(LOOM_PROGRESS=auto turns it on when a peer is remote; keep it)",
          target, busy * 1e3);
    MPI_Win_free(&win);
  }

  /* Limits. */
  struct rlimit as;
  getrlimit(RLIMIT_AS, &as);
  const char* ms = getenv("LOOM_MEM_SIZE");
  loom_config_t cfg;
  loom_status_t cs = loom_config_default(&cfg);
  if (cs != LOOM_OK) {
    say("FAIL", "settings", "%s -- fix the LOOM_* variable it names", loom_last_error());
    MPI_Finalize();
    return 1;
  }
  const unsigned long long mem = cfg.mem_size, pages = mem / 4096;
  /* The global range, the own view, the twins, a view of each peer on the
   * host (measured: (ranks on the host + 2) x LOOM_MEM_SIZE). */
  const unsigned long long need = (unsigned long long)(on_host + 2) * mem;
  if (as.rlim_cur != RLIM_INFINITY && as.rlim_cur < need + (256ull << 20))
    say("FAIL", "address space", "ulimit -v is %llu MiB; Loom reserves %llu MiB here (LOOM_MEM_SIZE %llu MiB x (%d "
        "ranks on the host + 2)) -- raise ulimit -v or lower LOOM_MEM_SIZE", (unsigned long long)as.rlim_cur >> 20,
        need >> 20, mem >> 20, on_host);
  else
    say("PASS", "address space", "room for %llu MiB of reservations (%sLOOM_MEM_SIZE %llu MiB)", need >> 20,
        ms ? "" : "default ", mem >> 20);
  const long maps = read_long("/proc/sys/vm/max_map_count");
  if (maps >= 0 && (unsigned long long)maps < pages + 1000)
    say("WARN", "mappings", "vm.max_map_count is %ld; a program using all %llu pages with mixed protections may "
        "need one each -- sysctl -w vm.max_map_count=%llu (as root)", maps, pages, pages + 65536);
  else
    say("PASS", "mappings", "vm.max_map_count %ld for %llu pages", maps, pages);
  long avail = sysconf(_SC_AVPHYS_PAGES) * (sysconf(_SC_PAGESIZE) / 1024);
  long cg = read_long("/sys/fs/cgroup/memory.max");
  char cgs[64] = "";
  if (cg > 0) snprintf(cgs, sizeof cgs, ", cgroup limit %ld MiB", cg >> 20);
  say("PASS", "memory", "%ld MiB free on rank 0's host%s; Loom touches only the pages in use", avail / 1024, cgs);

  /* Loom itself. */
  const long vm0 = vm_size_kib();
  double t0 = now();
  loom_status_t s = loom_init(&argc, &argv, NULL);
  int ok = s == LOOM_OK, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    say("FAIL", "loom_init", "%s -- see the message above", ok ? "failed on another rank" : loom_last_error());
    MPI_Finalize();
    return 1;
  }
  say("PASS", "loom_init", "%.0f ms, %llu MiB of global memory, %ld MiB of address space reserved", (now() - t0) * 1e3,
      mem >> 20, (vm_size_kib() - vm0) >> 10);
  const int direct = loom_direct_peers();
  int want = on_host - 1;
  say(direct == want || !cfg.local_map ? "PASS" : "WARN", "direct mapping",
      "rank 0 maps %d peer(s) directly, %d share its host%s", direct, want,
      direct == want || !cfg.local_map ? "" : " -- peers on one host go through MPI (slower); check /dev/shm and memfd");
  uint64_t* a = NULL;
  s = loom_alloc_collective((size_t)n * 4096, (void**)&a);
  if (s == LOOM_OK) {
    a[me * 512] = (uint64_t)me + 1; /* each rank homes its page */
    loom_barrier();
    double f0 = now();
    uint64_t sum = 0;
    for (int r = 0; r < n; r++) sum += a[r * 512];
    double fetch = (now() - f0) / (n > 1 ? n - 1 : 1);
    for (int i = 0; i < 4; i++) {
      loom_lock(0);
      a[1]++;
      loom_unlock(0);
    }
    loom_barrier();
    int good = sum == (uint64_t)n * (n + 1) / 2 && a[1] == (uint64_t)4 * n, all = 0;
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    say(all ? "PASS" : "FAIL", "coherence", "pages fetched from every rank (%.0f us each on rank 0), a lock passed "
        "%d times: %s", fetch * 1e6, 4 * n, all ? "the values are right" : "WRONG VALUES -- please report this");
    loom_free_collective(a);
  } else {
    say("FAIL", "coherence", "loom_alloc_collective: %s", loom_last_error());
  }
  loom_finalize();
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (me == 0) printf("%s\n", any ? "loom doctor: some checks FAILED (see above)" : "loom doctor: every check passed");
  MPI_Finalize();
  return any;
}
