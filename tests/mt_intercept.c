/* mt_intercept: several threads of every rank hand Loom memory to MPI and
 * to I/O calls at once, WITHOUT loom_prepare (mt_intercept [T], T threads per
 * rank; workers are ranks x threads, tests/mr.h).  mr_intercept is the same
 * for one thread and every MPI call Loom intercepts; this is the part that
 * threads can race on: each worker's buffers lie in blocks its rank holds
 * none of, so every call meets protected pages, and the threads of a rank
 * prepare theirs at the same time (the rank lock orders the preparations;
 * a page another thread fetches or writes meanwhile must not be lost).
 *
 * Worker v = rank r, thread t owns two source blocks homed at r (filled
 * there with v's pattern) and a sink block homed at r + 1.  At once, every worker:
 *  1. MPI_Isend of the source of worker (r+1, t) to rank r-1, a range across
 *     a page boundary and one above 64 KiB, and MPI_Irecv of the same from
 *     rank r+1 into its sink (tags per thread; with MPI_THREAD_MULTIPLE
 *     only: otherwise thread 0 alone);
 *  2. write and pwrite of a second source block of worker (r+1, t), which
 *     nothing on this rank touched, into a temporary file, read and pread of it back into the sink's second half; writev
 *     and readv through a pipe, send and recv through a socket pair, into
 *     a third range of the sink.
 * After a barrier every worker reads every sink: each range holds the
 * pattern of the worker it came from. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pread, mkstemp, socketpair with -std=c11 */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mr.h"

#define PAGE 4096
#define BLOCK (40 * PAGE)
#define OFF 1000               /* the large range: [OFF, OFF + BIG) */
#define BIG (17 * PAGE + 123)  /* above 64 KiB */
#define SOFF (19 * PAGE - 100) /* the small range, across a page boundary */
#define SMALL 200
#define IOFF (21 * PAGE + 77)  /* file I/O: [IOFF, IOFF + IOLEN) */
#define IOLEN (6 * PAGE + 5)
#define POFF (29 * PAGE + 300) /* pipe and socket: [POFF, POFF + PLEN) */
#define PLEN (3 * PAGE)

static unsigned char **g_src, **g_iosrc, **g_dst;
static int g_mpi_threads; /* MPI_THREAD_MULTIPLE: every thread makes MPI calls */

static unsigned char pattern(int writer, size_t i) { return (unsigned char)(writer * 37 + i * 11 + 3); }

static size_t mismatches(const unsigned char *block, size_t from, size_t len, int writer) {
  size_t bad = 0;
  for (size_t i = from; i < from + len; i++) bad += block[i] != pattern(writer, i);
  return bad;
}


static void io(int w, const unsigned char *from, unsigned char *to) {
  /* A file: write the first half and pwrite the rest, read and pread back. */
  char path[] = "/tmp/loom_mt_intercept_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  unlink(path);
  const size_t half = IOLEN / 2;
  CHECK(mr_write_all(fd, from + IOFF, half) == 0);
  CHECK(pwrite(fd, from + IOFF + half, IOLEN - half, (off_t)half) == (ssize_t)(IOLEN - half));
  CHECK(lseek(fd, 0, SEEK_SET) == 0);
  CHECK(read(fd, to + IOFF, half) == (ssize_t)half);
  CHECK(pread(fd, to + IOFF + half, IOLEN - half, (off_t)half) == (ssize_t)(IOLEN - half));
  close(fd);

  /* A pipe: writev of two pieces, readv into two pieces (first half of the
   * range); a socket pair: send and recv (second half). */
  const size_t ph = PLEN / 2, q = ph / 3;
  int p[2];
  CHECK(pipe(p) == 0);
  struct iovec out[2] = {{(void *)(from + POFF), q}, {(void *)(from + POFF + q), ph - q}};
  CHECK(writev(p[1], out, 2) == (ssize_t)ph);
  struct iovec in[2] = {{to + POFF, ph - q}, {to + POFF + ph - q, q}};
  size_t got = 0;
  while (got < ph) {
    ssize_t r = readv(p[0], in, 2);
    if (r <= 0) break;
    got += (size_t)r;
    if (got < ph) { /* a short read: the rest plainly */
      CHECK(read(p[0], to + POFF + got, ph - got) == (ssize_t)(ph - got));
      got = ph;
    }
  }
  CHECK(got == ph);
  close(p[0]);
  close(p[1]);
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  CHECK(send(sv[0], from + POFF + ph, PLEN - ph, 0) == (ssize_t)(PLEN - ph));
  got = 0;
  while (got < PLEN - ph) {
    ssize_t r = recv(sv[1], to + POFF + ph + got, PLEN - ph - got, 0);
    if (r <= 0) break;
    got += (size_t)r;
  }
  CHECK(got == PLEN - ph);
  close(sv[0]);
  close(sv[1]);
  (void)w;
}

static void worker(int w, int W) {
  const int r = loom_rank(), n = loom_nranks(), T = W / n, t = w % T;
  if (t == 0) {
    g_src = calloc((size_t)W, sizeof *g_src);
    g_iosrc = calloc((size_t)W, sizeof *g_iosrc);
    g_dst = calloc((size_t)W, sizeof *g_dst);
    for (int v = 0; v < W; v++) {
      CHECK_OK(loom_alloc_collective_at(BLOCK, v / T, (void **)&g_src[v]));
      CHECK_OK(loom_alloc_collective_at(BLOCK, v / T, (void **)&g_iosrc[v]));
      CHECK_OK(loom_alloc_collective_at(BLOCK, (v / T + 1) % n, (void **)&g_dst[v]));
    }
  }
  mr_wbar();
  for (int v = 0; v < W; v++)
    if (!g_src[v] || !g_iosrc[v] || !g_dst[v]) return;
  for (size_t i = 0; i < BLOCK; i++) g_src[w][i] = g_iosrc[w][i] = pattern(w, i);
  mr_wbar();

  /* 1. Point to point, every thread at once. */
  const int s = ((r + 1) % n) * T + t;
  if (g_mpi_threads || t == 0) {
    loom_stats_t before, after;
    CHECK_OK(loom_thread_stats_get(&before));
    MPI_Request req[4];
    const int tag = 10 + 2 * t;
    CHECK(MPI_Irecv(g_dst[w] + SOFF, SMALL, MPI_BYTE, (r + 1) % n, tag, MPI_COMM_WORLD, &req[0]) == MPI_SUCCESS);
    CHECK(MPI_Irecv(g_dst[w] + OFF, BIG, MPI_BYTE, (r + 1) % n, tag + 1, MPI_COMM_WORLD, &req[1]) == MPI_SUCCESS);
    CHECK(MPI_Isend(g_src[s] + SOFF, SMALL, MPI_BYTE, (r + n - 1) % n, tag, MPI_COMM_WORLD, &req[2]) == MPI_SUCCESS);
    CHECK(MPI_Isend(g_src[s] + OFF, BIG, MPI_BYTE, (r + n - 1) % n, tag + 1, MPI_COMM_WORLD, &req[3]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    CHECK_OK(loom_thread_stats_get(&after));
    if (n > 1) CHECK(after.pages_fetched + after.pages_mapped > before.pages_fetched + before.pages_mapped); /* copied, or mapped (one host) */
  }

  /* 2. I/O, every thread at once. */
  io(w, g_iosrc[s], g_dst[w]); /* another block of worker (r+1, t), which nothing here touched */
  mr_wbar();

  /* Every worker sees every sink. */
  for (int v = 0; v < W; v++) {
    const int vr = v / T, vt = v % T;
    if (g_mpi_threads || vt == 0) {
      const int sent = ((vr + 2) % n) * T + vt; /* what rank vr + 1 sent: the source of (vr + 2, vt) */
      CHECK(mismatches(g_dst[v], SOFF, SMALL, sent) == 0);
      CHECK(mismatches(g_dst[v], OFF, BIG, sent) == 0);
    }
    const int io_from = ((vr + 1) % n) * T + vt;
    CHECK(mismatches(g_dst[v], IOFF, IOLEN, io_from) == 0);
    CHECK(mismatches(g_dst[v], POFF, PLEN, io_from) == 0);
    CHECK(g_dst[v][OFF - 1] == 0 && g_dst[v][IOFF - 1] == 0 && g_dst[v][POFF + PLEN] == 0);
  }
  mr_wbar();
  if (t == 0) {
    free(g_src);
    free(g_iosrc);
    free(g_dst);
  }
}

int main(int argc, char **argv) {
  mr_init(&argc, &argv);
  int level = 0;
  MPI_Query_thread(&level);
  g_mpi_threads = level >= MPI_THREAD_MULTIPLE;
  mr_workers(mr_threads_arg(argc, argv), worker);
  return mr_finish("mt_intercept");
}
