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
 * Every range starts mid-page and spans a page boundary. */
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

/* Write all of buf to fd (a pipe or file). */
static int write_all(int fd, const unsigned char *buf, size_t len) {
  while (len) {
    ssize_t w = write(fd, buf, len);
    if (w <= 0) return -1;
    buf += w;
    len -= (size_t)w;
  }
  return 0;
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

int main(int argc, char **argv) {
  mr_init(&argc, &argv);
  const int rank = loom_rank(), n = loom_nranks();
  unsigned char local[LEN];

  /* One block homed at each rank; rank r writes into the block homed at
   * r+1 (another rank when n > 1), so each block has exactly one writer. */
  unsigned char **blk = calloc((size_t)n, sizeof *blk);
  for (int h = 0; h < n; h++) CHECK_OK(loom_alloc_collective_at(BLOCK, h, (void **)&blk[h]));
  for (int h = 0; h < n; h++)
    if (!blk[h]) return mr_finish("mr_syscall");
  unsigned char *mine = blk[(rank + 1) % n] + OFF;
  int home = -1;
  CHECK_OK(loom_home_of(mine, &home));
  CHECK(home == (rank + 1) % n);

  /* 1. The read system call into an untouched (protected) page fails with
   * EFAULT (read(3) itself is intercepted: it would prepare the page). */
  int fds[2];
  CHECK(pipe(fds) == 0);
  fill(local, rank, LEN);
  CHECK(write_all(fds[1], local, LEN) == 0);
  errno = 0;
  ssize_t r = syscall(SYS_read, fds[0], mine, LEN);
  CHECK(r == -1);
  CHECK(errno == EFAULT);
  close(fds[0]);
  close(fds[1]);

  /* 2. After loom_prepare(WRITE) the same read succeeds: half the range from
   * a pipe, the rest from a file with pread. */
  const size_t half = LEN / 2;
  CHECK_OK(loom_prepare(mine, LEN, LOOM_WRITE));
  CHECK(pipe(fds) == 0);
  CHECK(write_all(fds[1], local, half) == 0);
  errno = 0;
  r = read_all(fds[0], mine, half);
  CHECK(r == (ssize_t)half);
  if (r < 0) fprintf(stderr, "rank %d: read after loom_prepare: %s\n", rank, strerror(errno));
  close(fds[0]);
  close(fds[1]);

  char path[] = "/tmp/loom_mr_syscall_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0) {
    unlink(path);
    CHECK(write_all(fd, local, LEN) == 0);
    CHECK(pread(fd, mine + half, LEN - half, (off_t)half) == (ssize_t)(LEN - half));
    close(fd);
  }
  CHECK(mismatches(mine, rank, LEN) == 0); /* this rank sees its own bytes */
  CHECK(mine[-1] == 0 && mine[LEN] == 0);  /* and nothing around them */

  /* 3. The barrier publishes what the kernel wrote. */
  CHECK_OK(loom_barrier());

  /* 4. The write system call from an untouched page fails with EFAULT; after
   * loom_prepare(READ) it carries the bytes rank r+1 read in.  The range is
   * in the block homed at r+2, which this rank has not touched yet. */
  const int src = (rank + 1) % n;
  unsigned char *theirs = blk[(src + 1) % n] + OFF;
  CHECK(pipe(fds) == 0);
  errno = 0;
  r = syscall(SYS_write, fds[1], theirs, LEN);
  CHECK(r == -1);
  CHECK(errno == EFAULT);
  CHECK_OK(loom_prepare(theirs, LEN, LOOM_READ));
  r = write(fds[1], theirs, LEN);
  CHECK(r == LEN);
  memset(local, 0, LEN);
  CHECK(read_all(fds[0], local, LEN) == LEN);
  CHECK(mismatches(local, src, LEN) == 0);
  close(fds[0]);
  close(fds[1]);

  /* Every rank sees every rank's bytes with ordinary loads. */
  for (int w = 0; w < n; w++) {
    unsigned char *range = blk[(w + 1) % n] + OFF;
    CHECK(mismatches(range, w, LEN) == 0);
    CHECK(range[-1] == 0 && range[LEN] == 0);
  }

  /* 5. Bad arguments. */
  CHECK_ERR(loom_prepare(mine, LEN, 0), LOOM_ERR_INVALID);
  CHECK_ERR(loom_prepare(mine, LEN, 4), LOOM_ERR_INVALID);
  CHECK_ERR(loom_prepare(mine, LEN, -1), LOOM_ERR_INVALID);
  CHECK_ERR(loom_prepare(local, LEN, LOOM_READ), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_prepare(NULL, LEN, LOOM_WRITE), LOOM_ERR_BAD_POINTER);
  CHECK_OK(loom_prepare(mine, LEN, LOOM_READ | LOOM_WRITE));

  /* 6. MPI with Loom buffers: rank 1 fills a range (block homed at rank 1),
   * rank 0 sends it from prepared-READ memory, rank 1 receives it into
   * prepared-WRITE memory of a block homed at rank 0, and after a barrier
   * every rank sees what rank 1 received. */
  const size_t mlen = 2 * PAGE + 123;
  unsigned char *sendb = NULL, *recvb = NULL;
  CHECK_OK(loom_alloc_collective_at(BLOCK, 1 % n, (void **)&sendb));
  CHECK_OK(loom_alloc_collective_at(BLOCK, 0, (void **)&recvb));
  if (!sendb || !recvb) return mr_finish("mr_syscall");
  if (rank == 1 % n) fill(sendb + OFF, 42, mlen);
  CHECK_OK(loom_barrier());
  if (n > 1 && rank == 0) {
    CHECK_OK(loom_prepare(sendb + OFF, mlen, LOOM_READ));
    CHECK(MPI_Send(sendb + OFF, (int)mlen, MPI_BYTE, 1, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
  } else if (n > 1 && rank == 1) {
    MPI_Status st;
    int count = -1;
    CHECK_OK(loom_prepare(recvb + OFF, mlen, LOOM_WRITE));
    CHECK(MPI_Recv(recvb + OFF, (int)mlen, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == (int)mlen);
  }
  CHECK_OK(loom_barrier());
  if (n > 1) {
    CHECK(mismatches(recvb + OFF, 42, mlen) == 0);
    CHECK(recvb[OFF - 1] == 0 && recvb[OFF + mlen] == 0);
  }

  /* 7. A freed collective block is not Loom-allocated any more. */
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_free_collective(sendb));
  CHECK_ERR(loom_prepare(sendb + OFF, 16, LOOM_READ), LOOM_ERR_BAD_POINTER);
  CHECK_ERR(loom_prepare(sendb, 16, LOOM_WRITE), LOOM_ERR_BAD_POINTER);

  free(blk);
  return mr_finish("mr_syscall");
}
