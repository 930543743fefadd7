/* A rank busy with Loom calls that do not wait still serves the page reads
 * of the others: a reader's faults on pages homed at rank 1 complete while
 * rank 1 (a) loops on a Loom atomic of its own memory, (b) tries again and
 * again for a lock the reader holds (loom_trylock), and (c) waits in
 * loom_lock for a lock the reader holds.  Under LOOM_TRANSPORT=rma with
 * Open MPI 5 the MPI library completes rank 1's one-sided operations on
 * the lock words in its own memory without polling: in (b) the progress
 * thread napped through them (they counted as time in MPI) and the reader's
 * gets waited for chance polls (the test took 8 s instead of 1.1), and in
 * (c) and in Loom's barriers nothing polled until Loom's wait loops poked
 * MPI (MpiRmaPath::poke; without it the test hangs).  The loops of (a) and
 * (b) give up after kGiveUp seconds with a failed check instead of hanging.
 *
 * Every other rank reads; with one rank there is nothing to serve. */
#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "mr.h"

enum { kPages = 64, kGiveUp = 60 };

static double mono(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The reader's part: every page of the block (homed at rank 1), checked
 * against what rank 1 wrote in this round. */
static void read_all(const uint64_t* data, uint64_t round) {
  int bad = 0;
  for (int p = 0; p < kPages; p++)
    for (int w = 0; w < 512; w += 64) bad += data[p * 512 + w] != round * 1000000 + (uint64_t)(p * 512 + w);
  CHECK(bad == 0);
}

static void write_all(uint64_t* data, uint64_t round) {
  for (int p = 0; p < kPages; p++)
    for (int w = 0; w < 512; w++) data[p * 512 + w] = round * 1000000 + (uint64_t)(p * 512 + w);
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int me = loom_rank(), n = loom_nranks();
  if (n < 2) return mr_finish("mr_serve");
  uint64_t* data = NULL;
  uint64_t* flags = NULL; /* [0] readers done (a), [512] readers done (b), on their own pages */
  CHECK_OK(loom_alloc_collective_at((size_t)kPages * 4096, 1, (void**)&data));
  CHECK_OK(loom_alloc_collective_at(2 * 4096, 1, (void**)&flags));
  const uint64_t readers = (uint64_t)n - 1;

  /* (a) rank 1 loops on loom_atomic_load of a word of its own memory. */
  if (me == 1) write_all(data, 1);
  CHECK_OK(loom_barrier());
  if (me == 1) {
    uint64_t v = 0;
    const double t0 = mono();
    for (long i = 0;; i++) {
      CHECK_OK(loom_atomic_load(&flags[0], &v));
      if (v == readers || mono() - t0 > kGiveUp) break;
      if (i > 64) sched_yield();
    }
    CHECK(v == readers);
  } else {
    read_all(data, 1);
    CHECK_OK(loom_atomic_fetch_add(&flags[0], 1, NULL));
  }
  CHECK_OK(loom_barrier());

  /* (b) rank 0 holds lock 11 while it reads; rank 1 tries the lock again
   * and again (loom_trylock: one-sided operations on the lock's words, no
   * wait of Loom's own) until rank 0 has set a word under it and let go. */
  if (me == 1) write_all(data, 2);
  if (me == 0) CHECK_OK(loom_lock(11));
  CHECK_OK(loom_barrier());
  if (me == 1) {
    int got = 0;
    const double t0 = mono();
    for (long i = 0; !got && mono() - t0 <= kGiveUp; i++) {
      loom_status_t s = loom_trylock(11, &got);
      if (s != LOOM_OK) {
        CHECK_OK(s);
        break;
      }
      if (!got && i > 64) sched_yield();
    }
    CHECK(got);
    if (got) {
      CHECK(flags[512] == 1);
      CHECK_OK(loom_unlock(11));
    }
  } else {
    read_all(data, 2);
    if (me == 0) {
      flags[512] = 1;
      CHECK_OK(loom_unlock(11));
    }
  }
  CHECK_OK(loom_barrier());

  /* (c) the reader takes lock 12 and faults the pages while holding it;
   * rank 1 waits for the lock meanwhile (Loom's own wait loop). */
  if (me == 1) write_all(data, 3);
  CHECK_OK(loom_barrier());
  if (me == 0) {
    CHECK_OK(loom_lock(12));
    CHECK_OK(loom_barrier());
    read_all(data, 3);
    CHECK_OK(loom_unlock(12));
  } else {
    CHECK_OK(loom_barrier()); /* rank 0 holds lock 12 now */
    if (me == 1) {
      CHECK_OK(loom_lock(12));
      CHECK_OK(loom_unlock(12));
    } else {
      read_all(data, 3);
    }
  }
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_free_collective(flags));
  CHECK_OK(loom_free_collective(data));
  return mr_finish("mr_serve");
}
