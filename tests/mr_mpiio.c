/* mr_mpiio: MPI-IO reads and writes whose memory buffer is Loom memory,
 * WITHOUT loom_prepare.
 *
 * Every buffer lies in a block homed on another rank and filled there, so
 * the calling rank holds none of its pages when it hands it to MPI.  Rank r
 * writes file region r from a block homed at r+1, then reads region r+1
 * into a block homed at r+2 (r+1 with 2 ranks), and after a barrier every
 * rank checks every block: the bytes read are the bytes written, and the
 * bytes around them are the home's filler.  Without the MPI-IO wrappers
 * (src/intercept_file.cpp) every entry fails: where a page's home is
 * reached through MPI (LOOM_LOCAL_MAP=0, another host) a copy inside the
 * library faults and re-enters MPI (MPICH: "Resource deadlock avoided"),
 * and where the ranks map each other the run hangs until its timeout.
 *
 * Parts, each on an area of the file of its own:
 *  0. MPI_File_write_at / MPI_File_read_at (independent);
 *  1. MPI_File_write_at_all / MPI_File_read_at_all (collective);
 *  2. a file view per rank, MPI_File_write_all / MPI_File_read_all;
 *  3. MPI_File_iwrite_at / MPI_File_iread_at, completed by MPI_Wait;
 *  4. MPI_File_iwrite_at_all / MPI_File_iread_at_all, by MPI_Waitall;
 *  5. the split collectives MPI_File_write_at_all_begin/_end and
 *     MPI_File_read_all_begin/_end;
 *  6. MPI_File_write_ordered / MPI_File_read_ordered (the shared pointer);
 *  7. a strided memory datatype (100 bytes of every 300) with
 *     MPI_File_write_at_all / MPI_File_read_at_all: only those bytes move.
 * Under Open MPI parts 3, 4 and 5 are skipped (said on stderr): Open MPI
 * 5.0.11's nonblocking MPI-IO (its split collectives are nonblocking
 * inside) crashes when two threads progress MPI at once
 * (mca_common_ompio_progress), as Loom's protocol or progress thread does,
 * in a plain MPI program too (docs/results/issue10/ompio_race/). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mr.h"

#define PAGE 4096
#define BLOCK (10 * PAGE)
#define OFF 777               /* the buffer: [OFF, OFF + LEN), across page boundaries */
#define LEN 33000             /* 8 pages and more; a multiple of 300 (part 7's stride) */
#define FILLER 0xEE
#define PARTS 8

static int rank, n;

static unsigned char pattern(int part, int region, size_t i) {
  return (unsigned char)(part * 53 + region * 29 + i * 7 + 1);
}

/* Part 7 moves the first 100 bytes of every 300 of the buffer. */
static int moved(int part, size_t i) { return part != 7 || i % 300 < 100; }

/* One block per rank r homed at (r + shift) % n, filled by its home: with
 * region r's pattern (`part` >= 0) or the filler (part < 0). */
static void blocks(unsigned char **b, int shift, int part) {
  for (int r = 0; r < n; r++) {
    b[r] = NULL;
    CHECK_OK(loom_alloc_collective_at(BLOCK, (r + shift) % n, (void **)&b[r]));
    if (!b[r]) exit(mr_finish("mr_mpiio"));
  }
  for (int r = 0; r < n; r++) {
    if ((r + shift) % n != rank) continue;
    memset(b[r], FILLER, BLOCK);
    if (part >= 0)
      for (size_t i = 0; i < LEN; i++) b[r][OFF + i] = pattern(part, r, i);
  }
  CHECK_OK(loom_barrier());
}

static void free_blocks(unsigned char **b) {
  for (int r = 0; r < n; r++) CHECK_OK(loom_free_collective(b[r]));
}

static void check_mpi(int e, const char *what) {
  if (e != MPI_SUCCESS) fprintf(stderr, "rank %d: FAIL %s returned %d\n", rank, what, e);
  CHECK(e == MPI_SUCCESS);
}

/* Every rank checks every read block: block q holds region (q+1)'s bytes
 * where the part moved bytes, the filler elsewhere. */
static void verify(int part, unsigned char **dst) {
  for (int q = 0; q < n; q++) {
    const int region = (q + 1) % n;
    size_t bad = 0, first = (size_t)-1;
    for (size_t i = 0; i < BLOCK; i++) {
      unsigned char want = FILLER;
      if (i >= OFF && i < OFF + LEN && moved(part, i - OFF)) want = pattern(part, region, i - OFF);
      if (dst[q][i] != want) {
        if (!bad) first = i;
        bad++;
      }
    }
    if (bad)
      fprintf(stderr, "rank %d: part %d: block %d has %zu wrong bytes (first at %zu: %d)\n", rank, part, q, bad,
              first, dst[q][first]);
    CHECK(bad == 0);
  }
}

int main(int argc, char **argv) {
  mr_init(&argc, &argv);
  rank = loom_rank();
  n = loom_nranks();

  char path[512] = "";
  if (rank == 0) {
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/loom_mr_mpiio_%ld_%ld", dir && *dir ? dir : "/tmp", (long)getpid(),
             (long)time(NULL));
  }
  MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_File fh;
  int e = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                        MPI_INFO_NULL, &fh);
  check_mpi(e, "MPI_File_open");
  if (e != MPI_SUCCESS) return mr_finish("mr_mpiio");

  MPI_Datatype strided;
  MPI_Type_vector(LEN / 300, 100, 300, MPI_BYTE, &strided);
  MPI_Type_commit(&strided);

  for (int part = 0; part < PARTS; part++) {
    unsigned char *src[64], *dst[64];
    if (n > 64) break;
#ifdef OPEN_MPI
    if (part >= 3 && part <= 5) {
      if (rank == 0) fprintf(stderr, "mr_mpiio: part %d (nonblocking MPI-IO) skipped under Open MPI\n", part);
      continue;
    }
#endif
    blocks(src, 1, part); /* rank r writes region r from src[r], homed at r+1 */
    blocks(dst, n == 2 ? 1 : 2, -1);
    const MPI_Offset area = (MPI_Offset)part * n * LEN;
    const MPI_Offset mine = area + (MPI_Offset)rank * LEN, theirs = area + (MPI_Offset)((rank + 1) % n) * LEN;
    unsigned char *out = src[rank] + OFF, *in = dst[rank] + OFF;
    MPI_Status st;
    MPI_Request rq[2];
    switch (part) {
      case 0:
        check_mpi(MPI_File_write_at(fh, mine, out, LEN, MPI_BYTE, &st), "MPI_File_write_at");
        break;
      case 1:
        check_mpi(MPI_File_write_at_all(fh, mine, out, LEN, MPI_BYTE, &st), "MPI_File_write_at_all");
        break;
      case 2:
        check_mpi(MPI_File_set_view(fh, mine, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "MPI_File_set_view");
        check_mpi(MPI_File_write_all(fh, out, LEN, MPI_BYTE, &st), "MPI_File_write_all");
        break;
      case 3:
        check_mpi(MPI_File_iwrite_at(fh, mine, out, LEN, MPI_BYTE, &rq[0]), "MPI_File_iwrite_at");
        check_mpi(MPI_Wait(&rq[0], &st), "MPI_Wait");
        break;
      case 4:
        check_mpi(MPI_File_iwrite_at_all(fh, mine, out, LEN, MPI_BYTE, &rq[0]), "MPI_File_iwrite_at_all");
        check_mpi(MPI_Waitall(1, rq, MPI_STATUSES_IGNORE), "MPI_Waitall");
        break;
      case 5:
        check_mpi(MPI_File_write_at_all_begin(fh, mine, out, LEN, MPI_BYTE), "MPI_File_write_at_all_begin");
        check_mpi(MPI_File_write_at_all_end(fh, out, &st), "MPI_File_write_at_all_end");
        break;
      case 6:
        check_mpi(MPI_File_set_view(fh, area, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "MPI_File_set_view");
        check_mpi(MPI_File_write_ordered(fh, out, LEN, MPI_BYTE, &st), "MPI_File_write_ordered");
        break;
      case 7:
        check_mpi(MPI_File_write_at_all(fh, mine, out, 1, strided, &st), "MPI_File_write_at_all (strided)");
        break;
    }
    check_mpi(MPI_File_sync(fh), "MPI_File_sync");
    MPI_Barrier(MPI_COMM_WORLD);
    check_mpi(MPI_File_sync(fh), "MPI_File_sync");
    int got = -1;
    switch (part) {
      case 0:
        check_mpi(MPI_File_read_at(fh, theirs, in, LEN, MPI_BYTE, &st), "MPI_File_read_at");
        break;
      case 1:
        check_mpi(MPI_File_read_at_all(fh, theirs, in, LEN, MPI_BYTE, &st), "MPI_File_read_at_all");
        break;
      case 2:
        check_mpi(MPI_File_set_view(fh, theirs, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "MPI_File_set_view");
        check_mpi(MPI_File_read_all(fh, in, LEN, MPI_BYTE, &st), "MPI_File_read_all");
        break;
      case 3:
        check_mpi(MPI_File_iread_at(fh, theirs, in, LEN, MPI_BYTE, &rq[0]), "MPI_File_iread_at");
        check_mpi(MPI_Wait(&rq[0], &st), "MPI_Wait");
        break;
      case 4:
        check_mpi(MPI_File_iread_at_all(fh, theirs, in, LEN, MPI_BYTE, &rq[1]), "MPI_File_iread_at_all");
        check_mpi(MPI_Waitall(1, &rq[1], &st), "MPI_Waitall");
        break;
      case 5:
        check_mpi(MPI_File_set_view(fh, theirs, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "MPI_File_set_view");
        check_mpi(MPI_File_read_all_begin(fh, in, LEN, MPI_BYTE), "MPI_File_read_all_begin");
        check_mpi(MPI_File_read_all_end(fh, in, &st), "MPI_File_read_all_end");
        break;
      case 6:
        /* the shared pointer reads the regions in rank order again: this
         * rank's own region, into its block (the check wants region r+1) */
        check_mpi(MPI_File_set_view(fh, area, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "MPI_File_set_view");
        check_mpi(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), "MPI_File_seek_shared");
        check_mpi(MPI_File_read_ordered(fh, in, LEN, MPI_BYTE, &st), "MPI_File_read_ordered");
        break;
      case 7:
        check_mpi(MPI_File_read_at_all(fh, theirs, in, 1, strided, &st), "MPI_File_read_at_all (strided)");
        break;
    }
    MPI_Get_count(&st, part == 7 ? strided : MPI_BYTE, &got);
    CHECK(got == (part == 7 ? 1 : LEN));
    if (part == 2 || part == 5 || part == 6)
      check_mpi(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "MPI_File_set_view");
    CHECK_OK(loom_barrier()); /* what each rank read is visible to every rank */
    if (part == 6) {
      /* ordered: rank r read region r back; compare against that */
      size_t bad = 0;
      for (int q = 0; q < n; q++)
        for (size_t i = 0; i < LEN; i++) bad += dst[q][OFF + i] != pattern(part, q, i);
      CHECK(bad == 0);
    } else {
      verify(part, dst);
    }
    CHECK_OK(loom_barrier());
    free_blocks(src);
    free_blocks(dst);
  }
  MPI_Type_free(&strided);
  check_mpi(MPI_File_close(&fh), "MPI_File_close");
  return mr_finish("mr_mpiio");
}
