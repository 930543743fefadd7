/* mr_syscall: Loom memory handed to the kernel and to MPI after an
 * explicit loom_prepare (mr_intercept covers the calls Loom prepares by
 * itself).
 *
 * A system call does not take Loom's fault path, so the read and write
 * system calls made directly (syscall(2): what a call Loom does not
 * intercept does) into and from a protected Loom page fail with EFAULT and
 * leave it untouched.  After loom_prepare(ptr, len, LOOM_WRITE) a read(2) from a pipe
 * or a pread(2) from a file fills Loom memory, and after a barrier every rank
 * sees those bytes; after loom_prepare(..., LOOM_READ) write(2) carries the
 * right bytes out.  MPI_Send from prepared-READ and MPI_Recv into
 * prepared-WRITE Loom memory move the data, and a barrier publishes what was
 * received.  loom_prepare rejects a bad access flag, foreign pointers and
 * ranges no allocation covers.
 *
 * Every range starts mid-page and spans a page boundary.
 *
 * mr_syscall T runs T threads per rank: the workers are ranks x threads
 * (worker rank*T + t, tests/mr.h), each with its own range, all making
 * their system calls and preparations at once; a worker expects EFAULT from
 * a range only where no thread of its rank has touched the range's pages.
 * The MPI step is thread 0's of ranks 0 and 1. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe, pread, mkstemp with -std=c11 */
#endif
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mr.h"

#define PAGE 4096
#define OFF 1000        /* offset of a range in its block */
#define LEN 6000        /* bytes of a range: crosses one page boundary */
#define BLOCK (3 * PAGE)

static unsigned char pattern(int writer, size_t i) { return (unsigned char)(writer * 31 + i * 7 + 1); }

static void fill(unsigned char *buf, int writer, size_t len) {
  for (size_t i = 0; i < len; i++) buf[i] = pattern(writer, i);
}

/* Number of bytes of buf that differ from writer's pattern. */
static size_t mismatches(const unsigned char *buf, int writer, size_t len) {
  size_t bad = 0;
  for (size_t i = 0; i < len; i++) bad += buf[i] != pattern(writer, i);
  return bad;
}


/* Read exactly len bytes; returns the byte count read or -1 (errno set) if
 * the first read fails. */
static ssize_t read_all(int fd, unsigned char *buf, size_t len) {
  size_t got = 0;
  while (got < len) {
    ssize_t r = read(fd, buf + got, len - got);
    if (r < 0) return got ? (ssize_t)got : -1;
    if (r == 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

static unsigned char **g_blk; /* worker v's block: its range is g_blk[v] + OFF */

static void worker(int w, int W) {
  const int rank = loom_rank(), n = loom_nranks(), T = W / n;
  unsigned char local[LEN];

  /* One block per worker, homed at the next rank (another rank when n > 1):
   * each range has exactly one writer, and its pages are its own. */
  if (w % T == 0) {
    g_blk = calloc((size_t)W, sizeof *g_blk);
    for (int v = 0; v < W; v++) CHECK_OK(loom_alloc_collective_at(BLOCK, (v / T + 1) % n, (void **)&g_blk[v]));
  }
  mr_wbar();
  unsigned char **blk = g_blk;
  for (int v = 0; v < W; v++)
    if (!blk[v]) return;
  unsigned char *mine = blk[w] + OFF;
  int home = -1;
  CHECK_OK(loom_home_of(mine, &home));
  CHECK(home == (rank + 1) % n);

  /* 1. The read system call into an untouched (protected) page fails with
   * EFAULT (read(3) itself is intercepted: it would prepare the page). */
  int fds[2];
  CHECK(pipe(fds) == 0);
  fill(local, w, LEN);
  CHECK(mr_write_all(fds[1], local, LEN) == 0);
  errno = 0;
  ssize_t r = syscall(SYS_read, fds[0], mine, LEN);
  /* (Where ranks share pages from their homes, a sibling thread's fault maps
   * its window read-write, and this range may lie in it: then the read is
   * allowed, and must have landed.) */
  const char* share = getenv("LOOM_HOST_SHARE");
  const int shared = T > 1 && !(share && !strcmp(share, "0")) && loom_direct_peers() == n - 1;
  if (!shared || r == -1) {
    CHECK(r == -1);
    CHECK(errno == EFAULT);
  } else {
    CHECK(r == (ssize_t)LEN && memcmp(mine, local, LEN) == 0);
  }
  close(fds[0]);
  close(fds[1]);

  /* 2. After loom_prepare(WRITE) the same read succeeds: half the range from
   * a pipe, the rest from a file with pread. */
  const size_t half = LEN / 2;
  CHECK_OK(loom_prepare(mine, LEN, LOOM_WRITE));
  CHECK(pipe(fds) == 0);
  CHECK(mr_write_all(fds[1], local, half) == 0);
  errno = 0;
  r = read_all(fds[0], mine, half);
  CHECK(r == (ssize_t)half);
  if (r < 0) fprintf(stderr, "worker %d: read after loom_prepare: %s\n", w, strerror(errno));
  close(fds[0]);
  close(fds[1]);

  char path[] = "/tmp/loom_mr_syscall_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0) {
    unlink(path);
    CHECK(mr_write_all(fd, local, LEN) == 0);
    CHECK(pread(fd, mine + half, LEN - half, (off_t)half) == (ssize_t)(LEN - half));
    close(fd);
  }
  CHECK(mismatches(mine, w, LEN) == 0);   /* this worker sees its own bytes */
  CHECK(mine[-1] == 0 && mine[LEN] == 0); /* and nothing around them */

  /* 3. The barrier publishes what the kernel wrote. */
  mr_wbar();

  /* 4. The write system call from the next worker's range fails with
   * EFAULT where no thread of this rank touched it (the next worker is on
   * another rank); after loom_prepare(READ) it carries the bytes that
   * worker read in. */
  const int src = (w + 1) % W;
  unsigned char *theirs = blk[src] + OFF;
  CHECK(pipe(fds) == 0);
  if (src / T != rank) {
    errno = 0;
    r = syscall(SYS_write, fds[1], theirs, LEN);
    CHECK(r == -1);
    CHECK(errno == EFAULT);
  }
  mr_wbar(); /* no sibling reads every range (below) before this check */
  CHECK_OK(loom_prepare(theirs, LEN, LOOM_READ));
  r = write(fds[1], theirs, LEN);
  CHECK(r == LEN);
  memset(local, 0, LEN);
  CHECK(read_all(fds[0], local, LEN) == LEN);
  CHECK(mismatches(local, src, LEN) == 0);
  close(fds[0]);
  close(fds[1]);

  /* Every worker sees every worker's bytes with ordinary loads. */
  for (int v = 0; v < W; v++) {
    unsigned char *range = blk[v] + OFF;
    CHECK(mismatches(range, v, LEN) == 0);
    CHECK(range[-1] == 0 && range[LEN] == 0);
  }

  /* 5. Bad arguments. */
  CHECK_ERR(loom_prepare(mine, LEN, 0), LOOM_ERR_INVALID);
  CHECK_ERR(loom_prepare(mine, LEN, 4), LOOM_ERR_INVALID);
  CHECK_ERR(loom_prepare(mine, LEN, -1), LOOM_ERR_INVALID);
  CHECK_ERR(loom_prepare(local, LEN, LOOM_READ), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_prepare(NULL, LEN, LOOM_WRITE), LOOM_ERR_BAD_POINTER);
  CHECK_OK(loom_prepare(mine, LEN, LOOM_READ | LOOM_WRITE));

  /* 6. MPI with Loom buffers (thread 0 of ranks 0 and 1): rank 1 fills a
   * range (block homed at rank 1), rank 0 sends it from prepared-READ
   * memory, rank 1 receives it into prepared-WRITE memory of a block homed
   * at rank 0, and after a barrier every worker sees what rank 1 received. */
  const size_t mlen = 2 * PAGE + 123;
  unsigned char *sendb = mr_walloc(BLOCK, 1 % n), *recvb = mr_walloc(BLOCK, 0);
  if (!sendb || !recvb) return;
  const int t = w % T;
  if (rank == 1 % n && t == 0) fill(sendb + OFF, 42, mlen);
  mr_wbar();
  if (n > 1 && rank == 0 && t == 0) {
    CHECK_OK(loom_prepare(sendb + OFF, mlen, LOOM_READ));
    CHECK(MPI_Send(sendb + OFF, (int)mlen, MPI_BYTE, 1, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
  } else if (n > 1 && rank == 1 && t == 0) {
    MPI_Status st;
    int count = -1;
    CHECK_OK(loom_prepare(recvb + OFF, mlen, LOOM_WRITE));
    CHECK(MPI_Recv(recvb + OFF, (int)mlen, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == (int)mlen);
  }
  mr_wbar();
  if (n > 1) {
    CHECK(mismatches(recvb + OFF, 42, mlen) == 0);
    CHECK(recvb[OFF - 1] == 0 && recvb[OFF + mlen] == 0);
  }

  /* 7. A freed collective block is not Loom-allocated any more. */
  mr_wfree(sendb);
  mr_wbar();
  CHECK_ERR(loom_prepare(sendb + OFF, 16, LOOM_READ), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_prepare(sendb, 16, LOOM_WRITE), LOOM_ERR_BAD_POINTER);
  mr_wbar();
  if (t == 0) free(g_blk);
}

int main(int argc, char **argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), worker);
  return mr_finish("mr_syscall");
}
