// Interception, I/O half: Loom memory handed to the common I/O calls is
// prepared first (intercept.cpp says why for MPI).
//
// The kernel does not take Loom's fault path: read(2) into a protected page
// fails with EFAULT and write(2) from one too.  stdio copies through its
// own buffer for small requests (a fault there is an ordinary one) but
// reads and writes large ones straight from the caller's memory with the
// system call, which libc makes internally where no wrapper sees it; so
// fread and fwrite are wrapped too.  A buffer in Loom memory is made
// writable (the call stores into it) or readable (the call reads it), on
// the calling thread, as loom_prepare does; the call then runs on valid
// pages.  Outside Loom memory a wrapper costs one range check and an
// indirect call.
//
// The next definition (libc's) is found with dlsym(RTLD_NEXT) at load time
// (a constructor), or at the first call if something calls in before that;
// while dlsym itself runs, and if it finds nothing, the system call is made
// directly (fread and fwrite, which have none, fail with ENOSYS then: dlsym
// does not use stdio).  Before loom_init and after loom_finalize no memory
// is Loom's and every call goes straight through.
//
// Not wrapped (loom_prepare still needed): recvmsg/sendmsg, preadv/pwritev,
// aio, io_uring, mmap'd files, the fortified __read_chk and friends (used
// only when the compiler knows the buffer's size, never for a Loom
// pointer), and stdio's other entry points (fgets, fscanf, ...), which copy
// through stdio's buffer, so their faults are ordinary ones.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#undef _FORTIFY_SOURCE  // its inline read(), fread() would clash with the definitions here
#include <dlfcn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>

#include "intercept.hpp"
#include "runtime.hpp"

namespace loom {
namespace {

// Make [buf, buf+len) valid for `access` where it is Loom memory.  A range
// not wholly in live blocks is logged (naming `fn`) and left to the call,
// which then fails as it would have (EFAULT) or faults on the unallocated
// page.  (Not inlined, the address taken as a number: glibc declares
// read's buffer write-only, and GCC takes the range check for a read of it.)
__attribute__((noinline)) void io_prep(uintptr_t buf, size_t len, int access, const char* fn) {
  // Inside a wrapped MPI call the library's own I/O (libfabric's recv into
  // a receive buffer) works on buffers the MPI wrapper prepared when the
  // operation was posted; preparing again would take the rank lock inside
  // MPI, which a sibling thread holding it may be waiting to enter.
  if (intercept_mpi_call()) return;
  uintptr_t lo = buf, hi = buf + len;
  if (len == 0 || hi < lo || !intercept_clip(&lo, &hi)) return;
  Status s = prepare_range((const void*)lo, hi - lo, access, fn);
  (void)s;  // logged where detected
}

void io_prep_iov(const struct iovec* iov, int n, int access, const char* fn) {
  for (int i = 0; i < n; i++) io_prep((uintptr_t)iov[i].iov_base, iov[i].iov_len, access, fn);
}

// dlsym may itself do I/O.  (initial-exec: no call into the dynamic linker
// to reach it, even in a signal handler.)
thread_local bool t_resolving __attribute__((tls_model("initial-exec"))) = false;

template <class F>
F next(std::atomic<F>& slot, const char* name) {
  F f = slot.load(std::memory_order_relaxed);
  if (f || t_resolving) return f;
  t_resolving = true;
  f = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
  t_resolving = false;
  slot.store(f, std::memory_order_relaxed);
  return f;
}

using ReadFn = ssize_t (*)(int, void*, size_t);
using WriteFn = ssize_t (*)(int, const void*, size_t);
using PreadFn = ssize_t (*)(int, void*, size_t, off_t);
using PwriteFn = ssize_t (*)(int, const void*, size_t, off_t);
using VecFn = ssize_t (*)(int, const struct iovec*, int);
using RecvFn = ssize_t (*)(int, void*, size_t, int);
using SendFn = ssize_t (*)(int, const void*, size_t, int);
using RecvfromFn = ssize_t (*)(int, void*, size_t, int, struct sockaddr*, socklen_t*);
using SendtoFn = ssize_t (*)(int, const void*, size_t, int, const struct sockaddr*, socklen_t);
using FreadFn = size_t (*)(void*, size_t, size_t, FILE*);
using FwriteFn = size_t (*)(const void*, size_t, size_t, FILE*);

std::atomic<ReadFn> g_read{nullptr};
std::atomic<WriteFn> g_write{nullptr};
std::atomic<PreadFn> g_pread{nullptr}, g_pread64{nullptr};
std::atomic<PwriteFn> g_pwrite{nullptr}, g_pwrite64{nullptr};
std::atomic<VecFn> g_readv{nullptr}, g_writev{nullptr};
std::atomic<RecvFn> g_recv{nullptr};
std::atomic<SendFn> g_send{nullptr};
std::atomic<RecvfromFn> g_recvfrom{nullptr};
std::atomic<SendtoFn> g_sendto{nullptr};
std::atomic<FreadFn> g_fread{nullptr};
std::atomic<FwriteFn> g_fwrite{nullptr};

__attribute__((constructor)) void resolve_all() {
  next(g_read, "read");
  next(g_write, "write");
  next(g_pread, "pread");
  next(g_pread64, "pread64");
  next(g_pwrite, "pwrite");
  next(g_pwrite64, "pwrite64");
  next(g_readv, "readv");
  next(g_writev, "writev");
  next(g_recv, "recv");
  next(g_send, "send");
  next(g_recvfrom, "recvfrom");
  next(g_sendto, "sendto");
  next(g_fread, "fread");
  next(g_fwrite, "fwrite");
}

}  // namespace
}  // namespace loom

using namespace loom;

extern "C" {

LOOM_API ssize_t read(int fd, void* buf, size_t n) {
  io_prep((uintptr_t)buf, n, LOOM_WRITE, "read");
  if (ReadFn f = next(g_read, "read")) return f(fd, buf, n);
  return syscall(SYS_read, fd, buf, n);
}
LOOM_API ssize_t write(int fd, const void* buf, size_t n) {
  io_prep((uintptr_t)buf, n, LOOM_READ, "write");
  if (WriteFn f = next(g_write, "write")) return f(fd, buf, n);
  return syscall(SYS_write, fd, buf, n);
}
LOOM_API ssize_t pread(int fd, void* buf, size_t n, off_t off) {
  io_prep((uintptr_t)buf, n, LOOM_WRITE, "pread");
  if (PreadFn f = next(g_pread, "pread")) return f(fd, buf, n, off);
  return syscall(SYS_pread64, fd, buf, n, off);
}
LOOM_API ssize_t pread64(int fd, void* buf, size_t n, off_t off) {
  io_prep((uintptr_t)buf, n, LOOM_WRITE, "pread64");
  if (PreadFn f = next(g_pread64, "pread64")) return f(fd, buf, n, off);
  return syscall(SYS_pread64, fd, buf, n, off);
}
LOOM_API ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
  io_prep((uintptr_t)buf, n, LOOM_READ, "pwrite");
  if (PwriteFn f = next(g_pwrite, "pwrite")) return f(fd, buf, n, off);
  return syscall(SYS_pwrite64, fd, buf, n, off);
}
LOOM_API ssize_t pwrite64(int fd, const void* buf, size_t n, off_t off) {
  io_prep((uintptr_t)buf, n, LOOM_READ, "pwrite64");
  if (PwriteFn f = next(g_pwrite64, "pwrite64")) return f(fd, buf, n, off);
  return syscall(SYS_pwrite64, fd, buf, n, off);
}
LOOM_API ssize_t readv(int fd, const struct iovec* iov, int n) {
  io_prep_iov(iov, n, LOOM_WRITE, "readv");
  if (VecFn f = next(g_readv, "readv")) return f(fd, iov, n);
  return syscall(SYS_readv, fd, iov, n);
}
LOOM_API ssize_t writev(int fd, const struct iovec* iov, int n) {
  io_prep_iov(iov, n, LOOM_READ, "writev");
  if (VecFn f = next(g_writev, "writev")) return f(fd, iov, n);
  return syscall(SYS_writev, fd, iov, n);
}
LOOM_API ssize_t recv(int fd, void* buf, size_t n, int flags) {
  io_prep((uintptr_t)buf, n, LOOM_WRITE, "recv");
  if (RecvFn f = next(g_recv, "recv")) return f(fd, buf, n, flags);
  return syscall(SYS_recvfrom, fd, buf, n, flags, nullptr, nullptr);
}
LOOM_API ssize_t send(int fd, const void* buf, size_t n, int flags) {
  io_prep((uintptr_t)buf, n, LOOM_READ, "send");
  if (SendFn f = next(g_send, "send")) return f(fd, buf, n, flags);
  return syscall(SYS_sendto, fd, buf, n, flags, nullptr, 0);
}
LOOM_API ssize_t recvfrom(int fd, void* buf, size_t n, int flags, struct sockaddr* from, socklen_t* fromlen) {
  io_prep((uintptr_t)buf, n, LOOM_WRITE, "recvfrom");
  if (RecvfromFn f = next(g_recvfrom, "recvfrom")) return f(fd, buf, n, flags, from, fromlen);
  return syscall(SYS_recvfrom, fd, buf, n, flags, from, fromlen);
}
LOOM_API ssize_t sendto(int fd, const void* buf, size_t n, int flags, const struct sockaddr* to, socklen_t tolen) {
  io_prep((uintptr_t)buf, n, LOOM_READ, "sendto");
  if (SendtoFn f = next(g_sendto, "sendto")) return f(fd, buf, n, flags, to, tolen);
  return syscall(SYS_sendto, fd, buf, n, flags, to, tolen);
}

LOOM_API size_t fread(void* buf, size_t size, size_t n, FILE* fp) {
  if (size && n <= (size_t)-1 / size) io_prep((uintptr_t)buf, size * n, LOOM_WRITE, "fread");
  if (FreadFn f = next(g_fread, "fread")) return f(buf, size, n, fp);
  errno = ENOSYS;
  return 0;
}
LOOM_API size_t fwrite(const void* buf, size_t size, size_t n, FILE* fp) {
  if (size && n <= (size_t)-1 / size) io_prep((uintptr_t)buf, size * n, LOOM_READ, "fwrite");
  if (FwriteFn f = next(g_fwrite, "fwrite")) return f(buf, size, n, fp);
  errno = ENOSYS;
  return 0;
}

}  // extern "C"
