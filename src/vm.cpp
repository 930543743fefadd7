// The virtual-memory layer: one range at the same address on every rank,
// page protections, and the SIGSEGV handler that turns an access to a
// protected page into a protocol action.
//
// Why one MAP_SHARED mapping of the rank's own memfd: the home copy of a page
// a rank homes and the cached copy of a page it does not are both at the
// page's offset in that file, so the rank reads and writes its home pages in
// place (no copy, no twin, no fault in steady state), a fetch lands in the
// cache slot through the always-writable self view, and peers on the host
// reach the home copies through their own mapping of the same file.
//
// Faults outside Loom memory, or on pages no allocation covers, go to the
// handler installed before Loom: the program still crashes with SIGSEGV, dumps
// core, and the debugger sees the real fault.
#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "vm.hpp"

#include "runtime.hpp"
#include "threads.hpp"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

namespace loom {
namespace {

struct sigaction g_prev;
// The handler before Loom's is an MPI library's crash reporter (Open MPI's
// opal, UCX): it prints its own banner (host and pid) and ends the process,
// so Loom's line naming the rank goes out before it.  Any other handler is
// the program's, which may recover from the fault: Loom says nothing there.
bool g_prev_reports = false;
bool g_installed = false;
size_t (*g_describe)(uint64_t off, char* buf, size_t len) = nullptr;
// Initial-exec TLS: read from the signal handler without a call into the
// dynamic loader.  The page this thread last found Allowed, and how many
// times in a row.
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_allowed_page = ~0ull;
__attribute__((tls_model("initial-exec"))) thread_local int t_allowed_times = 0;
constexpr int kMaxAllowed = 1000;

// A range held since the library was loaded (vm_hold_early), which
// try_map_at replaces in place.
uint8_t* g_held = nullptr;
uint64_t g_held_size = 0;

void drop_hold() {
  if (g_held) munmap(g_held, g_held_size);
  g_held = nullptr;
  g_held_size = 0;
}

// A PROT_NONE mapping of exactly [want, want + size) if that range is free
// (flags: the sharing, MAP_NORESERVE and the rest; fd -1 for anonymous).
bool map_free_range(void* want, uint64_t size, int flags, int fd) {
  void* p = mmap(want, size, PROT_NONE, flags | MAP_NORESERVE | MAP_FIXED_NOREPLACE, fd, 0);
  if (p == MAP_FAILED) return false;
  if (p != want) {  // old kernel: the flag was only a hint
    munmap(p, size);
    return false;
  }
  return true;
}

bool try_map_at(uint64_t addr, uint64_t size) {
  void* want = reinterpret_cast<void*>(addr);
  if (g_held && addr == (uint64_t)(uintptr_t)g_held && size == g_held_size) {
    // Ours since before MPI_Init: map the memfd over it (MAP_FIXED replaces
    // the reservation in one step; nothing else can take the range between).
    void* p = mmap(want, size, PROT_NONE, MAP_SHARED | MAP_NORESERVE | MAP_FIXED, rt.tp.data_fd(), 0);
    g_held = nullptr;
    g_held_size = 0;
    return p == want;
  }
  return map_free_range(want, size, MAP_SHARED, rt.tp.data_fd());
}

// Ask the kernel for a free range on this rank (used by rank 0 to propose).
uint64_t propose(uint64_t size, int attempt) {
  // First the kernel's own choice, then fixed high addresses far from the
  // usual heap, stack and library areas.
  if (attempt == 0) {
    void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return 0;
    munmap(p, size);
    return reinterpret_cast<uint64_t>(p);
  }
  return 0x100000000000ull + (uint64_t)attempt * 0x80000000000ull;
}

// What this process has mapped in [addr, addr + size): the first mapping's
// name from /proc/self/maps (a library's path, [stack], [heap], or
// "anonymous memory" for a thread's stack, a malloc arena or an MPI segment).
void describe_occupant(uint64_t addr, uint64_t size, char* out, size_t len) {
  std::snprintf(out, len, "something");
  FILE* f = std::fopen("/proc/self/maps", "r");
  if (!f) return;
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    unsigned long long lo = 0, hi = 0;
    int name_at = 0;
    if (std::sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi, &name_at) < 2) continue;
    if (hi <= addr || lo >= addr + size) continue;
    char* name = line + name_at;
    name[std::strcspn(name, "\n")] = 0;
    std::snprintf(out, len, "%s at 0x%llx-0x%llx", name[0] ? name : "anonymous memory", lo, hi);
    break;
  }
  std::fclose(f);
}

long max_map_count() {
  long v = -1;
  if (FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
    if (std::fscanf(f, "%ld", &v) != 1) v = -1;
    std::fclose(f);
  }
  return v;
}

int fault_is_write(void* uctx) {
#if defined(__x86_64__)
  auto* uc = static_cast<ucontext_t*>(uctx);
  return (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;
#else
  (void)uctx;
  return -1;
#endif
}

void say_segv(siginfo_t* info, void* uctx);

void chain(int sig, siginfo_t* info, void* uctx) {
  if (g_prev_reports) say_segv(info, uctx);
  if (g_prev.sa_flags & SA_SIGINFO) {
    if (g_prev.sa_sigaction) {
      g_prev.sa_sigaction(sig, info, uctx);
      return;
    }
  } else if (g_prev.sa_handler != SIG_DFL && g_prev.sa_handler != SIG_IGN) {
    g_prev.sa_handler(sig);
    return;
  }
  // Default action: say which rank, address and access; restore the
  // default and return: the access faults again and the kernel delivers the
  // real SIGSEGV (core dump, debugger).
  say_segv(info, uctx);
  signal(sig, SIG_DFL);
}

// Which rank, address and access, and for an address in Loom memory the
// blocks nearest to it (a launcher's banner names only a pid and a host).
void say_segv(siginfo_t* info, void* uctx) {
  char host[64] = "?", msg[768], near[400] = "";
  gethostname(host, sizeof host - 1);
  uint8_t* a = static_cast<uint8_t*>(info->si_addr);
  const bool inside = rt.active && a >= rt.base && a < rt.base + rt.size;
  if (inside && g_describe) g_describe((uint64_t)(a - rt.base), near, sizeof near);
  const int w = fault_is_write(uctx);
  int n = std::snprintf(msg, sizeof msg, "loom: rank %d (pid %d on %s): segmentation fault: %s at %p, %s%s%s\n", rt.rank,
                        (int)getpid(), host, w < 0 ? "access" : w ? "write" : "read", info->si_addr,
                        inside ? "in Loom memory that no allocation covers" : "outside Loom memory",
                        near[0] ? ": " : "", near);
  if (n > 0) (void)!write(2, msg, (size_t)std::min(n, (int)sizeof msg - 1));
}

// Whether a handler's code lies in a library of the MPI stack, whose
// SIGSEGV handlers report crashes (g_prev_reports).
bool handler_reports(const struct sigaction& h) {
  void* fn = (h.sa_flags & SA_SIGINFO) ? (void*)h.sa_sigaction : (void*)h.sa_handler;
  if (fn == nullptr || fn == (void*)SIG_DFL || fn == (void*)SIG_IGN) return false;
  Dl_info d;
  if (!dladdr(fn, &d) || !d.dli_fname) return false;
  const char* base = std::strrchr(d.dli_fname, '/');
  base = base ? base + 1 : d.dli_fname;
  for (const char* lib : {"libopen-pal", "libmpi", "libucs", "libpmix", "libprrte"})
    if (!std::strncmp(base, lib, std::strlen(lib))) return true;
  return false;
}

// The protocol's fault entry and the heap's describer, given at install (vm
// sits below both).
Fault (*g_on_fault)(uint64_t page, int is_write) = nullptr;

void on_segv(int sig, siginfo_t* info, void* uctx) {
  int saved = errno;
  uint8_t* a = static_cast<uint8_t*>(info->si_addr);
  if (rt.active && a >= rt.base && a < rt.base + rt.size) {
    const uint64_t page = (uint64_t)(a - rt.base) / kPage;
    // Loom's own threads must not wait for the rank lock (threads.hpp): a
    // fault there is a page an operation's buffer lost while in flight.
    if (thread_is_internal())
      fatal("Loom's protocol or progress thread touched Loom memory at %p (a %s) that is not valid on this rank: "
            "an MPI operation on Loom memory still in flight while the rank synchronized, or called on a buffer "
            "from a thread that did not prepare it",
            info->si_addr, fault_is_write(uctx) == 1 ? "write" : fault_is_write(uctx) == 0 ? "read" : "access");
    Fault f;
    {
      QuietHold hold;
      f = g_on_fault(page, fault_is_write(uctx));
    }
    if (f == Fault::Allowed) {
      t_allowed_times = t_allowed_page == page ? t_allowed_times + 1 : 1;
      t_allowed_page = page;
    }
    if (f == Fault::Handled || (f == Fault::Allowed && t_allowed_times < kMaxAllowed)) {
      if (f == Fault::Handled) t_allowed_page = ~0ull;
      errno = saved;
      return;
    }
    t_allowed_page = ~0ull;
  }
  chain(sig, info, uctx);
  errno = saved;
}

}  // namespace


Status vm_reserve(MPI_Comm comm) {
  const uint64_t size = rt.size;
  if (rt.cfg.base_address) {
    // A fixed address (LOOM_BASE, or a restart's checkpoint): each rank that
    // cannot map it says what holds it.
    const uint64_t addr = rt.cfg.base_address;
    const bool ok = try_map_at(addr, size);
    drop_hold();
    Status mine = Status::ok();
    if (!ok) {
      char what[320];
      describe_occupant(addr, size, what, sizeof what);
      DeferErrors once;  // printed by agree_errors
      mine = rt.cfg.restart_dir[0]
                 ? fail(LOOM_ERR_ADDRESS,
                        "LOOM_RESTART=%s: the checkpoint's memory (%llu bytes at 0x%llx) is not free on rank %d: "
                        "%s holds part of it; a process's layout is random, so running the restart again may "
                        "succeed",
                        rt.cfg.restart_dir, (unsigned long long)size, (unsigned long long)addr, rt.rank, what)
                 : fail(LOOM_ERR_ADDRESS,
                        "LOOM_BASE=0x%llx: %llu bytes at that address are not free on rank %d (%s holds part of "
                        "it); choose another address or unset LOOM_BASE",
                        (unsigned long long)addr, (unsigned long long)size, rt.rank, what);
    }
    Status all = agree_errors(mine, "loom_init: the global range", rt.nranks, rt.rank, &comm);
    if (!all.is_ok() && ok) munmap(reinterpret_cast<void*>(addr), size);
    if (all.is_ok()) rt.base = reinterpret_cast<uint8_t*>(addr);
    return all;
  }
  drop_hold();  // (a restart's, where the restart failed before this and init was tried again without it)
  for (int attempt = 0; attempt < 12; attempt++) {
    uint64_t addr = 0;
    if (rt.rank == 0) addr = propose(size, attempt);
    MPI_Bcast(&addr, 1, MPI_UINT64_T, 0, comm);
    int ok = addr && try_map_at(addr, size) ? 1 : 0, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (all_ok) {
      rt.base = reinterpret_cast<uint8_t*>(addr);
      return Status::ok();
    }
    if (ok) munmap(reinterpret_cast<void*>(addr), size);
  }
  return fail_all(LOOM_ERR_ADDRESS,
              "no virtual range of %llu bytes is free at one address on every rank; set LOOM_MEM_SIZE "
              "smaller or LOOM_BASE to an address free in every process (e.g. 0x300000000000)",
              (unsigned long long)size);
}

void vm_hold_early(uint64_t addr, uint64_t size) {
  if (g_held || !addr || !size || addr % kPage || size % kPage) return;
  void* want = reinterpret_cast<void*>(addr);
  if (!map_free_range(want, size, MAP_PRIVATE | MAP_ANONYMOUS, -1)) return;  // vm_reserve will say what holds it
  g_held = static_cast<uint8_t*>(want);
  g_held_size = size;
}

void vm_release() {
  if (rt.base) munmap(rt.base, rt.size);
  rt.base = nullptr;
}

Status vm_install_handler(Fault (*on_fault)(uint64_t page, int is_write),
                          size_t (*describe)(uint64_t off, char* buf, size_t len)) {
  g_on_fault = on_fault;
  g_describe = describe;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, &g_prev) != 0) return fail_errno(LOOM_ERR_SYSTEM, "sigaction(SIGSEGV)");
  g_prev_reports = handler_reports(g_prev);
  g_installed = true;
  return Status::ok();
}

void vm_remove_handler() {
  if (g_installed) sigaction(SIGSEGV, &g_prev, nullptr);
  g_installed = false;
}

void vm_protect(uint64_t first_page, uint64_t n, PageState s) {
  if (n == 0) return;
  int prot = s == kNone ? PROT_NONE : s == kRO ? PROT_READ : PROT_READ | PROT_WRITE;
  if (mprotect(rt.base + first_page * kPage, n * kPage, prot) != 0) {
    const int e = errno;
    if (e == ENOMEM)  // the kernel's limit on mappings: each run of pages with one protection is one
      fatal("mprotect of %llu pages at page %llu failed: %s: this process has reached the kernel's limit on "
            "mappings (vm.max_map_count, %ld here); Loom may need one per page of global memory in use "
            "(LOOM_MEM_SIZE / 4096 = %llu): raise it, e.g. sysctl -w vm.max_map_count=%llu",
            (unsigned long long)n, (unsigned long long)first_page, std::strerror(e), max_map_count(),
            (unsigned long long)rt.npages, (unsigned long long)(rt.npages + 65536));
    fatal("mprotect of %llu pages at page %llu failed: %s", (unsigned long long)n, (unsigned long long)first_page,
          std::strerror(e));
  }
}

}  // namespace loom
