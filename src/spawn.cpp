// The fork-style start: loom_start_serial, loom_spawn, loom_join (see
// spawn.hpp and include/loom/loom.h for what a program gets).
//
// How the ranks come to share rank 0's globals:
//  - identical address spaces: each process starts itself once more with
//    address-space randomization off (personality ADDR_NO_RANDOMIZE, then
//    execv of /proc/self/exe with the same arguments and environment),
//    before MPI starts.  The program and its libraries then sit at the same
//    addresses on every rank, which loom_start_serial checks (the program's
//    base, the C library's, and the private ranges below, compared across
//    ranks) before it trusts it;
//  - the private ranges: the main program's writable segments (.data, .bss)
//    less the part made read-only after relocation (RELRO) and less the
//    objects copy-relocated into it from shared libraries (environ, stdout,
//    an MPI library's predefined objects: they belong to those libraries,
//    whose state differs per rank).  Loom's own state is in libloom.so, out
//    of the range.  loom_spawn broadcasts these bytes from rank 0 in place;
//  - the waiting ranks sleep in a receive loop (naps up to 2 ms), so rank 0
//    has the cores to itself while main sets up; Loom's protocol or
//    progress thread, where there is one, serves rank 0's requests to them.
// Shared data is Loom memory (the same address everywhere already); the
// spawn and the join are barriers, so rank 0's setup is visible to the
// workers and the workers' results to rank 0 after the join.
#include "spawn.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <mpi.h>
#include <linux/futex.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include "loom/loom.h"
#include "protocol/protocol.hpp"
#include "runtime.hpp"
#include "transport/common.hpp"
#include "watchdog.hpp"

namespace loom {
namespace {

constexpr int kTagCommand = 7;
constexpr uint64_t kCmdSpawn = 1, kCmdExit = 2;
constexpr size_t kChunk = size_t(1) << 30;
constexpr const char* kReexecVar = "LOOM_SERIAL_REEXEC";

struct Range {
  uintptr_t lo, hi;
};

struct SpawnState {
  bool serial = false;        // started by loom_start_serial
  bool running = false;       // rank 0: between loom_spawn and loom_join
  bool ordered_lock = false;  // this rank's next lock waits for its turn (taken atomically: any thread's)
  pid_t pid = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<Range> ranges;  // the program's private writable ranges
  uintptr_t exe_base = 0;
} g;

uint64_t turn_off() { return rt.meta.barrier + kTurnWord * 8; }

#if defined(__x86_64__)
constexpr unsigned kCopyReloc = R_X86_64_COPY;
#elif defined(__aarch64__)
constexpr unsigned kCopyReloc = R_AARCH64_COPY;
#else
#error "spawn.cpp: name this architecture's copy relocation"
#endif

// The main program's private ranges (the first object dl_iterate_phdr
// reports is the program itself).
int collect_ranges(dl_phdr_info* info, size_t, void*) {
  const uintptr_t base = info->dlpi_addr;
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  g.exe_base = base;
  Range relro{0, 0};
  const ElfW(Dyn)* dyn = nullptr;
  std::vector<Range> writable, holes;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uintptr_t lo = base + ph.p_vaddr, hi = lo + ph.p_memsz;
    if (ph.p_type == PT_GNU_RELRO) relro = Range{lo & ~(page - 1), hi & ~(page - 1)};  // as the loader protects it
    if (ph.p_type == PT_DYNAMIC) dyn = reinterpret_cast<const ElfW(Dyn)*>(lo);
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) && ph.p_memsz) writable.push_back(Range{lo, hi});
  }
  if (relro.hi > relro.lo) holes.push_back(relro);
  // Copy relocations: objects of shared libraries placed in the program.
  if (dyn) {
    uintptr_t rela = 0, relasz = 0, symtab = 0;
    for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; d++) {
      if (d->d_tag == DT_RELA) rela = d->d_un.d_ptr;
      if (d->d_tag == DT_RELASZ) relasz = d->d_un.d_val;
      if (d->d_tag == DT_SYMTAB) symtab = d->d_un.d_ptr;
    }
    // The loader makes these addresses absolute in place on most targets;
    // where it did not, they are still offsets from the base.
    if (rela && rela < base) rela += base;
    if (symtab && symtab < base) symtab += base;
    if (rela && symtab) {
      const auto* r = reinterpret_cast<const ElfW(Rela)*>(rela);
      const auto* sym = reinterpret_cast<const ElfW(Sym)*>(symtab);
      for (size_t i = 0; i < relasz / sizeof(ElfW(Rela)); i++) {
        if (ELF64_R_TYPE(r[i].r_info) != kCopyReloc) continue;
        const uintptr_t lo = base + r[i].r_offset;
        holes.push_back(Range{lo, lo + sym[ELF64_R_SYM(r[i].r_info)].st_size});
      }
    }
  }
  std::sort(holes.begin(), holes.end(), [](const Range& a, const Range& b) { return a.lo < b.lo; });
  for (Range w : writable) {
    uintptr_t at = w.lo;
    for (const Range& h : holes) {
      if (h.hi <= at || h.lo >= w.hi) continue;
      if (h.lo > at) g.ranges.push_back(Range{at, h.lo});
      at = std::max(at, h.hi);
    }
    if (at < w.hi) g.ranges.push_back(Range{at, w.hi});
  }
  return 1;  // the program only
}

// Start this process again without address-space randomization (once).
void no_randomization(char** argv) {
  if (std::getenv(kReexecVar)) return;  // the second start: the check says whether it worked
  const int pers = personality(0xffffffff);
  if (pers == -1 || (pers & ADDR_NO_RANDOMIZE)) return;
  if (personality((unsigned long)pers | ADDR_NO_RANDOMIZE) == -1) return;
  setenv(kReexecVar, "1", 1);
  execv("/proc/self/exe", argv);
  unsetenv(kReexecVar);  // execv failed: the check below reports what differs
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

// Do all ranks have the same program layout?  (Collective.)
Status check_layout() {
  Dl_info libc{};
  dladdr(reinterpret_cast<void*>(&std::malloc), &libc);
  uint64_t h = mix(g.exe_base, (uintptr_t)libc.dli_fbase);
  for (const Range& r : g.ranges) h = mix(mix(h, r.lo), r.hi);
  uint64_t mine[2] = {h, ~h}, mx[2] = {0, 0};
  MPI_Allreduce(mine, mx, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (mx[0] == h && ~mx[1] == h) return Status::ok();
  const int pers = personality(0xffffffff);
  return fail(LOOM_ERR_CONFIG,
              "loom_start_serial: the ranks' programs are not loaded at the same addresses (this rank: program at "
              "%p, C library at %p; address-space randomization %s), so rank 0's globals cannot be given to the "
              "others.  Run the same executable on every rank; where personality(ADDR_NO_RANDOMIZE) is not "
              "allowed, start the job with randomization off (setarch -R, or sysctl kernel.randomize_va_space=0)",
              (void*)g.exe_base, libc.dli_fbase, pers != -1 && (pers & ADDR_NO_RANDOMIZE) ? "off" : "on");
}

// Marks (1 a page) the pages of [lo, hi) this process may have written
// since the program was loaded: those /proc/self/pagemap shows present and
// anonymous (a private page copied on write, or one of the zero-filled
// ones touched), or swapped out.  A page none of them is holds what the
// executable file or the zero fill put there, the same in every rank (one
// executable at one address: check_layout).  Without pagemap, every page.
void mark_written(uintptr_t lo, uintptr_t hi, uint8_t* marks) {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), first = lo / page, n = (hi + page - 1) / page - first;
  std::fill(marks, marks + n, 1);
  static int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);  // kept: read at every spawn
  if (fd < 0) return;
  std::vector<uint64_t> e(n);
  if (pread(fd, e.data(), n * 8, (off_t)(first * 8)) != (ssize_t)(n * 8)) return;
  for (uintptr_t i = 0; i < n; i++) {
    const bool present = e[i] >> 63 & 1, swapped = e[i] >> 62 & 1, file = e[i] >> 61 & 1;
    marks[i] = swapped || (present && !file);
  }
}

// Rank 0's private ranges to every rank, in place.  (Collective on g.comm.)
// Only the pages some rank may have written travel (mark_written, joined
// by an allreduce): a program's zero-filled arrays it never touched (a
// SPLASH program's 9 MB of them) are already the same everywhere, and a
// worker took a millisecond a megabyte to receive them.
void broadcast_ranges() {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  static std::vector<uint8_t>& marks = *new std::vector<uint8_t>();  // never destroyed: see runtime.hpp
  marks.clear();
  for (const Range& r : g.ranges) {
    const size_t at = marks.size();
    marks.resize(at + (r.hi + page - 1) / page - r.lo / page);
    mark_written(r.lo, r.hi, marks.data() + at);
  }
  if (!marks.empty())
    check(MPI_Allreduce(MPI_IN_PLACE, marks.data(), (int)marks.size(), MPI_UNSIGNED_CHAR, MPI_BOR, g.comm),
          "MPI_Allreduce (loom_spawn's written pages)");
  size_t k = 0;
  for (const Range& r : g.ranges) {
#if defined(__SANITIZE_ADDRESS__)
    // In a program built with AddressSanitizer the ranges also hold the
    // poisoned red zones between its globals, which the copy writes too.
    ASAN_UNPOISON_MEMORY_REGION(reinterpret_cast<void*>(r.lo), r.hi - r.lo);
#endif
    const uintptr_t p0 = r.lo / page, np = (r.hi + page - 1) / page - p0;
    for (uintptr_t i = 0; i < np;) {
      if (!marks[k + i]) {
        i++;
        continue;
      }
      uintptr_t j = i + 1;
      while (j < np && marks[k + j]) j++;
      const uintptr_t lo = std::max(r.lo, (p0 + i) * page), hi = std::min(r.hi, (p0 + j) * page);
      for (uintptr_t at = lo; at < hi; at += kChunk)
        check(MPI_Bcast(reinterpret_cast<void*>(at), (int)std::min<uintptr_t>(kChunk, hi - at), MPI_BYTE, 0, g.comm),
              "MPI_Bcast (loom_spawn's globals)");
      i = j;
    }
    k += np;
  }
}

// Rank 0, at exit from main or exit(): the others finalize with it.
void finalize_at_exit() {
  if (g.serial && rt.active && rt.rank == 0 && getpid() == g.pid) loom_finalize();
}

// A worker's doorbell: the low half of a word in its Meta, which rank 0
// rings (adds one and wakes it) after sending it a command, where rank 0
// maps the worker's Meta (the same host); nullptr elsewhere.
uint32_t* bell_of(int r) {
  uint8_t* m = rt.tp.mapped_meta(r);
  return m ? reinterpret_cast<uint32_t*>(m + rt.meta.barrier + kSpawnBellWord * 8) : nullptr;
}

// A waiting rank: asleep until rank 0's next command.  Its naps grow to
// 2 ms while rank 0 runs main alone; where rank 0 rings the doorbell, a nap
// is a wait on it that the ring ends at once (a spawn otherwise waited for
// the nap to end: a millisecond on average, in a parallel phase that may
// last tens).
void receive_command(uint64_t* msg) {
  MPI_Request rq;
  check(MPI_Irecv(msg, 4, MPI_UINT64_T, 0, kTagCommand, g.comm, &rq), "MPI_Irecv (loom_spawn's command)");
  uint32_t* bell = rt.tp.mapped_meta(0) ? bell_of(rt.rank) : nullptr;
  long nap = 20000;
  for (;;) {
    const uint32_t rung = bell ? __atomic_load_n(bell, __ATOMIC_ACQUIRE) : 0;
    int flag = 0;
    check(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE), "MPI_Test (loom_spawn's command)");
    if (flag) return;
    timespec ts{0, nap};
    if (bell) syscall(SYS_futex, bell, FUTEX_WAIT, rung, &ts, nullptr, 0);
    else nanosleep(&ts, nullptr);
    nap = std::min(2 * nap, 2000000L);
  }
}

[[noreturn]] void serve_spawns() {
  for (;;) {
    uint64_t msg[4] = {0, 0, 0, 0};
    receive_command(msg);
    if (msg[0] == kCmdExit) {
      MPI_Comm_free(&g.comm);  // (collective: rank 0 frees it in spawn_before_finalize)
      loom_status_t s = loom_finalize();
      std::fflush(nullptr);
      std::exit(s == LOOM_OK ? 0 : 1);
    }
    broadcast_ranges();
    auto fn = reinterpret_cast<void (*)(void*)>(msg[1]);
    g.ordered_lock = (msg[3] & LOOM_SPAWN_ROOT_LAST) != 0;
    loom_status_t s = loom_barrier();
    if (s != LOOM_OK) fatal("loom_spawn: the barrier before the worker failed: %s", loom_last_error());
    proto_forget_writers();
    fn(reinterpret_cast<void*>(msg[2]));
    s = loom_barrier();  // the join
    if (s != LOOM_OK) fatal("loom_join: the barrier after the worker failed: %s", loom_last_error());
  }
}

Status send_all(uint64_t cmd, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t msg[4] = {cmd, a, b, c};
  for (int r = 1; r < rt.nranks; r++)
  {
    int e = MPI_Send(msg, 4, MPI_UINT64_T, r, kTagCommand, g.comm);
    if (e != MPI_SUCCESS) return fail_mpi(e, "MPI_Send (loom_spawn's command)");
    if (uint32_t* bell = bell_of(r)) {
      __atomic_fetch_add(bell, 1u, __ATOMIC_RELEASE);
      syscall(SYS_futex, bell, FUTEX_WAKE, 1, nullptr, nullptr, 0);
    }
  }
  return Status::ok();
}

}  // namespace

Status spawn_check_collective(const char* fn) {
  if (!g.serial || rt.rank != 0 || g.running) return Status::ok();
  return fail(LOOM_ERR_INVALID,
              "%s: a collective call on rank 0 while the other ranks wait for loom_spawn (after loom_start_serial, "
              "main runs on rank 0 alone until loom_spawn: allocate with loom_alloc there, and synchronize after "
              "the spawn)",
              fn);
}

void spawn_before_finalize() {
  if (!g.serial || rt.rank != 0) return;
  if (g.running && loom_join() != LOOM_OK) fatal("loom_finalize: joining the workers failed: %s", loom_last_error());
  Status s = send_all(kCmdExit, 0, 0, 0);
  if (!s.is_ok()) fatal("loom_finalize: telling the waiting ranks to finish failed: %s", loom_last_error());
  MPI_Comm_free(&g.comm);
  g.serial = false;
}

bool spawn_before_lock() {
  if (!__atomic_load_n(&g.ordered_lock, __ATOMIC_RELAXED) || !__atomic_exchange_n(&g.ordered_lock, false, __ATOMIC_ACQ_REL))
    return false;
  const uint64_t pos = rt.rank == 0 ? (uint64_t)rt.nranks - 1 : (uint64_t)rt.rank - 1;
  const int before = rt.rank == 1 ? -1 : (rt.rank + rt.nranks - 1) % rt.nranks;  // whose lock lets this one go
  wait_site("the ordered first locks of a spawn (LOOM_SPAWN_ROOT_LAST)", -1, before);
  spin_until([&] { return rt.tp.load(0, Seg::Meta, turn_off()) >= pos; });
  return true;
}

void spawn_turn_done() { rt.tp.fetch_add(0, Seg::Meta, turn_off(), 1); }

}  // namespace loom

using namespace loom;

extern "C" {

loom_status_t loom_start_serial(int* argc, char*** argv, const loom_config_t* cfg) {
  if (rt.active) return fail(LOOM_ERR_ALREADY_INITIALIZED, "loom_start_serial: Loom is already initialized").code();
  if (argv && *argv && **argv) no_randomization(*argv);
  unsetenv(kReexecVar);  // not for the program's own children
  loom_status_t s = loom_init(argc, argv, cfg);
  if (s != LOOM_OK) return s;
  g = SpawnState{};
  dl_iterate_phdr(collect_ranges, nullptr);
  Status laid = check_layout();  // the same verdict on every rank (an allreduce)
  if (!laid.is_ok()) {
    loom_finalize();
    return laid.code();
  }
  int e = MPI_Comm_dup(MPI_COMM_WORLD, &g.comm);
  if (e != MPI_SUCCESS) return fail_mpi(e, "loom_start_serial: MPI_Comm_dup").code();
  g.serial = true;
  g.pid = getpid();
  static bool armed = false;  // after loom_init's own exit handler: runs before it
  if (!armed) armed = std::atexit(finalize_at_exit) == 0;
  if (rt.rank != 0) serve_spawns();
  return LOOM_OK;
}

int loom_serial(void) { return g.serial && rt.active ? 1 : 0; }

loom_status_t loom_spawn(void (*fn)(void*), void* arg, unsigned flags) {
  if (!rt.active) return fail(LOOM_ERR_NOT_INITIALIZED, "loom_spawn called before loom_start_serial").code();
  if (!fn) return fail(LOOM_ERR_INVALID, "loom_spawn: fn is NULL").code();
  if (flags & ~(unsigned)LOOM_SPAWN_ROOT_LAST) return fail(LOOM_ERR_INVALID, "loom_spawn: unknown flags 0x%x", flags).code();
  if (!g.serial)
    return fail(LOOM_ERR_INVALID, "loom_spawn: Loom was started by loom_init, where every rank runs main; start it "
                                  "with loom_start_serial to spawn workers")
        .code();
  if (rt.rank != 0) return fail(LOOM_ERR_INVALID, "loom_spawn: only rank 0 (which runs main) spawns; a worker cannot").code();
  if (g.running) return fail(LOOM_ERR_BUSY, "loom_spawn: the workers of the last spawn are still running (loom_join first)").code();
  if (flags & LOOM_SPAWN_ROOT_LAST) rt.tp.store(0, Seg::Meta, turn_off(), 0);
  Status s = send_all(kCmdSpawn, reinterpret_cast<uintptr_t>(fn), reinterpret_cast<uintptr_t>(arg), flags);
  if (!s.is_ok()) return s.code();
  broadcast_ranges();
  g.running = true;
  g.ordered_lock = (flags & LOOM_SPAWN_ROOT_LAST) != 0;
  loom_status_t b = loom_barrier();
  if (b == LOOM_OK) proto_forget_writers();  // the serial part's writes are not the workers'
  return b;
}

loom_status_t loom_join(void) {
  if (!rt.active) return fail(LOOM_ERR_NOT_INITIALIZED, "loom_join called before loom_start_serial").code();
  if (!g.serial || rt.rank != 0 || !g.running)
    return fail(LOOM_ERR_INVALID, "loom_join: no spawn to join (rank 0 joins the workers of its loom_spawn)").code();
  loom_status_t s = loom_barrier();
  g.running = false;
  g.ordered_lock = false;
  return s;
}

}  // extern "C"
