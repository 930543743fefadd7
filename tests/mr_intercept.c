/* mr_intercept: Loom memory handed to MPI and to I/O calls WITHOUT
 * loom_prepare.
 *
 * Every buffer lies in a block homed on another rank and written there, so
 * the calling rank holds none of its pages: a copy inside MPI (or the
 * kernel) meets protected pages.  Without interception this fails: the
 * kernel answers EFAULT (read, write, pread, pwrite, fread, fwrite, and
 * MPICH's process_vm_readv for messages above ~32 KiB between ranks of a
 * host), and a fault inside MPI whose page must come through MPI re-enters
 * MPI (MPICH: "Resource deadlock avoided").  With interception the calls
 * move the right bytes, and after a barrier every rank sees what was
 * received into Loom memory.
 *
 * Each part takes fresh source blocks (one homed at each rank, filled by
 * its home, then a barrier), so each call meets untouched pages:
 *  1. MPI_Send/MPI_Recv, a small message across a page boundary and one
 *     above 64 KiB;
 *  2. MPI_Isend/MPI_Irecv of the same, completed by MPI_Waitall;
 *  3. MPI_Bcast from Loom memory into Loom memory;
 *  4. MPI_Allreduce from and into Loom memory, and in place;
 *  5. MPI_Allgatherv with displacements;
 *  6. MPI_Reduce, MPI_Gather, MPI_Scatterv, MPI_Alltoall,
 *     MPI_Reduce_scatter_block, MPI_Sendrecv, MPI_Ibcast and MPI_Iallreduce;
 *  7. MPI_Put, MPI_Accumulate and MPI_Get (origin buffers) with a window
 *     of private memory;
 *  8. write/read/pwrite/pread/fwrite/fread through a temporary file,
 *     writev/readv through a pipe, send/recv through a socket pair;
 *  9. persistent requests (MPI_Recv_init, MPI_Send_init) started twice,
 *     by MPI_Startall and by MPI_Start, with a barrier between the rounds
 *     after which the sources' homes write new bytes: each start sends
 *     what its source holds then, into pages the last barrier took back. */
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
#define BLOCK (20 * PAGE)
#define OFF 1000                 /* the large range: [OFF, OFF + BIG) */
#define BIG (17 * PAGE + 123)    /* above 64 KiB */
#define SOFF (19 * PAGE - 100)   /* the small range, across the last page boundary */
#define SMALL 200
#define MAXR 64

static int rank, n;

static unsigned char pattern(int writer, size_t i) { return (unsigned char)(writer * 37 + i * 11 + 3); }

/* Bytes of [buf + from, buf + from + len) that differ from writer's pattern
 * at the same offsets. */
static size_t mismatches(const unsigned char *block, size_t from, size_t len, int writer) {
  size_t bad = 0;
  for (size_t i = from; i < from + len; i++) bad += block[i] != pattern(writer, i);
  return bad;
}

/* One block homed at each rank, filled with its home's pattern by the home,
 * then a barrier: every other rank holds none of it. */
static void sources(unsigned char **src) {
  for (int h = 0; h < n; h++) {
    src[h] = NULL;
    CHECK_OK(loom_alloc_collective_at(BLOCK, h, (void **)&src[h]));
    if (!src[h]) exit(mr_finish("mr_intercept"));
  }
  for (size_t i = 0; i < BLOCK; i++) src[rank][i] = pattern(rank, i);
  CHECK_OK(loom_barrier());
}

/* One block per rank r, homed at r+1: rank r receives into it. */
static void sinks(unsigned char **dst) {
  for (int r = 0; r < n; r++) {
    dst[r] = NULL;
    CHECK_OK(loom_alloc_collective_at(BLOCK, (r + 1) % n, (void **)&dst[r]));
    if (!dst[r]) exit(mr_finish("mr_intercept"));
  }
}

/* Point to point: rank r sends the block of rank s = r+1 to d = r-1, and so
 * receives from r+1 the block of r+2.  Even ranks send first. */
static void point_to_point(int nonblocking) {
  unsigned char *src[MAXR], *dst[MAXR];
  sources(src);
  sinks(dst);
  const int s = (rank + 1) % n, d = (rank + n - 1) % n, from = (rank + 1) % n;
  if (n > 1) {
    loom_stats_t before, after;
    CHECK_OK(loom_stats_get(&before));
    if (nonblocking) {
      MPI_Request req[4];
      CHECK(MPI_Irecv(dst[rank] + SOFF, SMALL, MPI_BYTE, from, 1, MPI_COMM_WORLD, &req[0]) == MPI_SUCCESS);
      CHECK(MPI_Irecv(dst[rank] + OFF, BIG, MPI_BYTE, from, 2, MPI_COMM_WORLD, &req[1]) == MPI_SUCCESS);
      CHECK(MPI_Isend(src[s] + SOFF, SMALL, MPI_BYTE, d, 1, MPI_COMM_WORLD, &req[2]) == MPI_SUCCESS);
      CHECK(MPI_Isend(src[s] + OFF, BIG, MPI_BYTE, d, 2, MPI_COMM_WORLD, &req[3]) == MPI_SUCCESS);
      CHECK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    } else {
      for (int phase = 0; phase < 2; phase++) {
        if (rank % 2 == phase) {
          CHECK(MPI_Send(src[s] + SOFF, SMALL, MPI_BYTE, d, 1, MPI_COMM_WORLD) == MPI_SUCCESS);
          CHECK(MPI_Send(src[s] + OFF, BIG, MPI_BYTE, d, 2, MPI_COMM_WORLD) == MPI_SUCCESS);
        } else {
          MPI_Status st;
          int count = -1;
          CHECK(MPI_Recv(dst[rank] + SOFF, SMALL, MPI_BYTE, from, 1, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
          CHECK(MPI_Recv(dst[rank] + OFF, BIG, MPI_BYTE, from, 2, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
          MPI_Get_count(&st, MPI_BYTE, &count);
          CHECK(count == BIG);
        }
      }
    }
    CHECK_OK(loom_stats_get(&after));
    /* the sources came from their homes (copied, or mapped where ranks share pages on one host) */
    CHECK(after.pages_fetched + after.pages_mapped > before.pages_fetched + before.pages_mapped);
  }
  CHECK_OK(loom_barrier());
  /* Every rank sees what every rank received: rank r got the block of r+2. */
  for (int r = 0; n > 1 && r < n; r++) {
    const int w = (r + 2) % n;
    CHECK(mismatches(dst[r], OFF, BIG, w) == 0);
    CHECK(mismatches(dst[r], SOFF, SMALL, w) == 0);
    CHECK(dst[r][OFF - 1] == 0 && dst[r][OFF + BIG] == 0 && dst[r][SOFF - 1] == 0);
  }
}

/* Bcast: the root sends from the block of root+1; every other rank r
 * receives into its own pages of a block homed at the root. */
static void broadcast(void) {
  unsigned char *src[MAXR], *bc = NULL;
  sources(src);
  const int root = 1 % n, w = (root + 1) % n;
  CHECK_OK(loom_alloc_collective_at((size_t)n * BLOCK, root, (void **)&bc));
  if (!bc) exit(mr_finish("mr_intercept"));
  unsigned char *mine = rank == root ? src[w] : bc + (size_t)rank * BLOCK;
  CHECK(MPI_Bcast(mine + OFF, BIG, MPI_BYTE, root, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK_OK(loom_barrier());
  for (int r = 0; r < n; r++)
    if (r != root) CHECK(mismatches(bc + (size_t)r * BLOCK, OFF, BIG, w) == 0);
}

/* Allreduce of 9000 64-bit words (72000 bytes) from a block rank 0 wrote
 * into each rank's pages of a block homed at the last rank; then in place,
 * over values another rank wrote into this rank's region. */
#define WORDS 9000
static void allreduce(void) {
  int64_t *v = NULL, *out = NULL, *inplace = NULL;
  const size_t region = (WORDS * 8 + PAGE - 1) / PAGE * PAGE;
  CHECK_OK(loom_alloc_collective_at(region, 0, (void **)&v));
  CHECK_OK(loom_alloc_collective_at((size_t)n * region, n - 1, (void **)&out));
  CHECK_OK(loom_alloc_collective_at((size_t)n * region, 0, (void **)&inplace));
  if (!v || !out || !inplace) exit(mr_finish("mr_intercept"));
  /* Rank 0 fills v; rank r+1 fills rank r's in-place region with i + r. */
  if (rank == 0)
    for (int i = 0; i < WORDS; i++) v[i] = i;
  {
    const int r = (rank + n - 1) % n;
    int64_t *x = (int64_t *)((unsigned char *)inplace + (size_t)r * region);
    for (int i = 0; i < WORDS; i++) x[i] = i + r;
  }
  CHECK_OK(loom_barrier());
  int64_t *mine = (int64_t *)((unsigned char *)out + (size_t)rank * region);
  int64_t *mine_ip = (int64_t *)((unsigned char *)inplace + (size_t)rank * region);
  CHECK(MPI_Allreduce(v, mine, WORDS, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(MPI_Allreduce(MPI_IN_PLACE, mine_ip, WORDS, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK_OK(loom_barrier());
  long bad = 0;
  for (int r = 0; r < n; r++) {
    const int64_t *o = (const int64_t *)((unsigned char *)out + (size_t)r * region);
    const int64_t *p = (const int64_t *)((unsigned char *)inplace + (size_t)r * region);
    for (int i = 0; i < WORDS; i++) {
      bad += o[i] != (int64_t)n * i;
      bad += p[i] != (int64_t)n * i + (int64_t)n * (n - 1) / 2;
    }
  }
  CHECK(bad == 0);
}

/* Allgatherv: rank r contributes 3000 + 100 r bytes of the block of r+1;
 * each rank receives every contribution at displacement 5000 i + 7 of its
 * own pages of a block homed at rank 0. */
static void allgatherv(void) {
  unsigned char *src[MAXR], *ag = NULL;
  sources(src);
  const size_t region = (size_t)(5000 * n + PAGE - 1) / PAGE * PAGE;
  CHECK_OK(loom_alloc_collective_at((size_t)n * region, 0, (void **)&ag));
  if (!ag) exit(mr_finish("mr_intercept"));
  int counts[MAXR], displs[MAXR];
  for (int i = 0; i < n; i++) {
    counts[i] = 3000 + 100 * i;
    displs[i] = 5000 * i + 7;
  }
  const int s = (rank + 1) % n;
  CHECK(MPI_Allgatherv(src[s] + OFF, counts[rank], MPI_BYTE, ag + (size_t)rank * region, counts, displs, MPI_BYTE,
                       MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK_OK(loom_barrier());
  size_t bad = 0;
  for (int r = 0; r < n; r++)
    for (int i = 0; i < n; i++) {
      const unsigned char *got = ag + (size_t)r * region + displs[i];
      for (int k = 0; k < counts[i]; k++) bad += got[k] != pattern((i + 1) % n, OFF + (size_t)k);
    }
  CHECK(bad == 0);
}

/* The largest pattern byte at offset i over all writers (MPI_MAX of the
 * sources every rank contributes). */
static unsigned char max_pattern(size_t i) {
  unsigned char m = 0;
  for (int w = 0; w < n; w++)
    if (pattern(w, i) > m) m = pattern(w, i);
  return m;
}

/* The other collectives and Sendrecv, each on fresh sources and sinks:
 * rank r contributes from the block of r+1 and receives into its block homed
 * at r+1.  CHUNK bytes per rank where a call takes one block per rank. */
#define CHUNK 5000
static void more_collectives(void) {
  unsigned char *src[MAXR], *dst[MAXR];
  const int s = (rank + 1) % n;
  size_t bad = 0;

  /* Reduce (MPI_MAX over bytes) to the last rank. */
  sources(src);
  sinks(dst);
  const int last = n - 1;
  CHECK(MPI_Reduce(src[s] + OFF, rank == last ? dst[last] + OFF : NULL, BIG, MPI_UNSIGNED_CHAR, MPI_MAX, last,
                   MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK_OK(loom_barrier());
  for (size_t k = 0; k < BIG; k++) bad += dst[last][OFF + k] != max_pattern(OFF + k);
  CHECK(bad == 0);

  /* Gather to rank 0. */
  sources(src);
  sinks(dst);
  CHECK(MPI_Gather(src[s] + OFF, CHUNK, MPI_BYTE, rank == 0 ? dst[0] + OFF : NULL, CHUNK, MPI_BYTE, 0,
                   MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK_OK(loom_barrier());
  bad = 0;
  for (int i = 0; i < n; i++)
    for (size_t k = 0; k < CHUNK; k++) bad += dst[0][OFF + (size_t)i * CHUNK + k] != pattern((i + 1) % n, OFF + k);
  CHECK(bad == 0);

  /* Scatterv from rank 1 % n, blocks of 3000 + 10 i bytes at 6000 i. */
  sources(src);
  sinks(dst);
  const int root = 1 % n, w = (root + 1) % n;
  int counts[MAXR], displs[MAXR];
  for (int i = 0; i < n; i++) {
    counts[i] = 3000 + 10 * i;
    displs[i] = 6000 * i;
  }
  CHECK(MPI_Scatterv(rank == root ? src[w] + OFF : NULL, counts, displs, MPI_BYTE, dst[rank] + OFF, counts[rank],
                     MPI_BYTE, root, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK_OK(loom_barrier());
  bad = 0;
  for (int r = 0; r < n; r++)
    for (int k = 0; k < counts[r]; k++) bad += dst[r][OFF + k] != pattern(w, OFF + (size_t)displs[r] + k);
  CHECK(bad == 0);

  /* Alltoall: block i of rank r's source goes to rank i. */
  sources(src);
  sinks(dst);
  CHECK(MPI_Alltoall(src[s] + OFF, CHUNK, MPI_BYTE, dst[rank] + OFF, CHUNK, MPI_BYTE, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  CHECK_OK(loom_barrier());
  bad = 0;
  for (int r = 0; r < n; r++)
    for (int i = 0; i < n; i++)
      for (size_t k = 0; k < CHUNK; k++)
        bad += dst[r][OFF + (size_t)i * CHUNK + k] != pattern((i + 1) % n, OFF + (size_t)r * CHUNK + k);
  CHECK(bad == 0);

  /* Reduce_scatter_block (MPI_MAX): rank r gets block r of the maximum. */
  sources(src);
  sinks(dst);
  CHECK(MPI_Reduce_scatter_block(src[s] + OFF, dst[rank] + OFF, CHUNK, MPI_UNSIGNED_CHAR, MPI_MAX,
                                 MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK_OK(loom_barrier());
  bad = 0;
  for (int r = 0; r < n; r++)
    for (size_t k = 0; k < CHUNK; k++) bad += dst[r][OFF + k] != max_pattern(OFF + (size_t)r * CHUNK + k);
  CHECK(bad == 0);

  /* Sendrecv around the ring (rank r sends the block of r+1 to r-1). */
  sources(src);
  sinks(dst);
  CHECK(MPI_Sendrecv(src[s] + OFF, BIG, MPI_BYTE, (rank + n - 1) % n, 3, dst[rank] + OFF, BIG, MPI_BYTE,
                     (rank + 1) % n, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK_OK(loom_barrier());
  for (int r = 0; r < n; r++) CHECK(mismatches(dst[r], OFF, BIG, (r + 2) % n) == 0);

  /* Ibcast and Iallreduce (MPI_MAX), completed by one MPI_Waitall. */
  sources(src);
  sinks(dst);
  MPI_Request req[2];
  unsigned char *bbuf = rank == root ? src[w] + OFF : dst[rank] + OFF;
  CHECK(MPI_Ibcast(bbuf, BIG, MPI_BYTE, root, MPI_COMM_WORLD, &req[0]) == MPI_SUCCESS);
  CHECK(MPI_Iallreduce(src[s] + SOFF, dst[rank] + SOFF, SMALL, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD,
                       &req[1]) == MPI_SUCCESS);
  CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  CHECK_OK(loom_barrier());
  bad = 0;
  for (int r = 0; r < n; r++) {
    if (r != root) bad += mismatches(dst[r], OFF, BIG, w);
    for (size_t k = 0; k < SMALL; k++) bad += dst[r][SOFF + k] != max_pattern(SOFF + k);
  }
  CHECK(bad == 0);
}

/* One-sided: rank r puts (and accumulates, MPI_BOR into zeros) the block of
 * r+1 into rank r-1's window, then gets rank r+1's window into its sink. */
static void one_sided(void) {
  unsigned char *src[MAXR], *dst[MAXR];
  sources(src);
  sinks(dst);
  const int s = (rank + 1) % n, d = (rank + n - 1) % n, from = (rank + 1) % n;
  unsigned char *mem = calloc(2 * (size_t)BIG, 1);
  if (!mem) exit(mr_finish("mr_intercept"));
  MPI_Win win;
  CHECK(MPI_Win_create(mem, 2 * (MPI_Aint)BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
  MPI_Win_fence(0, win);
  CHECK(MPI_Put(src[s] + OFF, BIG, MPI_BYTE, d, 0, BIG, MPI_BYTE, win) == MPI_SUCCESS);
  CHECK(MPI_Accumulate(src[s] + OFF, BIG, MPI_UNSIGNED_CHAR, d, BIG, BIG, MPI_UNSIGNED_CHAR, MPI_BOR, win) ==
        MPI_SUCCESS);
  MPI_Win_fence(0, win);
  /* This rank's window holds the block of r+2, twice. */
  size_t bad = 0;
  for (size_t k = 0; k < BIG; k++) {
    bad += mem[k] != pattern((rank + 2) % n, OFF + k);
    bad += mem[BIG + k] != pattern((rank + 2) % n, OFF + k);
  }
  CHECK(bad == 0);
  CHECK(MPI_Get(dst[rank] + OFF, BIG, MPI_BYTE, from, 0, BIG, MPI_BYTE, win) == MPI_SUCCESS);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);
  free(mem);
  CHECK_OK(loom_barrier());
  for (int r = 0; r < n; r++) CHECK(mismatches(dst[r], OFF, BIG, (r + 3) % n) == 0);
}

/* The I/O calls: each moves bytes of a block of r+1 out (write side) and
 * into a block of rank r homed at r+1 (read side); no two calls share a
 * page on either side.  The large range covers pages 0-17, the small one
 * pages 18-19. */
static void io_calls(void) {
  unsigned char *srca[MAXR], *srcb[MAXR], *srcc[MAXR], *dsta[MAXR], *dstb[MAXR], *dstc[MAXR];
  sources(srca);
  sources(srcb);
  sources(srcc);
  sinks(dsta);
  sinks(dstb);
  sinks(dstc);
  const int s = (rank + 1) % n;

  /* write and pread (large), pwrite and read (small). */
  char path[] = "/tmp/loom_mr_intercept_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0) {
    unlink(path);
    CHECK(write(fd, srca[s] + OFF, BIG) == BIG);
    CHECK(pwrite(fd, srca[s] + SOFF, SMALL, BIG) == SMALL);
    CHECK(pread(fd, dsta[rank] + OFF, BIG, 0) == BIG);
    CHECK(lseek(fd, BIG, SEEK_SET) == BIG);
    CHECK(read(fd, dsta[rank] + SOFF, SMALL) == SMALL);
    close(fd);
  }

  /* fwrite and fread (large: stdio hands them straight to the kernel). */
  FILE *f = tmpfile();
  CHECK(f != NULL);
  if (f) {
    CHECK(fwrite(srcb[s] + OFF, 1, BIG, f) == BIG);
    CHECK(fflush(f) == 0);
    rewind(f);
    CHECK(fread(dstb[rank] + OFF, 1, BIG, f) == BIG);
    fclose(f);
  }

  /* writev and readv through a pipe (small: a pipe holds 64 KiB), send and
   * recv through a socket pair. */
  int p[2];
  CHECK(pipe(p) == 0);
  struct iovec wv[2] = {{srcb[s] + SOFF, 50}, {srcb[s] + SOFF + 50, SMALL - 50}};
  struct iovec rv[2] = {{dstb[rank] + SOFF, 120}, {dstb[rank] + SOFF + 120, SMALL - 120}};
  CHECK(writev(p[1], wv, 2) == SMALL);
  CHECK(readv(p[0], rv, 2) == SMALL);
  close(p[0]);
  close(p[1]);
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  CHECK(send(sv[0], srcc[s] + SOFF, SMALL, 0) == SMALL);
  CHECK(recv(sv[1], dstc[rank] + SOFF, SMALL, MSG_WAITALL) == SMALL);
  close(sv[0]);
  close(sv[1]);

  CHECK_OK(loom_barrier());
  for (int r = 0; r < n; r++) {
    const int w = (r + 1) % n;
    CHECK(mismatches(dsta[r], OFF, BIG, w) == 0);
    CHECK(mismatches(dsta[r], SOFF, SMALL, w) == 0);
    CHECK(mismatches(dstb[r], OFF, BIG, w) == 0);
    CHECK(mismatches(dstb[r], SOFF, SMALL, w) == 0);
    CHECK(mismatches(dstc[r], SOFF, SMALL, w) == 0);
    CHECK(dstc[r][SOFF - 1] == 0 && dstc[r][OFF] == 0);
  }
}

/* Part 9: rank r receives from r+1 the block of r+2 into its block homed
 * at r+1, by persistent requests started twice. */
static void persistent(void) {
  unsigned char *src[MAXR], *dst[MAXR];
  sources(src);
  sinks(dst);
  if (n < 2) return;
  const int s = (rank + 1) % n, d = (rank + n - 1) % n, from = (rank + 1) % n;
  MPI_Request req[4];
  CHECK(MPI_Recv_init(dst[rank] + SOFF, SMALL, MPI_BYTE, from, 1, MPI_COMM_WORLD, &req[0]) == MPI_SUCCESS);
  CHECK(MPI_Recv_init(dst[rank] + OFF, BIG, MPI_BYTE, from, 2, MPI_COMM_WORLD, &req[1]) == MPI_SUCCESS);
  CHECK(MPI_Send_init(src[s] + SOFF, SMALL, MPI_BYTE, d, 1, MPI_COMM_WORLD, &req[2]) == MPI_SUCCESS);
  CHECK(MPI_Send_init(src[s] + OFF, BIG, MPI_BYTE, d, 2, MPI_COMM_WORLD, &req[3]) == MPI_SUCCESS);
  for (int round = 0; round < 2; round++) {
    if (round == 1) { /* the sources' homes write new bytes; the copies go */
      for (size_t i = 0; i < BLOCK; i++) src[rank][i] = pattern(rank + 100, i);
      CHECK_OK(loom_barrier());
    }
    if (round == 0) {
      CHECK(MPI_Startall(4, req) == MPI_SUCCESS);
    } else {
      for (int k = 0; k < 4; k++) CHECK(MPI_Start(&req[k]) == MPI_SUCCESS);
    }
    CHECK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    CHECK_OK(loom_barrier());
    for (int r = 0; r < n; r++) {
      const int w = (r + 2) % n + (round ? 100 : 0);
      CHECK(mismatches(dst[r], OFF, BIG, w) == 0);
      CHECK(mismatches(dst[r], SOFF, SMALL, w) == 0);
      CHECK(dst[r][OFF - 1] == 0 && dst[r][OFF + BIG] == 0 && dst[r][SOFF - 1] == 0);
    }
    CHECK_OK(loom_barrier());
  }
  for (int k = 0; k < 4; k++) CHECK(MPI_Request_free(&req[k]) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
  mr_init(&argc, &argv);
  rank = loom_rank();
  n = loom_nranks();
  if (n > MAXR) return mr_finish("mr_intercept");
  point_to_point(0);
  point_to_point(1);
  broadcast();
  allreduce();
  allgatherv();
  more_collectives();
  one_sided();
  io_calls();
  persistent();
  return mr_finish("mr_intercept");
}
