/* Runtime settings for programs built with a sanitizer build of Loom
 * (LOOM_SANITIZE=address or thread; docs/ARCHITECTURE.md, "Sanitizer builds
 * and fuzzers").
 *
 * Why a source file compiled into each program and not into the library: the
 * sanitizer runtimes look up these hooks by name when the program starts, and
 * the first definition in the dynamic linker's search order wins -- the
 * program's own, else the runtime's (libasan/libtsan is loaded before
 * libloom), so a definition inside libloom.so would never be seen.  CMake adds
 * this file to every target that links Loom in a sanitizer build (in the tree
 * and through the installed package); a program built another way compiles
 * it in itself.  Settings in ASAN_OPTIONS, UBSAN_OPTIONS, TSAN_OPTIONS and
 * LSAN_OPTIONS are applied after these and win.
 *
 * What Loom needs: its SIGSEGV handler turns accesses to protected pages of
 * global memory into page fetches, so the sanitizer must let the program
 * install that handler, and every report must end the process with a nonzero
 * status so that a test fails. */
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
/* allow_user_segv_handler=1: ASan installs its own SIGSEGV handler first and
 *   lets Loom's replace it; Loom keeps ASan's as the previous handler and
 *   chains a fault outside Loom memory to it, so a genuine segmentation fault
 *   still gets ASan's report (handle_segv=1, the default: handle_segv=2 would
 *   refuse Loom's handler and break every page fetch).
 * halt_on_error=1: stop at the first report, exit status 1 (ASan's default,
 *   stated because a test relies on it). */
const char* __asan_default_options(void) { return "allow_user_segv_handler=1:handle_segv=1:halt_on_error=1"; }
/* UBSan: the build uses -fno-sanitize-recover=all, so the first report ends
 * the process; print where it happened. */
const char* __ubsan_default_options(void) { return "halt_on_error=1:print_stacktrace=1"; }
#endif

#if defined(__SANITIZE_THREAD__)
/* exitcode=66 (TSan's default, stated because a test relies on it): a
 * program that reported a race exits with 66 at its end. */
const char* __tsan_default_options(void) { return "exitcode=66"; }

/* Each suppression with the reason it is not a defect of Loom:
 *
 * signal:on_segv -- TSan reports any malloc, free or lock taken inside a
 *   signal handler as "signal-unsafe".  Loom's SIGSEGV handler (on_segv,
 *   src/vm.cpp) runs the page fetch, which allocates and calls MPI.  That is
 *   safe here because the signal is synchronous: it is raised by the thread's
 *   own load or store to Loom memory, never in the middle of malloc or of
 *   MPI (neither touches Loom memory), so the interrupted code holds none of
 *   the locks the handler takes.  Only reports under on_segv are suppressed;
 *   other signal handlers of the program are still checked.
 *
 * race:libmpi.so -- MPICH is not instrumented.  TSan sees only the memcpy of
 *   its intercepted calls on our buffers (for instance this rank's progress
 *   thread copying a home page out for a peer's MPI_Get) and none of the
 *   atomics and fences its progress engine synchronizes with, so it cannot
 *   judge a race with a frame inside MPI.  The race it then reports on a
 *   page's bytes is Loom's design: a fetch copies a page that other writers
 *   may be changing elsewhere in it, and byte-exact diffs keep the stale
 *   bytes of that copy from ever being written back.  Races between Loom's
 *   own threads on Loom's own state stay reported, but for:
 *
 * race:find_block -- the heap table's seqlock (src/heap.cpp): the fault
 *   handler copies table entries without the lock while the protocol thread
 *   may be applying another rank's change to them, and keeps the copy only
 *   if the version word (an atomic, odd while a change is made) is the same
 *   before and after; a torn copy is thrown away.  TSan sees the two copies
 *   of the entries' bytes, not the version protocol around them.
 *
 * race:share_map -- with pages shared from their homes (LOOM_HOST_SHARE), a
 *   fault maps the home's page over the faulting address (src/protocol/
 *   core.cpp, share_map), and TSan's mmap interceptor records that as a write
 *   of the whole page by the faulting thread.  A sibling thread that reads
 *   the page just after takes no fault (it is mapped now) and so makes no
 *   call TSan could see, and the read is reported against that "write".  The
 *   mapping changes no byte: the page shows the home's memory, whose own
 *   writes and reads TSan still judges.  (tests/mr_share.c at 2 ranks x 2
 *   threads reported it.) */
const char* __tsan_default_suppressions(void) {
  return "signal:on_segv\nrace:libmpi.so\nrace:find_block\nrace:share_map\n";
}

/* Not settable from here: UCX (MPICH's network layer in the project's MPICH)
 * hooks madvise and mmap to track memory; glibc calls madvise on a finishing
 * thread's stack after TSan has torn the thread's state down, and the hook's
 * lock then crashes TSan (SIGSEGV at the first thread exit).  UCX reads
 * UCX_MEM_EVENTS when its libraries load, before any code of the program
 * runs, so a program under TSan needs UCX_MEM_EVENTS=no in its environment
 * (the tests set it; tests/CMakeLists.txt). */

/* TSan ends the process ("mmap at bad address") when a mapping would land
 * outside its application ranges.  Loom's first choice of address for the
 * global range is the kernel's, which is inside them; its fallbacks
 * (0x100000000000 + k * 0x80000000000, tried when that address is not free
 * on every rank) are all outside, so a rank would die instead of trying the
 * next.  Loom reads LOOM_BASE in loom_init, after this runs: unless the user
 * set it, pin the global range at 256 GiB, in the low application range
 * (free in a TSan process: its heap and the libraries are far above), for
 * global memory up to 256 GiB. */
__attribute__((constructor)) static void loom_tsan_base(void) { setenv("LOOM_BASE", "0x4000000000", 0); }
#endif
