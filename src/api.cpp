// The C API: argument checking, the order of protocol steps around each
// synchronization call, and the lifecycle.  Every entry point returns a
// status; nothing here exits or prints to stdout.
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <stdio_ext.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>

#include "clock.hpp"
#include "config.hpp"
#include "heap.hpp"
#include "placement.hpp"
#include "trace.hpp"
#include "intercept.hpp"
#include "small_alloc.hpp"
#include "protocol/protocol.hpp"
#include "runtime.hpp"
#include "spawn.hpp"
#include "threads.hpp"
#include "vm.hpp"

namespace loom {
Runtime rt;
}

using namespace loom;

namespace {

loom_status_t ret(Status s) { return s.code(); }

Status need_init(const char* fn) {
  if (rt.active) return Status::ok();
  if (rt.finalized) return fail(LOOM_ERR_NOT_INITIALIZED, "%s called after loom_finalize", fn);
  return fail(LOOM_ERR_NOT_INITIALIZED, "%s called before loom_init", fn);
}

// A collective call on rank 0 of a fork-style start before loom_spawn.
#define REQUIRE_NOT_SERIAL(fn)                   \
  do {                                           \
    Status c_ = spawn_check_collective(fn);      \
    if (!c_.is_ok()) return c_.code();           \
  } while (0)

// Every entry point that acts on the rank's state holds the rank lock from
// here to its return (threads.hpp): threads of a rank take turns.
#define REQUIRE_INIT()                         \
  Status init_ok_ = need_init(__func__);       \
  if (!init_ok_.is_ok()) return init_ok_.code(); \
  RankHold rank_hold_

// Page number of a Loom pointer, or an error naming the call.
Status page_of(const void* p, const char* fn, uint64_t* page) {
  const uint8_t* a = static_cast<const uint8_t*>(p);
  if (!p || a < rt.base || a >= rt.base + rt.size)
    return fail(LOOM_ERR_BAD_POINTER, "%s: %p is not inside Loom memory [%p, %p)", fn, p, (void*)rt.base,
                (void*)(rt.base + rt.size));
  *page = (uint64_t)(a - rt.base) / kPage;
  return Status::ok();
}

// Every rank passed the same values?  (Collective; all ranks must call.)
Status agree(const uint64_t* vals, int n, const char* fn) {
  LOOM_ASSERT(n <= 12);
  uint64_t mine[24], mx[24];
  for (int i = 0; i < n; i++) {
    mine[i] = vals[i];
    mine[n + i] = ~vals[i];
  }
  MPI_Allreduce(mine, mx, 2 * n, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  int i = 0;
  while (i < n && mx[i] == ~mx[n + i]) i++;
  if (i == n) return Status::ok();
  // The first argument that differs, named from fn's list "f (a, b, c)",
  // and a rank with its smallest and one with its largest value: one line,
  // printed by rank 0 (every rank returns the same message).
  const uint64_t lo = ~mx[n + i], hi = mx[i];
  int who[2] = {vals[i] == lo ? rt.rank : rt.nranks, vals[i] == hi ? rt.rank : rt.nranks}, first[2];
  MPI_Allreduce(who, first, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  char name[64] = "";
  const char* list = std::strchr(fn, '(');
  for (int k = 0; list && k < i; k++) list = std::strchr(list + 1, ',');
  if (list) {
    list++;
    while (*list == ' ') list++;
    size_t len = std::strcspn(list, ",)");
    std::snprintf(name, sizeof name, " (%.*s)", (int)std::min(len, sizeof name - 4), list);
  }
  return fail_all(LOOM_ERR_MISMATCH, "%s: ranks passed different arguments: argument %d%s is %llu on rank %d but %llu on rank %d",
                  fn, i + 1, name, (unsigned long long)lo, first[0], (unsigned long long)hi, first[1]);
}

void compute_layout() {
  const uint64_t N = (uint64_t)rt.nranks;
  auto align = [](uint64_t x, uint64_t a) { return (x + a - 1) / a * a; };
  rt.locks_total = rt.cfg.locks + 1;
  rt.heap_lock = rt.cfg.locks;
  MetaLayout& m = rt.meta;
  m.barrier = 0;
  m.tails = align(barrier_area_words(rt.nranks) * 8, 64);
  m.qnodes = align(m.tails + (rt.locks_total + N - 1) / N * 8, 64);
  m.links = align(m.qnodes + (uint64_t)rt.locks_total * 16, 64);
  m.dir = align(m.links + (rt.locks_total + N - 1) / N * N * 8, 64);
  // The interval records' header (newest record, fetch count) is read by
  // every rank that acquires from everyone or fetches from this home: it
  // follows the barrier area closely, so that a peer mapping this Meta
  // touches one 2 MiB page-table region for both, not two (at 1024 ranks
  // on one host that is 4 MB of page tables a rank).
  m.ivl = align(m.dir + (rt.npages + N - 1) / N * dir_entry_bytes(), 64);
  m.heap = align(m.ivl + ivl_meta_bytes(rt.nranks), kPage);
  m.copyset = align(m.heap + 64 + (uint64_t)kHeapMax * 16, 64);
  m.rings = align(m.copyset + rt.npages * 8 * (uint64_t)rank_planes(), 64);
  m.small = align(m.rings + N * ring_words(rt.nranks) * 8, 64);
  m.know = align(m.small + kSmallMetaBytes, 64);
  m.size = align(m.know + know_area_bytes(rt.nranks), kPage);
}

// MPICH's MPI_Init makes stdout unbuffered (so a rank's output reaches
// mpiexec at once); puts() then writes a line's text and its newline in two
// write(2)s, and ranks printing together break each other's lines where a
// pthreads program's threads, sharing one stream, never do (SPLASH-3
// OCEAN's MASTER and main printing at the join).  Where MPI_Init made it
// so, stdout becomes line-buffered instead: each line one write, still
// delivered as it ends.  A stream the program made unbuffered before is
// left alone; so is one whose MPI the program started itself.
void whole_output_lines() {
  if (__fbufsize(stdout) != 1) return;  // glibc: 1 is the unbuffered stream's one-byte buffer
  static char line_buffer[BUFSIZ];       // static: stdout outlives every destructor
  std::setvbuf(stdout, line_buffer, _IOLBF, sizeof line_buffer);
}

// MPI libraries end the process inside MPI_Init when it fails (MPICH checks
// that every rank can reach the others there, with an allreduce): their
// message names MPI's internals.  This says what to check, from an exit
// handler that runs while MPI_Init is in progress only.
bool g_in_mpi_init = false;
// LOOM_MIGRATE was auto: migration stops (homes stay where they are) at the
// first loom_checkpoint instead of refusing it.
bool g_migrate_auto = false;
constexpr const char* kNetworkAdvice =
    "Check that every host reaches the others on the interface MPI uses (MPICH over TCP: MPIR_CVAR_CH4_NETMOD=ofi "
    "FI_PROVIDER=tcp FI_TCP_IFACE=<an interface with a route to every host>; Open MPI: OMPI_MCA_btl_tcp_if_include), "
    "that no firewall drops MPI's ports, and that the host names mpiexec was given resolve to those addresses "
    "(scripts/cluster.sh and docs/ARCHITECTURE.md show a working setting).";
void explain_failed_mpi_init() {
  if (!g_in_mpi_init) return;
  char host[64] = "?";
  gethostname(host, sizeof host - 1);
  std::fprintf(stderr,
               "loom: MPI_Init_thread ended the process (pid %d on %s) before Loom could start: when the ranks run "
               "on several hosts this is most often the network between them.  %s\n",
               (int)getpid(), host, kNetworkAdvice);
}

// The other half of that failure: when one rank's MPI_Init ends its process
// (or a rank never starts), the others wait inside MPI_Init for it, and
// MPICH's launcher does not end them (on the emulated cluster, a host that
// cannot reach the others left host 0's rank spinning in MPI_Init until the
// job was killed).  No MPI call can be made to stop that wait, so a thread
// beside MPI_Init ends this rank after LOOM_INIT_TIMEOUT seconds with a
// message, and the launcher, seeing a rank fail, ends the job.  The auto
// limit (120 s, or a quarter second per rank of the launcher's job) is far
// above what MPI_Init takes here: all of loom_init takes 25-33 ms at 2
// ranks, and took 132-142 s at 1024 ranks on 2 cores (BENCHMARKS.md,
// "Scale"), most of it mapping the peers after MPI_Init.
int init_timeout_seconds(const loom_config_t& c) {
  if (c.init_timeout >= 0) return c.init_timeout;
  long ranks = 0;
  for (const char* name : {"PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"}) {
    const char* v = std::getenv(name);
    if (v && *v) {
      ranks = std::strtol(v, nullptr, 10);
      break;
    }
  }
  return ranks / 4 > 120 ? (int)(ranks / 4) : 120;
}

class InitWatch {
 public:
  explicit InitWatch(int seconds) {
    if (seconds <= 0) return;
    try {
      thread_ = std::thread([this, seconds] {
        std::unique_lock<std::mutex> lock(mutex_);
        if (cv_.wait_for(lock, std::chrono::seconds(seconds), [this] { return done_; })) return;
        char host[64] = "?";
        gethostname(host, sizeof host - 1);
        std::fprintf(stderr,
                     "loom: MPI_Init_thread has not returned after %d s (pid %d on %s): not every rank of the job "
                     "started MPI.  Most often a rank on another host could not reach this one (look for its "
                     "\"MPI_Init_thread ended the process\" message) or never started.  %s  Loom ends this rank so "
                     "that the job ends (LOOM_INIT_TIMEOUT=%d; 0 waits for ever).\n",
                     seconds, (int)getpid(), host, kNetworkAdvice, seconds);
        std::fflush(stderr);
        _exit(1);  // MPI is inside MPI_Init on the other thread: no exit handler may run
      });
    } catch (const std::system_error&) {
      // no thread to spare: MPI_Init waits as it would without Loom
    }
  }
  ~InitWatch() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  InitWatch(const InitWatch&) = delete;
  InitWatch& operator=(const InitWatch&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// Open MPI: a rank killed across hosts closes its TCP connections, and a
// survivor's Open MPI aborts the job on the closed socket at once ("An
// error occurred in Socket closed ... on a NULL communicator"), before the
// dead rank's daemon has told mpiexec of the signal; mpiexec then reports
// the survivor's abort and never names the rank that died.  A delay of the
// abort (opal_abort_delay, 1 s, the least it takes) lets mpiexec hear of
// the death first: it reports "process rank R with PID P on node N exited
// on signal 9" and ends the job in about 0.4 s.  Set for MPI_Init only
// when Loom calls it and the user set no delay of their own; read-only once
// MPI runs, so a program that calls MPI_Init itself keeps Open MPI's own.
constexpr const char* kOmpiAbortDelay = "OMPI_MCA_opal_abort_delay";
bool delay_open_mpi_aborts() {
#ifdef OPEN_MPI
  if (std::getenv(kOmpiAbortDelay) || std::getenv("OMPI_MCA_mpi_abort_delay")) return false;
  return setenv(kOmpiAbortDelay, "1", 0) == 0;
#else
  return false;
#endif
}

// A rank that fails alone must not leave the others waiting in a collective:
// after each step that can fail on one rank only, every rank learns whether
// any failed, and the ranks that did not fail return an error naming the
// first rank that did and its message.  (Collective; `mine` is this rank's
// outcome.)
Status agree_ok(Status mine, const char* step) {
  MPI_Comm world = MPI_COMM_WORLD;
  return agree_errors(mine, step, rt.nranks, rt.rank, &world);
}

// A rank that ends (exit, or a return from main) while Loom is active
// leaves the others waiting for it in a barrier or lock forever, and the
// launcher reports success once they are killed or time out.  An exit
// handler, armed by loom_init, ends the whole job instead, naming the rank.
// Only in the process that called loom_init: a forked child's exit is not a
// rank's.
pid_t g_init_pid = 0;
void exit_without_finalize() {
  if (!rt.active || getpid() != g_init_pid) return;
  char host[64] = "?";
  gethostname(host, sizeof host - 1);
  std::fprintf(stderr,
               "loom: rank %d (pid %d on %s) exited without calling loom_finalize while Loom was active (the "
               "program ended or called exit, or an error above ended it); the other ranks would wait for it "
               "forever, so the job is aborted.  Call loom_finalize on every rank before the program ends.\n",
               rt.rank, (int)getpid(), host);
  std::fflush(stderr);
  rt.active = false;
  // The launcher forwards this rank's output through a pipe and stops
  // reading it once the abort reaches it: give it time to pass the message.
  usleep(200000);
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (inited && !finalized) MPI_Abort(MPI_COMM_WORLD, 71);
}

// The steps of loom_init that can fail on one rank alone: memory for the
// per-page tables and the twin area.  They come before the transport and
// the global range, so that a failure leaves nothing collective to undo.
Status init_local() {
  try {
    rt.pages.init(rt.npages, (uint8_t)rt.cfg.protocol);
    rt.erc.init();
    rt.rings.init(rt.nranks);
    rt.mig.init(rt.npages, rt.nranks, rt.cfg.migrate != 0 || rt.cfg.adapt != 0);  // the home's watch serves both
    rt.adapt.init(rt.npages, rt.cfg.unit_pages, rt.cfg.adapt != 0);
    rt.ivl.init(rt.npages, rt.nranks, rt.cfg.exact != 0);
    rt.sync.init(rt.nranks, rt.cfg.locks);
    rt.small.init();
  } catch (const std::bad_alloc&) {
    rt.pages.clear();
    rt.mig.init(0, 0, false);
    rt.adapt.init(0, 0, false);
    rt.ivl.init(0, 0, false);
    return fail(LOOM_ERR_NO_MEMORY,
                "loom_init: the per-page tables of a %llu-byte global memory (%llu pages, %llu bytes of address "
                "space per page on every rank, resident only where used) do not fit in this process's address "
                "space; lower LOOM_MEM_SIZE or raise the limit (ulimit -v)",
                (unsigned long long)rt.size, (unsigned long long)rt.npages,
                (unsigned long long)kPageTableBytesPerPage);
  }
  void* tw = mmap(nullptr, rt.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (tw == MAP_FAILED)
    return fail(LOOM_ERR_NO_MEMORY,
                "loom_init: mmap of the twin area (%llu bytes of address space, as large as LOOM_MEM_SIZE): %s",
                (unsigned long long)rt.size, std::strerror(errno));
  rt.pages.twins = static_cast<uint8_t*>(tw);
  rt.st = Stats{};
  rt.st.t_start = now();
  return Status::ok();
}

Status init(int* argc, char*** argv, const loom_config_t* cfg) {
  if (rt.active) return fail(LOOM_ERR_ALREADY_INITIALIZED, "loom_init called twice");
  // The configuration is read before MPI starts, but an error in it is
  // reported only once every rank has learnt of it (below): a rank that
  // returned alone would leave the others waiting for it in MPI_Init's
  // collectives and in Loom's.
  Status configured;
  const bool checkpoints = [&] {
    DeferErrors once;  // printed once for all ranks, by agree_ok below
    if (cfg) {
      rt.cfg = *cfg;
      configured = config_validate(&rt.cfg);
    } else {
      configured = config_from_env(&rt.cfg);
    }
    if (configured.is_ok() && rt.cfg.checkpoint_every > 0 && !rt.cfg.checkpoint_dir[0])
      configured = fail(LOOM_ERR_CONFIG, "LOOM_CHECKPOINT_EVERY=%d needs LOOM_CHECKPOINT_DIR (where to write)",
                        rt.cfg.checkpoint_every);
    const bool ck = rt.cfg.checkpoint_every > 0 || rt.cfg.restart_dir[0];
    if (configured.is_ok() && ck && rt.cfg.migrate > 0)
      configured = fail(LOOM_ERR_CONFIG, "checkpoints (LOOM_CHECKPOINT_EVERY, LOOM_RESTART) do not work with LOOM_MIGRATE=1 yet");
    return ck;
  }();
  g_migrate_auto = rt.cfg.migrate < 0;
  if (g_migrate_auto) rt.cfg.migrate = checkpoints ? 0 : 1;  // auto: on, except with checkpoints
  if (configured.is_ok()) set_log_errors(rt.cfg.log_errors != 0);
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (finalized) return fail(LOOM_ERR_NOT_INITIALIZED, "loom_init: MPI is already finalized");
  if (!inited) {
    static bool registered = false;
    if (!registered) registered = std::atexit(explain_failed_mpi_init) == 0;
    int provided = 0;
    const bool unbuffered_before = __fbufsize(stdout) == 1;
    g_in_mpi_init = true;
    const bool delayed = delay_open_mpi_aborts();
    int err;
    {
      InitWatch watch(init_timeout_seconds(rt.cfg));
      err = MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    }
    if (delayed) unsetenv(kOmpiAbortDelay);  // read by MPI_Init; not passed on to the program's children
    g_in_mpi_init = false;
    if (err != MPI_SUCCESS) return fail_mpi(err, "MPI_Init_thread");
    rt.we_init_mpi = true;
    if (!unbuffered_before) whole_output_lines();
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rt.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &rt.nranks);
  set_log_rank(rt.rank, rt.nranks);
  LOOM_TRY(agree_ok(configured, "loom_init: the configuration"));
  if (rt.rank == 0) {  // a typo such as LOOM_STAT=1 would pass unnoticed (rank 0 speaks for all)
    char unknown[2048];
    if (config_unknown_env(environ, unknown, sizeof unknown)) {
      for (char* line = std::strtok(unknown, "\n"); line; line = std::strtok(nullptr, "\n"))
        std::fprintf(stderr, "loom: warning: %s\n", line);
    }
  }
  if (rt.nranks > kMaxRanks)
    return fail_all(LOOM_ERR_CONFIG, "%d ranks: this build of Loom supports at most %d", rt.nranks, kMaxRanks);
  uint64_t shape[10] = {rt.cfg.mem_size, rt.cfg.unit_pages, rt.cfg.locks, (uint64_t)rt.cfg.local_map,
                        (uint64_t)rt.cfg.transport, (uint64_t)rt.cfg.protocol, (uint64_t)rt.cfg.migrate,
                        (uint64_t)rt.cfg.exact, (uint64_t)rt.cfg.host_share, (uint64_t)rt.cfg.prefetch};
  uint64_t tracing = (rt.cfg.trace_dir[0] != 0) | (uint64_t)(rt.cfg.trace_runs != 0) << 1 |
                     (uint64_t)(rt.cfg.trace_homes != 0) << 2;
  LOOM_TRY(agree(&tracing, 1, "loom_init (LOOM_TRACE, LOOM_TRACE_RUNS or LOOM_TRACE_HOMES set on some ranks only)"));
  LOOM_TRY(agree(shape, 10,
                 "loom_init (LOOM_MEM_SIZE, LOOM_UNIT_PAGES, LOOM_LOCKS, LOOM_LOCAL_MAP, LOOM_TRANSPORT, LOOM_PROTOCOL, "
                 "LOOM_MIGRATE, LOOM_EXACT, LOOM_HOST_SHARE, LOOM_PREFETCH)"));

  // A restart: the checkpoint names the address and the size.
  rt.ckpt = CheckpointState{};
  if (rt.cfg.restart_dir[0]) {
    uint64_t base = 0, size = 0;
    DeferErrors once;  // printed by agree_ok
    Status planned = checkpoint_plan(rt.cfg.restart_dir, &base, &size);
    if (planned.is_ok() && size != rt.cfg.mem_size)
      planned = fail(LOOM_ERR_CONFIG, "LOOM_RESTART=%s: the checkpoint has LOOM_MEM_SIZE=%llu; this run %llu",
                     rt.cfg.restart_dir, (unsigned long long)size, (unsigned long long)rt.cfg.mem_size);
    if (planned.is_ok() && rt.cfg.base_address && rt.cfg.base_address != base)
      planned = fail(LOOM_ERR_CONFIG, "LOOM_RESTART=%s: the checkpoint's memory is at 0x%llx, LOOM_BASE says 0x%llx",
                     rt.cfg.restart_dir, (unsigned long long)base, (unsigned long long)rt.cfg.base_address);
    LOOM_TRY(agree_ok(planned, "loom_init: the restart"));
    rt.cfg.base_address = base;
  }
  rt.size = rt.cfg.mem_size;
  rt.npages = rt.size / kPage;
  compute_layout();
  LOOM_TRY(agree_ok([] {
    DeferErrors once;
    return init_local();
  }(), "loom_init: the local setup"));
  TransportOptions to{rt.size, rt.meta.size, rt.cfg.local_map != 0, rt.cfg.progress_thread, rt.cfg.transport,
                      rt.cfg.spin};
  LOOM_TRY(rt.tp.init(MPI_COMM_WORLD, to));
  {
    // One host, every peer mapped: pages are shared as the host shares
    // memory (core.cpp, share_fault), unless traced: a trace records the
    // protocol's work (fetches, diffs, notices), which the race report,
    // `loom place` and the model's replay on other platforms read.
    int want = rt.cfg.host_share && rt.tp.all_direct() && !rt.cfg.trace_dir[0] ? 1 : 0;
    int all = 0;
    MPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    rt.shared = all != 0;
    if (rt.shared) rt.ivl.init(0, 0, false);  // no copies: interval records would serve no acquire
    sync_host_locks_start();
  }
  rt.tp.set_lock_kick_handler(sync_kicked);  // kicks come only after init's last barrier
  rt.tp.set_tell_counter(&rt.st.s.reads_told);
  LOOM_TRY(vm_reserve(MPI_COMM_WORLD));
  LOOM_TRY(vm_install_handler(proto_fault, heap_describe_near));
  if (rt.cfg.restart_dir[0])
    LOOM_TRY(agree_ok([] {
      DeferErrors once;
      return checkpoint_restore(rt.cfg.restart_dir);
    }(), "loom_init: the restart"));
  stat_clock_init();
  {
    DeferErrors once;  // printed once for all ranks, by agree_ok
    LOOM_TRY(agree_ok(placement_load(rt.cfg.placement, rt.nranks), "loom_init (LOOM_PLACEMENT)"));
  }
  LOOM_TRY(trace_start());  // before rt.active: a failure leaves nothing behind
  rt.active = true;
  static bool exit_armed = false;
  if (!exit_armed) exit_armed = std::atexit(exit_without_finalize) == 0;
  g_init_pid = getpid();
  intercept_publish_range(rt.base, rt.size);
  if (rt.cfg.print_config && rt.rank == 0) {
    char buf[8192];
    config_print(&rt.cfg, buf, sizeof buf);
    char naps[64] = "";
    if (rt.tp.protocol_nap_us())
      std::snprintf(naps, sizeof naps, " (naps of up to %ld us%s)", rt.tp.protocol_nap_us(),
                    rt.tp.protocol_nap_us() < 500 ? " while a core is spare" : ": cores shared");
    std::fprintf(stderr, "loom: %d ranks, %d mapped directly by rank 0, the others through %s, progress thread %s%s%s%s%s\n%s",
                 rt.nranks, rt.tp.direct_peers(), rt.tp.kind_name(), rt.tp.progress_running() ? "on" : "off", naps,
                 rt.shared ? ", pages shared from their homes (one host)" : "",
                 rt.tp.or_by_cas() ? ", one-sided ORs by compare-and-swap (the MPI library's failed the check)" : "",
                 rt.tp.idle_yield_armed() ? ", Open MPI yields when idle in the program's blocking calls" : "", buf);
  }
  rt.finalized = false;
  MPI_Barrier(MPI_COMM_WORLD);
  return Status::ok();
}

void lift_state() {
  rt.shared = false;
  rt.sync.host_locks = false;
  vm_remove_handler();
  vm_release();
  if (rt.pages.twins) munmap(rt.pages.twins, rt.size);
  rt.pages.twins = nullptr;
  proto_push_stop();
  sync_agree_stop();
  rt.tp.finalize();
  rt.pages.clear();
  rt.ivl.init(0, 0, false);
  rt.mig.init(0, 0, false);
  rt.adapt.init(0, 0, false);
  // What Loom's threads freed stays in their malloc arenas (glibc gives a
  // thread's arena back only from its top): after a free of a 200 GiB
  // block, 51 MB stayed resident past finalize without this.
  malloc_trim(0);
}

Status barrier() {
  double t0 = stat_now();
  const uint64_t tt = trace_on() ? (trace_sync_point(true), trace_now()) : 0;
  rt.ivl.in_barrier = true;  // no interval record: this barrier's acquire covers the interval
  proto_release();
  rt.ivl.in_barrier = false;
  // The barrier also agrees whether any rank prefetches hot pages (bit 0)
  // and whether any wants to take homes or switch pages' protocols (bit 1).  For a prefetch every rank
  // waits in a second barrier until all have, so that the homes answer while
  // they wait instead of while they compute (core.cpp, prefetch; a waiting
  // rank serves requests itself).  For migration every rank is quiescent
  // between the two halves of a raw barrier, and hears of every move before
  // its acquire (migrate.hpp).
  // (Ranks that share pages from their homes have nothing to move: any
  // rank's access is a load or store in the home's memory.)
  // Across hosts the prefetch is a push instead (core.cpp, "the barrier's
  // page push"): the asks go out before the agreement, which counts them,
  // and the homes answer right after it; no second barrier.
  const bool wants_window = !rt.shared && ((rt.cfg.migrate && migrate_prepare()) | adapt_wants_window());
  // And whether any rank registered a writer of a page since its last full
  // barrier (bit 2): where none did, the writer sets this rank last found
  // naming no other rank still name none, and the acquire need not read
  // them again (hlrc.cpp).
  const unsigned grew = rt.pages.registered ? 4u : 0u;
  rt.pages.registered = false;
  unsigned any;
  if (proto_push_used()) {
    static std::vector<int>& asks = *new std::vector<int>();     // never destroyed: see runtime.hpp
    static std::vector<int>& kept = *new std::vector<int>();     // (the same)
    static std::vector<int>& kept_in = *new std::vector<int>();  // (the same)
    const bool keeps = proto_push_keeps();
    asks.resize((size_t)rt.nranks);
    kept.resize((size_t)rt.nranks);
    kept_in.assign((size_t)rt.nranks, 0);
    proto_push_ask(asks.data(), keeps ? kept.data() : nullptr);
    int asked = 0;
    any = sync_barrier_or_asks((wants_window ? 2u : 0u) | grew, asks.data(), &asked, keeps ? kept.data() : nullptr,
                               kept_in.data(), proto_push_row_pages());
    proto_push_serve(asked, kept_in.data());
  } else {
    any = sync_barrier_or((proto_wants_prefetch() ? 1u : 0u) | (wants_window ? 2u : 0u) | grew);
  }
  rt.pages.barriers_seen++;
  if (any & 4) rt.pages.writers_grew_at = rt.pages.barriers_seen;
  const bool prefetch = any & 1;
  if (any & 2) {
    if (rt.cfg.migrate) migrate_window();
    adapt_window();
    sync_barrier_raw();
    rt.tp.sync_local();
    notices_process();  // the moves and switches
    adapt_apply_own();
  }
  rt.pages.writers_known = true;
  proto_acquire(prefetch, IvlAcquire::Barrier);
  rt.pages.writers_known = false;
  if (trace_homes()) proto_watch_homes();
  if (prefetch) sync_barrier_raw();
  rt.st.s.barriers++;
  rt.st.s.t_barrier += stat_now() - t0;
  if (trace_on()) trace_event(Ev::Barrier, tt, rt.st.s.barriers, 0);
  return Status::ok();
}

// The member list of a group barrier: NULL/0 means every rank.
Status group_of(const int* ranks, int n, const char* fn, std::vector<int>* out) {
  out->clear();
  if (!ranks && n == 0) {
    for (int r = 0; r < rt.nranks; r++) out->push_back(r);
    return Status::ok();
  }
  if (!ranks || n <= 0 || n > rt.nranks)
    return fail(LOOM_ERR_INVALID, "%s: %d ranks listed; give 1..%d ranks, or NULL and 0 for all", fn, n, rt.nranks);
  std::vector<uint8_t> seen(rt.nranks, 0);
  bool me = false;
  for (int i = 0; i < n; i++) {
    if (ranks[i] < 0 || ranks[i] >= rt.nranks)
      return fail(LOOM_ERR_INVALID, "%s: rank %d is not in 0..%d", fn, ranks[i], rt.nranks - 1);
    if (seen[ranks[i]]) return fail(LOOM_ERR_INVALID, "%s: rank %d is listed twice", fn, ranks[i]);
    seen[ranks[i]] = 1;
    me |= ranks[i] == rt.rank;
    out->push_back(ranks[i]);
  }
  if (!me) return fail(LOOM_ERR_INVALID, "%s: the calling rank %d is not in the list", fn, rt.rank);
  return Status::ok();
}

Status barrier_arrive(const int* ranks, int n, const char* fn) {
  if (rt.sync.barrier_pending)
    return fail(LOOM_ERR_BUSY, "%s: this rank has arrived at a split barrier already; call loom_barrier_wait first", fn);
  LOOM_TRY(group_of(ranks, n, fn, &rt.sync.pending_group));
  double t0 = stat_now();
  const uint64_t tt = trace_on() ? (trace_sync_point(true), trace_now()) : 0;
  proto_release();
  sync_group_arrive(rt.sync.pending_group.data(), (int)rt.sync.pending_group.size());
  rt.sync.barrier_pending = true;
  rt.st.s.t_barrier += stat_now() - t0;
  if (trace_on())
    trace_event(Ev::Barrier, tt, rt.st.s.barriers + 1,
                trace_group_key(rt.sync.pending_group.data(), (int)rt.sync.pending_group.size(), rt.nranks), 1);
  return Status::ok();
}

Status barrier_wait(const char* fn) {
  if (!rt.sync.barrier_pending) return fail(LOOM_ERR_BUSY, "%s: no split barrier is pending (call loom_barrier_arrive)", fn);
  double t0 = stat_now();
  const uint64_t tt = trace_on() ? trace_now() : 0;
  sync_group_wait(rt.sync.pending_group.data(), (int)rt.sync.pending_group.size());
  proto_acquire();
  rt.sync.barrier_pending = false;
  rt.st.s.barriers++;
  rt.st.s.t_barrier += stat_now() - t0;
  if (trace_on())
    trace_event(Ev::Barrier, tt, rt.st.s.barriers,
                trace_group_key(rt.sync.pending_group.data(), (int)rt.sync.pending_group.size(), rt.nranks), 2);
  return Status::ok();
}

// A rank holds a Loom lock for one of its threads at a time (held[id] is
// that thread), which waits here for the others, without the rank lock
// (they need it to finish their critical sections), asleep after a few
// polls.
int lock_holder(uint32_t id) { return __atomic_load_n(&rt.sync.held[id], __ATOMIC_ACQUIRE); }

void take_for_thread(uint32_t id) {
  int* w = &rt.sync.held[id];
  const int me = thread_tid();
  for (int spins = 0;; spins++) {
    int was = 0;
    if (__atomic_compare_exchange_n(w, &was, me, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
    if (spins < 64) {
      cpu_relax();
      continue;
    }
    __atomic_fetch_add(&rt.sync.local_waiters[id], 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(w, __ATOMIC_SEQ_CST) == was) futex_wait_int(w, was);
    __atomic_fetch_sub(&rt.sync.local_waiters[id], 1, __ATOMIC_SEQ_CST);
  }
}

// Hand-overs between a rank's threads in a row, at most, while another
// rank waits for the lock behind this one (loom_unlock).
constexpr uint32_t kSiblingRun = 16;

// A lock operation made without the rank lock: its trace record still
// needs it (the trace's buffers are the rank's).
void trace_kept(Ev e, uint32_t id) {
  if (!trace_on()) return;
  RankHold hold;
  trace_event(e, trace_now(), id, 0);
}

// With held[id] this thread's: the lock is taken already if a sibling
// thread handed it over and the rank still holds it in the queue (the rank
// acquired when it took it; the sibling's writes are in this process's
// memory), or, with one rank, a Loom lock orders this rank's threads and
// nothing else.  Then no release, no acquire, no rank lock ("Threads of a
// rank", ARCHITECTURE.md).  The trace's records need the full path at one
// rank (their order is the rank lock's).
// With held[id] this thread's: the lock this rank kept at its last unlock,
// taken again with no message (sync.cpp, kept locks): nothing to acquire,
// as the rank itself was the last holder.
bool take_again(uint32_t id, double t0) {
  if (!sync_take_kept(id)) return false;
  stats_side_lock(false, stat_now() - t0, true);
  trace_kept(Ev::Lock, id);
  return true;
}

bool take_kept_lock(uint32_t id, double t0) {
  if (!rt.sync.in_queue[id] && !(rt.nranks == 1 && !trace_on())) return false;
  stats_side_lock(false, stat_now() - t0);
  trace_kept(Ev::Lock, id);
  return true;
}

void give_for_thread(uint32_t id) {
  __atomic_store_n(&rt.sync.held[id], 0, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&rt.sync.local_waiters[id], __ATOMIC_SEQ_CST)) futex_wake_int(&rt.sync.held[id]);
}

// Every rank on one host, pages shared (SyncState::host_locks): a Loom lock is a
// host lock (sync.cpp), which this rank's threads take as any other rank's
// do.  No rank lock and no protocol: the lock word's atomics order the
// holders' loads and stores, as a mutex's do for threads.  What an acquire
// still owes is a block another rank freed (its forget notices), taken
// under the rank lock when there is one.
void host_acquired(uint32_t id, double waited) {
  __atomic_store_n(&rt.sync.held[id], thread_tid(), __ATOMIC_RELAXED);
  intercept_check_pending();
  if (notices_pending()) {
    RankHold hold;
    notices_process();
  }
  stats_side_lock(false, waited);
}

// (The statistics time a host lock's waits only: an uncontended take or
// give is an atomic or two, and reading the clock around it cost more.)
loom_status_t host_lock(uint32_t id) {
  const bool turn = spawn_before_lock();
  const double waited = sync_host_lock(id);
  if (turn) spawn_turn_done();
  host_acquired(id, waited);
  return LOOM_OK;
}

loom_status_t host_unlock(uint32_t id) {
  intercept_check_pending();  // (the release: no nonblocking MPI call still on Loom memory)
  __atomic_store_n(&rt.sync.held[id], 0, __ATOMIC_RELAXED);
  sync_host_unlock(id);
  stats_side_lock(true, 0);
  return LOOM_OK;
}

Status check_lock(uint32_t id, const char* fn) {
  if (id >= rt.cfg.locks)
    return fail(LOOM_ERR_INVALID, "%s(%u): lock ids run from 0 to %u (LOOM_LOCKS=%u)", fn, id, rt.cfg.locks - 1,
                rt.cfg.locks);
  return Status::ok();
}

Status alloc_collective(size_t size, loom_home_policy_t policy, int home_rank, void** out,
                        loom_protocol_t protocol = rt.cfg.protocol) {
  LOOM_TRY(spawn_check_collective("loom_alloc_collective"));
  // Agree first, on everything a rank could reject locally, so that no rank
  // returns early while the others wait in a collective.  A rank whose own
  // arguments are wrong reports that; the others report the disagreement.
  uint64_t args[5] = {(uint64_t)size, (uint64_t)policy, (uint64_t)(int64_t)home_rank, out != nullptr,
                      (uint64_t)protocol};
  Status agreed = agree(args, 5, "loom_alloc_collective (size, policy, home, out != NULL, protocol)");
  if (!out)
    return agreed.is_ok() ? fail_all(LOOM_ERR_INVALID, "loom_alloc_collective: out is NULL")
                          : fail(LOOM_ERR_INVALID, "loom_alloc_collective: out is NULL");
  if (!agreed.is_ok()) return agreed;
  // From here the arguments are the same on every rank, and so is an error.
  if (size == 0) size = 1;  // like malloc(0): a block of its own (one page), freed as any other
  if (size > rt.size)
    return fail_all(LOOM_ERR_NO_MEMORY, "loom_alloc_collective: %zu bytes is more than the global memory (%llu bytes, LOOM_MEM_SIZE)",
                size, (unsigned long long)rt.size);
  if ((unsigned)policy > LOOM_HOME_EXPLICIT) return fail_all(LOOM_ERR_INVALID, "loom_alloc_collective: unknown home policy %d", (int)policy);
  if ((unsigned)protocol > kProtocolLast)
    return fail_all(LOOM_ERR_INVALID, "loom_alloc_collective_protocol: unknown protocol %d (hlrc 0, erc-invalidate 1, erc-update 2)",
                (int)protocol);
  if (policy == LOOM_HOME_EXPLICIT && (home_rank < 0 || home_rank >= rt.nranks))
    return fail_all(LOOM_ERR_INVALID, "loom_alloc_collective_at: rank %d is not in 0..%d", home_rank, rt.nranks - 1);
  uint64_t npages = (size + kPage - 1) / kPage;
  // After a restart the program's collective allocations get, in order,
  // the saved blocks with their contents (checkpoint.hpp).
  CheckpointState& ck = rt.ckpt;
  if (ck.replayed < ck.replay.size()) {
    const auto b = ck.replay[ck.replayed];
    if (b.second != npages)
      return fail_all(LOOM_ERR_MISMATCH,
                  "loom_alloc_collective after a restart: allocation %zu asks for %llu pages, the checkpoint's has %llu "
                  "(make the collective allocations in the same order and sizes as the run that wrote it)",
                  ck.replayed + 1, (unsigned long long)npages, (unsigned long long)b.second);
    ck.replayed++;
    placement_skip();
    ck.collective.push_back(b);
    for (uint64_t p = b.first; p < b.first + b.second; p++) rt.pages.flags[p] |= kAlloc;
    rt.pages.mark_block(b.first, b.second);
    *out = rt.base + b.first * kPage;
    return Status::ok();
  }
  // A placement file's homes for this allocation (the same on every rank).
  static std::vector<int16_t>& placed = *new std::vector<int16_t>();  // never destroyed: see runtime.hpp
  LOOM_TRY(placement_next(npages, &placed));
  // Rank 0 allocates, everyone learns the result (first page, or ~0 on error).
  uint64_t first = ~0ull;
  if (rt.rank == 0) {
    Status s = heap_alloc(npages, kHeapCollective, &first);
    if (!s.is_ok()) first = ~0ull;
  }
  MPI_Bcast(&first, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (first == ~0ull)
    return rt.rank == 0 ? Status(LOOM_ERR_NO_MEMORY)
                        : fail_quiet(LOOM_ERR_NO_MEMORY, "loom_alloc_collective of %zu bytes: the global memory is full "
                                     "(rank 0 says why)", size);
  proto_release();
  sync_barrier_raw();
  proto_reset_range(first, npages, true, policy, home_rank, protocol, placed.empty() ? nullptr : placed.data());
  sync_barrier_raw();
  ck.collective.emplace_back(first, npages);
  *out = rt.base + first * kPage;
  if (trace_on()) trace_event(Ev::Alloc, trace_now(), first, npages | (uint64_t)kHeapCollective << 56);
  return Status::ok();
}

}  // namespace

extern "C" {

loom_status_t loom_config_default(loom_config_t* cfg) {
  if (!cfg) return ret(fail(LOOM_ERR_INVALID, "loom_config_default: cfg is NULL"));
  return ret(config_from_env(cfg));
}

loom_status_t loom_init(int* argc, char*** argv, const loom_config_t* cfg) {
  Status s = init(argc, argv, cfg);
  // Leave nothing half-built (every part of lift_state is a no-op for what
  // was not built); MPI stays up so the program can report.
  if (!s.is_ok() && !rt.active) lift_state();
  return s.code();
}

int loom_initialized(void) { return rt.active ? 1 : 0; }

loom_status_t loom_finalize(void) {
  REQUIRE_INIT();
  spawn_before_finalize();
  Status s = barrier();
  trace_stop();
  stats_finalize_report();
  intercept_publish_range(nullptr, 0);
  rt.active = false;
  lift_state();
  rt.finalized = true;
  if (rt.we_init_mpi) MPI_Finalize();
  rt.we_init_mpi = false;
  return s.code();
}

int loom_direct_peers(void) { return rt.active ? rt.tp.direct_peers() : -1; }
int loom_rank(void) { return rt.active ? rt.rank : -1; }
int loom_nranks(void) { return rt.active ? rt.nranks : 0; }
double loom_wtime(void) { return rt.active ? clock_local() : now(); }

loom_status_t loom_clock_sync(int rounds, loom_clock_t* out) {
  REQUIRE_INIT();
  return ret(clock_sync(rounds, out));
}

loom_status_t loom_clock_check(int rounds, loom_clock_t* out) {
  REQUIRE_INIT();
  return ret(clock_check(rounds, out));
}

double loom_global_time(void) { return rt.active ? clock_global() : now(); }

loom_status_t loom_alloc_collective(size_t size, void** out) {
  REQUIRE_INIT();
  return ret(alloc_collective(size, rt.cfg.home_policy, -1, out));
}

loom_status_t loom_alloc_collective_policy(size_t size, loom_home_policy_t policy, void** out) {
  REQUIRE_INIT();
  if (policy == LOOM_HOME_EXPLICIT)
    return ret(fail(LOOM_ERR_INVALID, "loom_alloc_collective_policy: use loom_alloc_collective_at for explicit homes"));
  return ret(alloc_collective(size, policy, -1, out));
}

loom_status_t loom_alloc_collective_at(size_t size, int home_rank, void** out) {
  REQUIRE_INIT();
  return ret(alloc_collective(size, LOOM_HOME_EXPLICIT, home_rank, out));
}

loom_status_t loom_alloc_collective_protocol(size_t size, loom_protocol_t protocol, void** out) {
  REQUIRE_INIT();
  return ret(alloc_collective(size, rt.cfg.home_policy, -1, out, protocol));
}

loom_status_t loom_alloc(size_t size, void** out) {
  REQUIRE_INIT();
  if (!out) return ret(fail(LOOM_ERR_INVALID, "loom_alloc: out is NULL"));
  if (size > rt.size)
    return ret(fail(LOOM_ERR_NO_MEMORY, "loom_alloc: %zu bytes is more than the global memory (%llu bytes, LOOM_MEM_SIZE)",
                    size, (unsigned long long)rt.size));
  // Like malloc(0): a block of its own, the smallest there is.
  if (size == 0) size = 1;
  if (size <= kSmallMax) {
    void* p = nullptr;
    Status s = small_alloc(size, &p);
    if (!s.is_ok()) return s.code();
    if (p) {
      *out = p;
      return LOOM_OK;
    }
    // Every chunk slot of this rank is in use: whole pages, as for large blocks.
  }
  uint64_t npages = (size + kPage - 1) / kPage, first = 0;
  Status s = heap_alloc(npages, kHeapSingle, &first, (uint32_t)rt.rank);  // tag: who allocated it
  if (!s.is_ok()) return s.code();
  // The pages may have had an earlier life, ended by a free on another rank
  // that told every rank to forget them: hear it now (an early look at the
  // notices is always allowed), before this rank touches the new block.
  proto_release();
  notices_process();
  proto_forget_copies(first, npages, true);
  *out = rt.base + first * kPage;
  if (trace_on()) trace_event(Ev::Alloc, trace_now(), first, npages | (uint64_t)kHeapSingle << 56);
  return LOOM_OK;
}

loom_status_t loom_free(void* ptr) {
  REQUIRE_INIT();
  uint64_t page = 0, n = 0;
  Status s = page_of(ptr, "loom_free", &page);
  if (!s.is_ok()) return s.code();
  // Which kind of block holds the pointer decides how it is freed: the
  // table is read without the heap lock (small blocks never take it).
  HeapBlock b{};
  if (!heap_find(page, &b))
    return ret(fail(LOOM_ERR_BAD_POINTER, "loom_free of %p: not in a block Loom allocated, or already freed", ptr));
  if (b.kind == kHeapSmall) return ret(small_free(ptr, b.first, b.tag));
  if ((uint64_t)((uint8_t*)ptr - rt.base) % kPage || page != b.first)
    return ret(fail(LOOM_ERR_BAD_POINTER, "loom_free of %p: not the start of a Loom block (its block starts at %p)", ptr,
                    (void*)(rt.base + b.first * kPage)));
  // A free is a release: this rank's writes to the block reach the homes
  // before the block can be handed out again.
  proto_release();
  s = heap_free(page, kHeapSingle, &n);  // every rank forgets the pages (proto_free_block)
  if (!s.is_ok()) return s.code();
  if (trace_on()) trace_event(Ev::Free, trace_now(), page, n | (uint64_t)kHeapSingle << 56);
  return LOOM_OK;
}

loom_status_t loom_free_collective(void* ptr) {
  REQUIRE_INIT();
  REQUIRE_NOT_SERIAL("loom_free_collective");
  uint64_t page = ~0ull;
  Status s;
  {
    DeferErrors once;  // printed once by agree_ok
    s = page_of(ptr, "loom_free_collective", &page);
  }
  Status checked = agree_ok(s, "loom_free_collective");
  if (!checked.is_ok()) return checked.code();
  Status a = agree(&page, 1, "loom_free_collective (pointer's page)");
  if (!a.is_ok()) return a.code();
  // Rank 0 frees; everyone learns the block size (0 on error).
  uint64_t n = 0;
  if (rt.rank == 0) {
    Status f = heap_free(page, kHeapCollective, &n);
    if (!f.is_ok()) n = 0;
  }
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (n == 0)
    return rt.rank == 0 ? LOOM_ERR_BAD_POINTER
                        : ret(fail_quiet(LOOM_ERR_BAD_POINTER, "loom_free_collective of %p: not a collective block, or already "
                                         "freed (rank 0 says why)", ptr));
  proto_release();
  sync_barrier_raw();
  proto_reset_range(page, n, false, LOOM_HOME_FIRST_TOUCH, -1, rt.cfg.protocol);
  sync_barrier_raw();
  auto& coll = rt.ckpt.collective;
  for (size_t i = 0; i < coll.size(); i++)
    if (coll[i].first == page) {
      coll.erase(coll.begin() + (ptrdiff_t)i);
      break;
    }
  if (trace_on()) trace_event(Ev::Free, trace_now(), page, n | (uint64_t)kHeapCollective << 56);
  return LOOM_OK;
}

}  // extern "C"

namespace {

Status checkpoint(const char* dir) {
  const char* d = dir ? dir : rt.cfg.checkpoint_dir;
  Status local;
  if (!d[0]) local = fail(LOOM_ERR_INVALID, "loom_checkpoint: no directory (pass one, or set LOOM_CHECKPOINT_DIR)");
  else if (std::strlen(d) > 200) local = fail(LOOM_ERR_INVALID, "loom_checkpoint: the directory name is too long");
  else if (rt.cfg.migrate && !g_migrate_auto)
    local = fail(LOOM_ERR_CONFIG, "loom_checkpoint: not with LOOM_MIGRATE=1 (yet); leave it unset (auto) or 0");
  else if (rt.sync.barrier_pending) local = fail(LOOM_ERR_BUSY, "loom_checkpoint: a split barrier is pending");
  else
    for (uint32_t i = 0; i < rt.cfg.locks; i++)
      if (rt.sync.held[i] || (rt.sync.in_queue[i] && !sync_lock_kept(i))) {  // kept: given up at the barrier
        local = fail(LOOM_ERR_BUSY, "loom_checkpoint: this rank holds lock %u; checkpoint with no lock held", i);
        break;
      }
  LOOM_TRY(agree_ok(local, "loom_checkpoint"));
  LOOM_TRY(barrier());  // every diff at its home
  if (g_migrate_auto) rt.cfg.migrate = 0;  // the homes saved stay the homes (every rank does this)
  double t0 = stat_now();
  Status s = checkpoint_write(d);
  rt.st.s.t_barrier += stat_now() - t0;
  return s;
}

}  // namespace

extern "C" {

loom_status_t loom_checkpoint(const char* dir) {
  REQUIRE_INIT();
  REQUIRE_NOT_SERIAL("loom_checkpoint");
  return ret(checkpoint(dir));
}

int loom_restarted(void) { return rt.active && rt.ckpt.restarted ? 1 : 0; }

loom_status_t loom_barrier(void) {
  REQUIRE_INIT();
  REQUIRE_NOT_SERIAL("loom_barrier");
  if (rt.sync.barrier_pending)
    return ret(fail(LOOM_ERR_BUSY, "loom_barrier: a split barrier is pending on this rank; call loom_barrier_wait first"));
  Status s = barrier();
  if (s.is_ok() && rt.cfg.checkpoint_every > 0 && ++rt.ckpt.barriers % (uint64_t)rt.cfg.checkpoint_every == 0)
    s = checkpoint(nullptr);
  return ret(s);
}

loom_status_t loom_thread_barrier(int nthreads) {
  Status s = need_init("loom_thread_barrier");
  if (s.is_ok() && nthreads < 1)
    s = fail(LOOM_ERR_INVALID, "loom_thread_barrier(%d): the thread count must be at least 1", nthreads);
  if (!s.is_ok()) return s.code();
  if (nthreads == 1) return loom_barrier();
  if (rank_lock_mine())  // the others could never get in to arrive
    return ret(fail(LOOM_ERR_BUSY, "loom_thread_barrier: called from inside a Loom call on this thread"));
  return thread_barrier(nthreads, [] { return loom_barrier(); });
}

loom_status_t loom_barrier_arrive(const int* ranks, int n) {
  REQUIRE_INIT();
  REQUIRE_NOT_SERIAL("loom_barrier_arrive");
  return ret(barrier_arrive(ranks, n, "loom_barrier_arrive"));
}

loom_status_t loom_barrier_wait(void) {
  REQUIRE_INIT();
  return ret(barrier_wait("loom_barrier_wait"));
}

loom_status_t loom_barrier_subset(const int* ranks, int n) {
  REQUIRE_INIT();
  REQUIRE_NOT_SERIAL("loom_barrier_subset");
  Status s = barrier_arrive(ranks, n, "loom_barrier_subset");
  if (!s.is_ok()) return s.code();
  return ret(barrier_wait("loom_barrier_subset"));
}

loom_status_t loom_poll(void) {
  REQUIRE_INIT();
  double t0 = stat_now();
  if (!rt.tp.all_direct()) {
    int flag = 0;  // entering the MPI progress engine serves RMA aimed at this rank
    MPI_Iprobe(MPI_ANY_SOURCE, 0x4c50, rt.tp.comm(), &flag, MPI_STATUS_IGNORE);
  }
  rt.st.s.t_poll += stat_now() - t0;
  return LOOM_OK;
}

loom_status_t loom_lock(uint32_t id) {
  Status s = need_init("loom_lock");
  if (s.is_ok()) s = check_lock(id, "loom_lock");
  if (!s.is_ok()) return s.code();
  if (lock_holder(id) == thread_tid())
    return ret(fail(LOOM_ERR_BUSY, "loom_lock(%u): this thread holds the lock already", id));
  if (rt.sync.host_locks) return host_lock(id);
  double t0 = stat_now();
  SyncState& sy = rt.sync;
  __atomic_fetch_add(&sy.wanting[id], 1, __ATOMIC_SEQ_CST);
  take_for_thread(id);  // this rank's place in the lock, from its other threads
  __atomic_fetch_sub(&sy.wanting[id], 1, __ATOMIC_SEQ_CST);
  if (take_again(id, t0) || take_kept_lock(id, t0)) return LOOM_OK;
  RankHold hold;
  const uint64_t tt = trace_on() ? (trace_sync_point(), trace_now()) : 0;
  const bool turn = spawn_before_lock();
  proto_release();
  const uint64_t from = sync_lock_raw(id);
  if (turn) spawn_turn_done();
  sy.in_queue[id] = 1;
  sy.siblings[id] = 0;
  proto_acquire(false, IvlAcquire::Lock, from);
  rt.st.s.locks++;
  rt.st.s.t_lock += stat_now() - t0;
  if (trace_on()) trace_event(Ev::Lock, tt, id, from);
  return LOOM_OK;
}

// An acquire only when the lock is taken: a failed attempt costs one
// atomic on the lock's tail and changes nothing, neither the queue nor this
// rank's memory (no release, no acquire).  On success the release comes
// after the lock is taken rather than before, as loom_lock's does: writes
// made before the call still reach the homes before any later holder's
// acquire (at the latest at loom_unlock).
loom_status_t loom_trylock(uint32_t id, int* acquired) {
  Status s = need_init("loom_trylock");
  if (s.is_ok()) s = check_lock(id, "loom_trylock");
  if (!s.is_ok()) return s.code();
  if (!acquired) return ret(fail(LOOM_ERR_INVALID, "loom_trylock(%u): acquired is NULL", id));
  if (rt.sync.host_locks) {
    *acquired = lock_holder(id) != thread_tid() && sync_host_trylock(id);
    if (*acquired) host_acquired(id, 0);
    return LOOM_OK;
  }
  // Held by a thread of this rank (this one too: no recursion): not taken.
  int free_here = 0;
  if (!__atomic_compare_exchange_n(&rt.sync.held[id], &free_here, thread_tid(), false, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED)) {
    *acquired = 0;
    return LOOM_OK;
  }
  double t0 = stat_now();
  if (take_again(id, t0) || take_kept_lock(id, t0)) {
    *acquired = 1;
    return LOOM_OK;
  }
  RankHold hold;
  const uint64_t tt = trace_on() ? (trace_sync_point(), trace_now()) : 0;
  uint64_t from = 0;
  if (!sync_trylock_raw(id, &from)) {
    give_for_thread(id);
    rt.st.s.t_lock += stat_now() - t0;
    if (trace_on()) trace_event(Ev::Lock, tt, id, 0, 1);
    *acquired = 0;
    return LOOM_OK;
  }
  rt.sync.in_queue[id] = 1;
  rt.sync.siblings[id] = 0;
  proto_release();
  proto_acquire(false, IvlAcquire::Lock, from);
  rt.st.s.locks++;
  rt.st.s.t_lock += stat_now() - t0;
  if (trace_on()) trace_event(Ev::Lock, tt, id, from);
  *acquired = 1;
  return LOOM_OK;
}

loom_status_t loom_unlock(uint32_t id) {
  Status s = need_init("loom_unlock");
  if (s.is_ok()) s = check_lock(id, "loom_unlock");
  if (!s.is_ok()) return s.code();
  const int holder = lock_holder(id);
  if (holder != thread_tid()) {
    if (holder)
      return ret(fail(LOOM_ERR_BUSY, "loom_unlock(%u): another thread of this rank (thread %d) holds the lock; the "
                      "thread that locked it unlocks it", id, holder));
    return ret(fail(LOOM_ERR_BUSY, "loom_unlock(%u): this rank does not hold the lock", id));
  }
  if (rt.sync.host_locks) return host_unlock(id);
  double t0 = stat_now();
  SyncState& sy = rt.sync;
  if (!sy.in_queue[id]) {  // one rank: the lock was kept among its threads (loom_lock)
    give_for_thread(id);
    stats_side_lock(true, stat_now() - t0);
    trace_kept(Ev::Unlock, id);
    return LOOM_OK;
  }
  QuietHold hold;  // a release leaves other threads' fetches alone (threads.hpp)
  const uint64_t tt = trace_on() ? (trace_sync_point(), trace_now()) : 0;
  // A sibling thread waits for the lock: hand it over inside the rank, which
  // keeps its place in the queue (no release: the sibling reads this
  // thread's writes in the same memory; the rank's release when the lock
  // leaves it publishes them), unless another rank waits behind this one
  // and the rank has kept the lock for kSiblingRun hand-overs already.
  if (__atomic_load_n(&sy.wanting[id], __ATOMIC_SEQ_CST) > 0 &&
      (sy.siblings[id] < kSiblingRun || !sync_lock_successor(id))) {
    sy.siblings[id]++;
    give_for_thread(id);
    rt.st.s.unlocks++;
    rt.st.s.t_unlock += stat_now() - t0;
    if (trace_on()) trace_event(Ev::Unlock, tt, id, 0);
    return LOOM_OK;
  }
  proto_release();
  const uint64_t info = ivl_release_info();
  if (!sync_keep(id, info)) {  // kept: the rank stays in the queue
    sync_unlock_raw(id, info);
    sy.in_queue[id] = 0;
  }
  give_for_thread(id);
  rt.st.s.unlocks++;
  rt.st.s.t_unlock += stat_now() - t0;
  if (trace_on()) trace_event(Ev::Unlock, tt, id, info);
  return LOOM_OK;
}

}  // extern "C"

namespace {

// Is page p in a live block?  Pages of collective blocks are exact on every
// rank (collective alloc and free); a block from loom_alloc may have been
// freed by another rank since this rank learned of it, so its pages are
// re-checked against the heap table whenever the table changed.
bool page_live(uint64_t p) {
  if ((rt.pages.flags[p] & kAlloc) && !(rt.pages.flags[p] & kSingle)) return true;
  if (!(rt.pages.flags[p] & kAlloc)) return heap_mark_if_allocated(p);
  return heap_still_allocated(p);
}

// [ptr, ptr+len) (len > 0) lies in Loom memory, in live blocks: its pages.
Status live_range(const void* ptr, size_t len, const char* fn, uint64_t* first, uint64_t* last) {
  LOOM_TRY(page_of(ptr, fn, first));
  char end_fn[96];
  std::snprintf(end_fn, sizeof end_fn, "%s (end of range)", fn);
  LOOM_TRY(page_of((const uint8_t*)ptr + len - 1, end_fn, last));
  for (uint64_t p = *first; p <= *last; p++)
    if (!page_live(p))
      return fail(LOOM_ERR_BAD_POINTER, "%s: page at %p is not in an allocated block (never allocated, or already freed)",
                  fn, (void*)(rt.base + p * kPage));
  return Status::ok();
}

// loom_release_range / loom_acquire_range: the pages of a live range, then
// the driver's step on them (an empty range does nothing).
loom_status_t on_range(const void* ptr, size_t len, const char* fn, void (*step)(uint64_t first, uint64_t n)) {
  if (len == 0) return LOOM_OK;
  uint64_t first = 0, last = 0;
  Status s = live_range(ptr, len, fn, &first, &last);
  if (!s.is_ok()) return s.code();
  step(first, last - first + 1);
  return LOOM_OK;
}

const char* type_name(AtomicType t) {
  switch (t) {
    case AtomicType::U32: return "32-bit integer";
    case AtomicType::U64: return "64-bit integer";
    case AtomicType::F32: return "float";
    case AtomicType::F64: return "double";
  }
  return "?";
}

// Every loom_atomic_*: the word's checks, then the operation at its home.
// Operands and the old value are the word's bits (zero above its width).
loom_status_t atomic(const char* fn, void* addr, AtomicType t, AtomicOp op, uint64_t a, uint64_t b, uint64_t* old) {
  Status ready = need_init(fn);
  if (!ready.is_ok()) return ready.code();
  RankHold hold;
  uint64_t page = 0;
  Status s = page_of(addr, fn, &page);
  if (!s.is_ok()) return s.code();
  const size_t width = atomic_width(t);
  if ((uintptr_t)addr % width)
    return ret(fail(LOOM_ERR_INVALID, "%s: %p is not %zu-byte aligned (a %s atomic needs its natural alignment)", fn,
                    addr, width, type_name(t)));
  if (!page_live(page))
    return ret(fail(LOOM_ERR_BAD_POINTER, "%s: %p is not in an allocated block (never allocated, or already freed)",
                    fn, addr));
  const uint64_t tt = trace_on() ? trace_now() : 0;
  proto_before_atomic(page);
  int h = rt.pages.home[page];
  uint64_t off = (uint64_t)((uint8_t*)addr - rt.base);
  uint64_t r = rt.tp.atomic_op(h, Seg::Data, off, t, op, a, b);
  if (op != AtomicOp::Load && (op != AtomicOp::Cas || r == a)) proto_after_atomic(page);
  rt.st.s.atomics++;
  if (trace_on()) {
    trace_event(Ev::Atomic, tt, off, (uint64_t)op | (uint64_t)(uint16_t)h << 48);
    trace_flush_full();  // a rank spinning on a flag makes atomics without end between synchronizations
  }
  if (old) *old = r;
  return LOOM_OK;
}

// The bits of a value of type T, and back.
template <class T>
uint64_t bits(T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "a word");
  if constexpr (sizeof(T) == 4) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return u;
  } else {
    uint64_t u;
    std::memcpy(&u, &v, 8);
    return u;
  }
}
template <class T>
T from_bits(uint64_t u) {
  T v;
  if constexpr (sizeof(T) == 4) {
    uint32_t w = (uint32_t)u;
    std::memcpy(&v, &w, 4);
  } else {
    std::memcpy(&v, &u, 8);
  }
  return v;
}

// One family of loom_atomic_* per type, on top of atomic().
template <class T, AtomicType kType>
struct Atomics {
  static loom_status_t run(const char* fn, T* addr, AtomicOp op, T a, T b, T* old) {
    uint64_t r = 0;
    loom_status_t s = atomic(fn, addr, kType, op, bits(a), bits(b), &r);
    if (s == LOOM_OK && old) *old = from_bits<T>(r);
    return s;
  }
  static loom_status_t load(const char* fn, T* addr, T* value) {
    if (!value) return ret(fail(LOOM_ERR_INVALID, "%s: value is NULL", fn));
    return run(fn, addr, AtomicOp::Load, T(), T(), value);
  }
};
using U32 = Atomics<uint32_t, AtomicType::U32>;
using U64 = Atomics<uint64_t, AtomicType::U64>;
using F32 = Atomics<float, AtomicType::F32>;
using F64 = Atomics<double, AtomicType::F64>;

}  // namespace

extern "C" {

loom_status_t loom_atomic_fetch_add(uint64_t* addr, uint64_t value, uint64_t* old) {
  return U64::run("loom_atomic_fetch_add", addr, AtomicOp::Add, value, 0, old);
}
loom_status_t loom_atomic_cas(uint64_t* addr, uint64_t expected, uint64_t desired, uint64_t* old) {
  return U64::run("loom_atomic_cas", addr, AtomicOp::Cas, expected, desired, old);
}
loom_status_t loom_atomic_exchange(uint64_t* addr, uint64_t value, uint64_t* old) {
  return U64::run("loom_atomic_exchange", addr, AtomicOp::Swap, value, 0, old);
}
loom_status_t loom_atomic_load(uint64_t* addr, uint64_t* value) { return U64::load("loom_atomic_load", addr, value); }
loom_status_t loom_atomic_store(uint64_t* addr, uint64_t value) {
  return U64::run("loom_atomic_store", addr, AtomicOp::Store, value, 0, nullptr);
}

loom_status_t loom_atomic_fetch_add_u32(uint32_t* addr, uint32_t value, uint32_t* old) {
  return U32::run("loom_atomic_fetch_add_u32", addr, AtomicOp::Add, value, 0, old);
}
loom_status_t loom_atomic_cas_u32(uint32_t* addr, uint32_t expected, uint32_t desired, uint32_t* old) {
  return U32::run("loom_atomic_cas_u32", addr, AtomicOp::Cas, expected, desired, old);
}
loom_status_t loom_atomic_exchange_u32(uint32_t* addr, uint32_t value, uint32_t* old) {
  return U32::run("loom_atomic_exchange_u32", addr, AtomicOp::Swap, value, 0, old);
}
loom_status_t loom_atomic_load_u32(uint32_t* addr, uint32_t* value) {
  return U32::load("loom_atomic_load_u32", addr, value);
}
loom_status_t loom_atomic_store_u32(uint32_t* addr, uint32_t value) {
  return U32::run("loom_atomic_store_u32", addr, AtomicOp::Store, value, 0, nullptr);
}

loom_status_t loom_atomic_fetch_add_f32(float* addr, float value, float* old) {
  return F32::run("loom_atomic_fetch_add_f32", addr, AtomicOp::Add, value, 0, old);
}
loom_status_t loom_atomic_cas_f32(float* addr, float expected, float desired, float* old) {
  return F32::run("loom_atomic_cas_f32", addr, AtomicOp::Cas, expected, desired, old);
}
loom_status_t loom_atomic_exchange_f32(float* addr, float value, float* old) {
  return F32::run("loom_atomic_exchange_f32", addr, AtomicOp::Swap, value, 0, old);
}
loom_status_t loom_atomic_load_f32(float* addr, float* value) { return F32::load("loom_atomic_load_f32", addr, value); }
loom_status_t loom_atomic_store_f32(float* addr, float value) {
  return F32::run("loom_atomic_store_f32", addr, AtomicOp::Store, value, 0, nullptr);
}

loom_status_t loom_atomic_fetch_add_f64(double* addr, double value, double* old) {
  return F64::run("loom_atomic_fetch_add_f64", addr, AtomicOp::Add, value, 0, old);
}
loom_status_t loom_atomic_cas_f64(double* addr, double expected, double desired, double* old) {
  return F64::run("loom_atomic_cas_f64", addr, AtomicOp::Cas, expected, desired, old);
}
loom_status_t loom_atomic_exchange_f64(double* addr, double value, double* old) {
  return F64::run("loom_atomic_exchange_f64", addr, AtomicOp::Swap, value, 0, old);
}
loom_status_t loom_atomic_load_f64(double* addr, double* value) { return F64::load("loom_atomic_load_f64", addr, value); }
loom_status_t loom_atomic_store_f64(double* addr, double value) {
  return F64::run("loom_atomic_store_f64", addr, AtomicOp::Store, value, 0, nullptr);
}

// ---- fences and ordered atomics -------------------------------------------

loom_status_t loom_release(void) {
  REQUIRE_INIT();
  proto_release();
  return LOOM_OK;
}

loom_status_t loom_acquire(void) {
  REQUIRE_INIT();
  proto_acquire();
  return LOOM_OK;
}

loom_status_t loom_release_range(const void* ptr, size_t len) {
  REQUIRE_INIT();
  return on_range(ptr, len, "loom_release_range", proto_release_range);
}

loom_status_t loom_acquire_range(const void* ptr, size_t len) {
  REQUIRE_INIT();
  return on_range(ptr, len, "loom_acquire_range", proto_acquire_range);
}

}  // extern "C"

namespace {

// An atomic with a memory order: the release part before it, the acquire
// part after it succeeded.  Loom's atomics are performed one at a time at
// the words' homes, each complete before the next begins, so they are
// sequentially consistent among themselves and LOOM_SEQ_CST adds nothing
// to LOOM_ACQ_REL.
template <class Op>
loom_status_t ordered(const char* fn, loom_order_t order, Op op) {
  Status ready = need_init(fn);
  if (!ready.is_ok()) return ready.code();
  RankHold hold;
  if ((int)order < (int)LOOM_RELAXED || (int)order > (int)LOOM_SEQ_CST)
    return ret(fail(LOOM_ERR_INVALID, "%s: memory order %d is not a loom_order_t", fn, (int)order));
  const bool rel = order == LOOM_RELEASE || order == LOOM_ACQ_REL || order == LOOM_SEQ_CST;
  const bool acq = order == LOOM_ACQUIRE || order == LOOM_ACQ_REL || order == LOOM_SEQ_CST;
  if (rel) proto_release();
  loom_status_t r = op();
  if (r == LOOM_OK && acq) proto_acquire();
  return r;
}

}  // namespace

extern "C" {

loom_status_t loom_atomic_fetch_add_explicit(uint64_t* addr, uint64_t value, uint64_t* old, loom_order_t order) {
  return ordered(__func__, order, [&] { return U64::run(__func__, addr, AtomicOp::Add, value, 0, old); });
}
loom_status_t loom_atomic_cas_explicit(uint64_t* addr, uint64_t expected, uint64_t desired, uint64_t* old,
                                       loom_order_t order) {
  return ordered(__func__, order, [&] { return U64::run(__func__, addr, AtomicOp::Cas, expected, desired, old); });
}
loom_status_t loom_atomic_exchange_explicit(uint64_t* addr, uint64_t value, uint64_t* old, loom_order_t order) {
  return ordered(__func__, order, [&] { return U64::run(__func__, addr, AtomicOp::Swap, value, 0, old); });
}
loom_status_t loom_atomic_load_explicit(uint64_t* addr, uint64_t* value, loom_order_t order) {
  if (!value) return ret(fail(LOOM_ERR_INVALID, "loom_atomic_load_explicit: value is NULL"));
  return ordered(__func__, order, [&] { return U64::load(__func__, addr, value); });
}
loom_status_t loom_atomic_store_explicit(uint64_t* addr, uint64_t value, loom_order_t order) {
  return ordered(__func__, order, [&] { return U64::run(__func__, addr, AtomicOp::Store, value, 0, nullptr); });
}

// Lock ids handed out from one counter on rank 0 (word 251 of its barrier
// area, runtime.hpp), so that any rank may take them at any time.
loom_status_t loom_lock_alloc(uint32_t n, uint32_t* first) {
  REQUIRE_INIT();
  if (!first) return ret(fail(LOOM_ERR_INVALID, "loom_lock_alloc: first is NULL"));
  if (n == 0) return ret(fail(LOOM_ERR_INVALID, "loom_lock_alloc: n is 0"));
  uint64_t old = rt.tp.fetch_add(0, Seg::Meta, rt.meta.barrier + kLockCounterWord * 8, n);
  if (old + n > rt.cfg.locks)
    return ret(fail(LOOM_ERR_NO_MEMORY,
                    "loom_lock_alloc(%u): the job's %u lock ids are taken (%llu asked for so far); raise LOOM_LOCKS", n,
                    rt.cfg.locks, (unsigned long long)(old + n)));
  *first = (uint32_t)old;
  return LOOM_OK;
}

loom_status_t loom_prepare(void* ptr, size_t len, int access) {
  REQUIRE_INIT();
  if (len == 0) return LOOM_OK;
  if (access != LOOM_READ && access != LOOM_WRITE && access != (LOOM_READ | LOOM_WRITE))
    return ret(fail(LOOM_ERR_INVALID, "loom_prepare: access must be LOOM_READ, LOOM_WRITE or both"));
  uint64_t first = 0, last = 0;
  Status s = live_range(ptr, len, "loom_prepare", &first, &last);
  if (!s.is_ok()) return s.code();
  for (uint64_t p = first; p <= last; p++) {
    if (access & LOOM_WRITE) proto_make_writable(p);
    else proto_make_readable(p);
  }
  return LOOM_OK;
}

loom_status_t loom_update(const void* ptr, size_t len) {
  REQUIRE_INIT();
  if (len == 0) return LOOM_OK;
  uint64_t first = 0, last = 0;
  Status s = live_range(ptr, len, "loom_update", &first, &last);
  if (!s.is_ok()) return s.code();
  if (!rt.shared) rt.rings.update_runs.emplace_back(first, last - first + 1);  // (shared pages are the home's)
  return LOOM_OK;
}

int loom_is_shared(const void* ptr) {
  const uint8_t* a = static_cast<const uint8_t*>(ptr);
  return rt.active && a >= rt.base && a < rt.base + rt.size;
}

loom_status_t loom_home_of(const void* ptr, int* rank) {
  REQUIRE_INIT();
  uint64_t page = 0;
  Status s = page_of(ptr, "loom_home_of", &page);
  if (!s.is_ok()) return s.code();
  if (!rank) return ret(fail(LOOM_ERR_INVALID, "loom_home_of: rank is NULL"));
  *rank = proto_home(page, false);
  return LOOM_OK;
}

loom_status_t loom_stats_get(loom_stats_t* out) {
  REQUIRE_INIT();
  if (!out) return ret(fail(LOOM_ERR_INVALID, "loom_stats_get: out is NULL"));
  rank_stats(out);
  adapt_count_modes(&out->pages_lazy, &out->pages_eager);
  out->meta_bytes = rt.meta.size;
  return LOOM_OK;
}

loom_status_t loom_thread_stats_get(loom_stats_t* out) {
  REQUIRE_INIT();
  if (!out) return ret(fail(LOOM_ERR_INVALID, "loom_thread_stats_get: out is NULL"));
  thread_stats(out);
  adapt_count_modes(&out->pages_lazy, &out->pages_eager);
  out->meta_bytes = rt.meta.size;
  return LOOM_OK;
}

loom_status_t loom_stats_reset(void) {
  REQUIRE_INIT();
  rt.st = Stats{};
  rt.st.t_start = now();
  if (trace_on()) trace_event(Ev::Reset, trace_now(), 0, 0);  // where the statistics' wall time begins
  thread_stats_reset();
  return LOOM_OK;
}

loom_status_t loom_stats_json(char* buf, size_t len) {
  REQUIRE_INIT();
  if (!buf || len == 0) return ret(fail(LOOM_ERR_INVALID, "loom_stats_json: empty buffer"));
  loom_stats_t st;
  rank_stats(&st);
  adapt_count_modes(&st.pages_lazy, &st.pages_eager);
  st.meta_bytes = rt.meta.size;
  if (stats_json(st, rt.rank, stats_wall(), true, buf, len) >= len) return ret(fail(LOOM_ERR_INVALID, "loom_stats_json: buffer too small"));
  return LOOM_OK;
}

loom_status_t loom_config_string(char* buf, size_t len) {
  if (!buf || len == 0) return ret(fail(LOOM_ERR_INVALID, "loom_config_string: empty buffer"));
  loom_config_t c;
  if (rt.active) c = rt.cfg;
  else {
    Status s = config_from_env(&c);
    if (!s.is_ok()) return s.code();
  }
  if (config_print(&c, buf, len) >= len) return ret(fail(LOOM_ERR_INVALID, "loom_config_string: buffer too small"));
  return LOOM_OK;
}

const char* loom_strerror(loom_status_t s) {
  switch (s) {
    case LOOM_OK: return "success";
    case LOOM_ERR_INVALID: return "invalid argument";
    case LOOM_ERR_NOT_INITIALIZED: return "Loom is not initialized";
    case LOOM_ERR_ALREADY_INITIALIZED: return "Loom is already initialized";
    case LOOM_ERR_NO_MEMORY: return "out of global memory";
    case LOOM_ERR_BAD_POINTER: return "not a pointer Loom allocated";
    case LOOM_ERR_MISMATCH: return "ranks disagree on a collective call's arguments";
    case LOOM_ERR_CONFIG: return "invalid configuration";
    case LOOM_ERR_ADDRESS: return "no common address for the global memory";
    case LOOM_ERR_MPI: return "MPI error";
    case LOOM_ERR_SYSTEM: return "system call failed";
    case LOOM_ERR_BUSY: return "lock state does not allow this";
    case LOOM_ERR_THREAD: return "called from a second thread";
  }
  return "unknown status";
}

const char* loom_last_error(void) { return last_error(); }

}  // extern "C"

// intercept.hpp: loom_prepare's work, for the wrappers of intercept.cpp.
Status loom::prepare_range(const void* ptr, size_t len, int access, const char* fn) {
  // Loom's own threads only complete what an application thread posted,
  // which prepared the buffer then (and keeps it valid until it completes).
  if (thread_is_internal()) return Status::ok();
  RankHold hold;
  uint64_t first = 0, last = 0;
  LOOM_TRY(live_range(ptr, len, fn, &first, &last));
  for (uint64_t p = first; p <= last; p++) {
    if (access & LOOM_WRITE) proto_make_writable(p);
    else proto_make_readable(p);
  }
  return Status::ok();
}
