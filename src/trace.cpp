// Event traces: see trace.hpp and docs/TRACE.md.
#include "trace.hpp"

#include <fcntl.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <unordered_map>
#include <vector>

#include "clock.hpp"
#include "config.hpp"
#include "diff.hpp"
#include "runtime.hpp"

namespace loom {

bool g_trace_on = false;
bool g_trace_runs = false;
bool g_trace_homes = false;

namespace {

constexpr size_t kHeaderBytes = 8192;  // (4096 until the configuration outgrew it: readers take the size from the header)
constexpr uint32_t kTraceFormat = 2;  // 2: hand-over values name the rank in 16 bits (docs/TRACE.md)
constexpr size_t kCap = 32768;              // records per buffer (1 MiB)
constexpr uint64_t kCpuEveryNs = 100000;    // a CPU sample at most every 100 us of wall time,
constexpr uint64_t kCpuWaitNs = 50000;      // and at most every 50 us where a wait begins or ends
                                            // (barrier, lock, unlock): the computation between
                                            // waits is then known from CPU time even where the
                                            // waits burn CPU (more ranks than cores)
constexpr int kClockRounds = 50;

struct Trace {
  int fd = -1;
  double origin = 0;  // stat_now() at the start (the trace's clock: the invariant TSC where there is one)
  std::vector<TraceRec> cur, full;
  bool full_pending = false;
  uint64_t dropped = 0, last_cpu = 0, written = 0;
  uint64_t barriers = 0;  // barriers completed on this rank since the trace began (not reset with the statistics)
  // Barriers of a subset, by their member set's key (trace_group_key): the
  // k-th of a set is its k-th on every member, whatever else each did.
  std::unordered_map<uint64_t, uint64_t> group_barriers;
  uint64_t group_pending = 0;  // the number of the subset barrier this rank has arrived at
  bool write_failed = false;
};
Trace g;

uint64_t cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void put(const TraceRec& r) {
  if (g.cur.size() == kCap) {
    if (g.full_pending) {
      g.dropped++;
      return;
    }
    g.cur.swap(g.full);  // written at the next synchronization
    g.full_pending = true;
  }
  g.cur.push_back(r);  // capacity reserved: no allocation (the fault handler appends too)
}

void write_all(const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n && !g.write_failed) {
    ssize_t w = write(g.fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      Status st = fail_errno(LOOM_ERR_SYSTEM, "LOOM_TRACE: writing the trace");
      (void)st;
      g.write_failed = true;
      return;
    }
    c += w;
    n -= (size_t)w;
  }
}

void flush(std::vector<TraceRec>& v) {
  if (v.empty()) return;
  write_all(v.data(), v.size() * sizeof(TraceRec));
  g.written += v.size();
  v.clear();
}

// An anchor of the trace's clock to the global one: at trace time t0 the
// rank's clock read `b` ns and the global clock was `b + a`.  Two anchors
// (init, finalize) map the trace's clock to global time linearly, which
// absorbs the rate of the trace's clock, the drift between ranks and each
// rank's origin.  The two clocks are read as a pair between two reads of
// the trace's: a rank preempted between them (3 ranks on 2 busy cores)
// would pair its clock with a trace time from before the preemption, and
// every mapped time would be off by the preemption, beyond the sync's
// bound (a CI run's view check found a rank's flows 14-41 us off, its
// bound 14 us).  The tightest of a few tries is kept, and half its
// bracket joins the bound.
void sync_record(uint8_t which) {
  loom_clock_t k{};
  Status s = which == 0 ? clock_sync(kClockRounds, &k) : clock_check(kClockRounds, &k);
  (void)s;
  uint64_t t = 0, span = ~0ull;
  double local = 0;
  for (int i = 0; i < 64 && span > 2000; i++) {
    const uint64_t a = trace_now();
    const double l = clock_local();
    const uint64_t b = trace_now();
    if (b - a < span) {
      span = b - a;
      t = a + span / 2;
      local = l;
    }
  }
  const double bound_ns = k.bound * 1e9 + 0.5 * (double)span;
  put(TraceRec{t, bound_ns > 4e9 ? 0xffffffffu : (uint32_t)bound_ns, (uint8_t)Ev::Sync, which, 0,
               (uint64_t)(int64_t)(k.offset * 1e9), (uint64_t)(local * 1e9)});
}

}  // namespace

uint64_t trace_now() {
  const double t = stat_now() - g.origin;
  return t > 0 ? (uint64_t)(t * 1e9) : 0;
}

Status trace_start() {
  if (!rt.cfg.trace_dir[0]) return Status::ok();
  const char* dir = rt.cfg.trace_dir;
  if (rt.rank == 0) {  // mkdir -p
    std::string path;
    for (const char* c = dir; *c; c++) {
      path += *c;
      if ((c[1] == '/' || !c[1]) && mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
        Status st = fail_errno(LOOM_ERR_SYSTEM, ("LOOM_TRACE: mkdir " + path).c_str());
        (void)st;
        break;
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);  // the directory exists before any rank opens its file
  char path[512];
  std::snprintf(path, sizeof path, "%s/rank%d.lt", dir, rt.rank);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  Status opened = fd >= 0 ? Status::ok() : fail_errno(LOOM_ERR_SYSTEM, (std::string("LOOM_TRACE: ") + path).c_str());
  int ok = opened.is_ok() ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {  // every rank traces or none does (the clock syncs are collective)
    if (fd >= 0) close(fd);
    return opened.is_ok() ? fail_quiet(LOOM_ERR_SYSTEM, "LOOM_TRACE: another rank could not open its trace file")
                          : opened;
  }
  g = Trace{};
  g.fd = fd;
  g.cur.reserve(kCap);
  g.full.reserve(kCap);
  g.origin = stat_now();
  // The header: fixed fields, the host, the build and the configuration.
  std::vector<char> h(kHeaderBytes, 0);
  std::memcpy(h.data(), "LOOMTRC1", 8);
  const uint32_t u32[6] = {kTraceFormat, (uint32_t)kHeaderBytes, (uint32_t)sizeof(TraceRec), (uint32_t)rt.rank,
                           (uint32_t)rt.nranks, (uint32_t)getpid()};
  std::memcpy(h.data() + 8, u32, sizeof u32);
  timespec real;
  clock_gettime(CLOCK_REALTIME, &real);
  const uint64_t u64[4] = {(uint64_t)real.tv_sec * 1000000000ull + (uint64_t)real.tv_nsec, kPage,
                           (uint64_t)(uintptr_t)rt.base, rt.size};
  std::memcpy(h.data() + 32, u64, sizeof u64);
  gethostname(h.data() + 64, 63);
  std::snprintf(h.data() + 128, 896, "%s", loom_build_info());
  config_print(&rt.cfg, h.data() + 1024, kHeaderBytes - 1024 - 1);
  write_all(h.data(), h.size());
  g_trace_on = true;
  g_trace_runs = rt.cfg.trace_runs != 0;
  g_trace_homes = rt.cfg.trace_homes != 0;
  sync_record(0);
  g.last_cpu = 0;
  return Status::ok();
}

void trace_event(Ev type, uint64_t t0, uint64_t a, uint64_t b, uint8_t flags) {
  const uint64_t t1 = trace_now();
  if (type == Ev::Barrier && b != 0)  // a subset's: numbered among that set's barriers, the same on every member
    a = flags == 1 ? (g.group_pending = ++g.group_barriers[b]) : g.group_pending;
  else if (type == Ev::Barrier)
    a = flags == 1 ? g.barriers + 1 : ++g.barriers;  // the same number on every rank
  const uint64_t d = t1 > t0 ? t1 - t0 : 0;
  put(TraceRec{t0, d > 0xffffffffull ? 0xffffffffu : (uint32_t)d, (uint8_t)type, flags, (uint16_t)thread_index(), a, b});
  const bool wait = type == Ev::Barrier || type == Ev::Lock || type == Ev::Unlock;
  if (t1 - g.last_cpu >= (wait ? kCpuWaitNs : kCpuEveryNs)) {
    g.last_cpu = t1;
    put(TraceRec{t1, 0, (uint8_t)Ev::Cpu, 0, 0, cpu_ns(), t1});
  }
}

uint64_t trace_group_key(const int* ranks, int n, int nranks) {
  if (n >= nranks) return 0;  // every rank (a group lists each rank at most once)
  std::vector<int> m(ranks, ranks + n);
  std::sort(m.begin(), m.end());
  uint64_t h = 14695981039346656037ull;  // FNV-1a, a byte at a time, over the sorted ranks
  for (int r : m)
    for (int i = 0; i < 4; i++) h = (h ^ (((uint32_t)r >> (8 * i)) & 0xffu)) * 1099511628211ull;
  return h ? h : 1;
}

void trace_page_runs(uint64_t p, const uint8_t* twin, const uint8_t* cur, int home) {
  const uint64_t t = trace_now();
  struct Ctx {
    uint64_t base, t, home;
  } c{p * (uint64_t)kPage, t, (uint64_t)(uint16_t)home};
  diff_runs(
      twin, cur, kPage,
      [](uint32_t off, uint32_t len, void* v) {
        auto* x = static_cast<Ctx*>(v);
        put(TraceRec{x->t, 0, (uint8_t)Ev::Run, 0, (uint16_t)thread_index(), x->base + off, len | x->home << 48});
      },
      &c);
}

void trace_run_list(uint64_t p, const uint32_t* off, const uint32_t* len, size_t n, int home) {
  const uint64_t t = trace_now(), base = p * (uint64_t)kPage, h = (uint64_t)(uint16_t)home << 48;
  const uint16_t th = (uint16_t)thread_index();
  for (size_t i = 0; i < n; i++) put(TraceRec{t, 0, (uint8_t)Ev::Run, 0, th, base + off[i], len[i] | h});
}

void trace_flush_full() {
  if (g_trace_on && g.full_pending) {
    flush(g.full);
    g.full_pending = false;
  }
}

void trace_sync_point(bool barrier) {
  if (!g_trace_on) return;
  const uint64_t t = trace_now();
  if (t - g.last_cpu >= kCpuWaitNs) {
    g.last_cpu = t;
    put(TraceRec{t, 0, (uint8_t)Ev::Cpu, 0, 0, cpu_ns(), t});
  }
  if (barrier)  // (not at locks: a lock-bound program would double its records)
    put(TraceRec{trace_now(), 0, (uint8_t)Ev::Pages, 0, 0, rt.pages.cached.size(), rt.pages.dirty.size()});
  if (g.full_pending) {
    flush(g.full);
    g.full_pending = false;
  }
  if (g.cur.size() >= kCap / 2) flush(g.cur);
}

void trace_stop() {
  if (!g_trace_on) return;
  sync_record(1);
  put(TraceRec{trace_now(), 0, (uint8_t)Ev::Cpu, 0, 0, cpu_ns(), trace_now()});
  if (g.dropped) put(TraceRec{trace_now(), 0, (uint8_t)Ev::Dropped, 0, 0, g.dropped, 0});
  if (g.full_pending) flush(g.full);
  flush(g.cur);
  if (g.dropped && rt.rank >= 0)
    std::fprintf(stderr, "loom[%d]: LOOM_TRACE: %llu records dropped (the buffers filled between synchronizations)\n",
                 rt.rank, (unsigned long long)g.dropped);
  close(g.fd);
  g_trace_on = false;
  g_trace_runs = false;
  g_trace_homes = false;
  g = Trace{};
}

}  // namespace loom
