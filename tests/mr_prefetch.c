/* The barrier prefetch of hot pages (src/protocol/core.cpp): a page a rank
 * fetches again after each drop at gaps that repeat is fetched by the
 * barrier that starts the interval its gaps predict.
 *   1. Every value read is the one written before the last barrier, whether
 *      the page came by a fault, by a prefetch, or by a prefetch made for a
 *      read that did not come (the readers change their pattern).
 *   2. Where the homes are not mapped and the pages are HLRC's, a reader of
 *      a block every third round (CG's pattern) gets its pages from the
 *      barrier once it has seen the gap repeat: from the fourth read on,
 *      every page of every read (the window's pages too, not only the one
 *      that faulted); so does a reader at gaps that alternate (MG's).
 *      Where every peer is mapped nothing is prefetched.
 *   3. After a lock has been used (copies are then tracked for locks), a
 *      block rank 0 rewrites in place every round and the others read every
 *      round comes with the barrier; rank 0 then writes it once more under
 *      a lock, and a reader that takes the lock after it must see the new
 *      values with no barrier between: the barrier's prefetch told the home
 *      it holds the copy (intervals.cpp, ivl_before_fetch).
 *   4. A read that comes one barrier later than predicted (SOR's extra
 *      barrier every 20 phases) does not make the page cold: two blocks
 *      read in turn (gaps of 2 barriers), with an extra barrier every 10
 *      rounds, come with the barrier from each block's fourth read on.
 *   5. Writes that reach the home late (below); in a job of 2 ranks the
 *      pages come with the home's row, ahead of the agreement, in the
 *      rounds with no such write.
 *   6. A block read every round and then no more stops being pushed: the
 *      pages installed readable on trust are checked one push in four.
 *   7. A block its readers also write every round: each reader sees its
 *      own word and the home's, whether the pages came ahead of the
 *      agreement (the reader's diffed bytes stored over them) or after it.
 *   8. A diff made at an unlock and the home's write of the same word after
 *      it, under the lock: the reader reads the home's.
 *   9. A barrier's diffs from a writer that arrives late, into pages the
 *      home also wrote: at the home, and in the pages the writer fetches
 *      back at once.
 * Rank 0 writes the block in every round; every other rank reads it in
 * some rounds, after a barrier (two barriers a round: every third round
 * is a gap of 6 acquires).
 *
 * mr_prefetch T runs T threads per rank: a rank's reads and writes of a
 * block are split among its threads (page p by thread p % T), so that the
 * rank reads what one thread read before and its counts keep their
 * meaning; thread 0 reads the rank's statistics where every thread has
 * passed the same thread barrier; in part 3 every thread of a reader rank
 * takes the lock and must see the write made under it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr.h"

enum { P = 40, ROUNDS = 50, PHASE2 = 19, PHASE3 = 34 };

static loom_stats_t stats_now(void) {
  loom_stats_t st;
  CHECK_OK(loom_stats_get(&st));
  return st;
}

/* At least `want` pages came ahead of the agreement (statistics' pages_ahead). */
static void check_ahead(int r, uint64_t got, uint64_t want, const char* where) {
  CHECK(got >= want);
  if (got < want)
    fprintf(stderr, "rank %d: %llu pages %s came ahead of the agreement, want %llu\n", r, (unsigned long long)got,
            where, (unsigned long long)want);
}

static int listed(int t, const int* l, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (l[i] == t) return 1;
  return 0;
}

/* Do the readers read the block in round t?  Phase 1: every third round
 * (3, 6, ..., 18); phase 2: gaps of 1 and 3 rounds in turn (MG's pattern);
 * phase 3: no pattern. */
static int reads_in(int t) {
  static const int two[] = {20, 21, 24, 25, 28, 29, 32, 33};
  static const int three[] = {35, 36, 38, 41, 42, 45, 49};
  if (t < PHASE2) return t > 0 && t % 3 == 0;
  if (t < PHASE3) return listed(t, two, sizeof two / sizeof two[0]);
  return listed(t, three, sizeof three / sizeof three[0]);
}

static void body(int w, int nw) {
  (void)w;
  (void)nw;
  const int r = loom_rank(), n = loom_nranks();
  const int th = mr_t, T = mr_T;
#define MINE(p) ((int)((p) % (size_t)T) == th) /* this thread reads or writes page p for its rank */
  const char* proto = getenv("LOOM_PROTOCOL");
  const char* pf = getenv("LOOM_PREFETCH");
  const int hlrc = !proto || !strcmp(proto, "hlrc");
  const int expect = hlrc && loom_direct_peers() == 0 && !(pf && !strcmp(pf, "0"));
  uint64_t* a = (uint64_t*)mr_walloc((size_t)P * 4096, 0);
  const size_t W = 4096 / sizeof(uint64_t);
  mr_wbar();

  loom_stats_t s0 = stats_now(), s1 = s0, s2 = s0;
  long bad = 0;
  for (int t = 0; t < ROUNDS; t++) {
    /* Round t: rank 0 writes, a barrier, the readers read what it wrote
     * (or not), a barrier. */
    /* thread 0 reads the statistics where every thread has passed the last
     * round's barriers (rounds 19 and 34 read nothing) */
    if (t == PHASE2 && th == 0) s1 = stats_now();
    if (t == PHASE3 && th == 0) s2 = stats_now();
    if (r == 0)
      for (size_t p = 0; p < P; p++) {
        if (!MINE(p)) continue;
        a[p * W] = (uint64_t)t * 1000 + p;
        a[p * W + W - 1] = (uint64_t)t * 1000 + p + 7;
      }
    mr_wbar();
    if (r > 0 && reads_in(t))
      for (size_t p = 0; p < P; p++) {
        if (!MINE(p)) continue;
        const uint64_t want = (uint64_t)t * 1000 + p;
        if (a[p * W] != want || a[p * W + W - 1] != want + 7) {
          if (bad < 3)
            fprintf(stderr, "rank %d round %d page %zu: %llu %llu, want %llu\n", r, t, p, (unsigned long long)a[p * W],
                    (unsigned long long)a[p * W + W - 1], (unsigned long long)want);
          bad++;
        }
      }
    mr_wbar();
  }
  CHECK(bad == 0);
  if (r > 0 && th == 0) {
    const loom_stats_t s3 = stats_now();
    const uint64_t used1 = s1.prefetch_used - s0.prefetch_used, used2 = s2.prefetch_used - s1.prefetch_used;
    if (expect) {
      /* Phase 1: reads at 3, 6 and 9 learn the gap; 12, 15 and 18 come
       * from the barrier, every page of them.  Phase 2: 20, 21, 24 and 25
       * learn the two gaps; 28, 29, 32 and 33 come from the barrier. */
      CHECK(used1 >= 3 * (uint64_t)P);
      CHECK(used2 >= 3 * (uint64_t)P);
      CHECK(s3.prefetch_used <= s3.prefetched);
    } else if (loom_direct_peers() == n - 1) {
      CHECK(s3.prefetched == s0.prefetched);
    }
  }
  mr_wbar();
  mr_wfree(a);

  /* 3. Locks seen, then a block read every round, then a write under a lock. */
  enum { B = 8, LOCKED_ROUNDS = 12, LOCK = 3 };
  uint64_t* b = (uint64_t*)mr_walloc((size_t)(B + 1) * 4096, 0);
  volatile uint64_t* flag = b + (size_t)B * W; /* its own page, homed at rank 0 too */
  CHECK_OK(loom_lock(LOCK));
  CHECK_OK(loom_unlock(LOCK));
  mr_wbar();
  const loom_stats_t s4 = stats_now();
  for (int t = 0; t < LOCKED_ROUNDS; t++) {
    if (r == 0)
      for (size_t p = 0; p < B; p++)
        if (MINE(p)) b[p * W + 1] = (uint64_t)t * 10 + p;
    mr_wbar();
    if (r > 0)
      for (size_t p = 0; p < B; p++)
        if (MINE(p) && b[p * W + 1] != (uint64_t)t * 10 + p) bad++;
    mr_wbar();
  }
  CHECK(bad == 0);
  if (r > 0 && th == 0 && expect) {
    const loom_stats_t s5 = stats_now();
    CHECK(s5.prefetch_used - s4.prefetch_used >= (uint64_t)B); /* the last rounds' copies came with barriers */
  }
  if (r == 0) {
    if (th == 0) {
      CHECK_OK(loom_lock(LOCK));
      for (size_t p = 0; p < B; p++) b[p * W + 1] = 777000 + p;
      *flag = 1;
      CHECK_OK(loom_unlock(LOCK));
    }
  } else {
    for (int seen = 0; !seen;) {
      CHECK_OK(loom_lock(LOCK));
      seen = *flag == 1;
      if (seen)
        for (size_t p = 0; p < B; p++)
          if (b[p * W + 1] != 777000 + p) {
            if (bad < 3)
              fprintf(stderr, "rank %d: page %zu reads %llu after the lock, want %llu\n", r, p,
                      (unsigned long long)b[p * W + 1], (unsigned long long)(777000 + p));
            bad++;
          }
      CHECK_OK(loom_unlock(LOCK));
    }
  }
  CHECK(bad == 0);
  mr_wbar();
  mr_wfree(b);

  /* 4. Two blocks in turn, an extra barrier now and then. */
  enum { Q = 16, TURNS = 30 };
  uint64_t* c = (uint64_t*)mr_walloc((size_t)2 * Q * 4096, 0);
  mr_wbar();
  const loom_stats_t s6 = stats_now();
  for (int t = 0; t < TURNS; t++) {
    uint64_t* blk = c + (size_t)(t % 2) * Q * W;
    if (r == 0)
      for (size_t p = 0; p < Q; p++)
        if (MINE(p)) blk[p * W + 2] = (uint64_t)t * 100 + p;
    if (t > 0 && t % 10 == 0) mr_wbar(); /* the extra barrier: nothing read or written around it */
    mr_wbar();
    if (r > 0)
      for (size_t p = 0; p < Q; p++)
        if (MINE(p) && blk[p * W + 2] != (uint64_t)t * 100 + p) bad++;
  }
  CHECK(bad == 0);
  mr_wbar();
  if (r > 0 && th == 0 && expect) {
    /* Each block is read 15 times; its first three reads learn the gap. */
    const loom_stats_t s7 = stats_now();
    CHECK(s7.prefetch_used - s6.prefetch_used >= (uint64_t)(TURNS - 6) * Q);
    if (s7.prefetch_used - s6.prefetch_used < (uint64_t)(TURNS - 6) * Q)
      fprintf(stderr, "rank %d: %llu pages of the blocks came with barriers, want %d\n", r,
              (unsigned long long)(s7.prefetch_used - s6.prefetch_used), (TURNS - 6) * Q);
  }
  mr_wbar();
  mr_wfree(c);

  /* 5. Writes that reach the home late: rank 0 writes one word of every
   * page of a block in every interval (word t % 2 in round t) and the
   * others read the word it wrote in the interval before, so the block is
   * read every interval and comes with every barrier (kept asks, answered
   * after the agreement).  Three times a rank also writes into the block
   * after its reads, late in the interval (rank 0 waits in the barrier
   * meanwhile): round 45 reader 1 writes a word of a page it reads (its
   * own diff); round 60 the last rank (a third rank where there are 3 or
   * more) adds to a word with an atomic; round 75 it writes a word.  Every
   * value read must be the one written before the barrier: a page the home
   * sends before every release of the barrier is in misses them (as the
   * pushes ahead do without their veto: ARCHITECTURE.md, "Pushes ahead").
   * Where the homes are not mapped, the readers' pages must come with the
   * barriers; in a job of 2 ranks of one thread, with the home's row (the
   * slot asked repeats every barrier: predicted from the third on), but for
   * the rounds the reader wrote in. */
  enum { D = 6, LATE_ROUNDS = 90 };
  uint64_t* d = (uint64_t*)mr_walloc((size_t)D * 4096, 0);
  mr_wbar();
  const loom_stats_t s8 = stats_now();
  uint64_t extra[D][2];
  memset(extra, 0, sizeof extra);
  const int late = n - 1;
  for (int t = 0; t < LATE_ROUNDS; t++) {
    if (r == 0)
      for (size_t p = 0; p < D; p++)
        if (MINE(p)) d[p * W + (size_t)t % 2] = (uint64_t)t * 1000 + p;
    if (r > 0 && t > 0)
      for (size_t p = 0; p < D; p++) {
        if (!MINE(p)) continue;
        const uint64_t want = (uint64_t)(t - 1) * 1000 + p;
        const uint64_t x = p == 4 ? d[p * W + 9] : d[p * W + 3], y = d[p * W + 4];
        const uint64_t wx = extra[p][0], wy = extra[p][1];
        if (d[p * W + (size_t)(t - 1) % 2] != want || x != wx || y != wy) {
          if (bad < 3)
            fprintf(stderr, "rank %d round %d page %zu (late writes): %llu %llu %llu, want %llu %llu %llu\n", r, t, p,
                    (unsigned long long)d[p * W + (size_t)(t - 1) % 2], (unsigned long long)x,
                    (unsigned long long)y, (unsigned long long)want, (unsigned long long)wx, (unsigned long long)wy);
          bad++;
        }
      }
    /* the other writes, after the reads, late (by the writer's thread that
     * reads the page, so that no other thread of its rank reads it meanwhile) */
    const int writer = t == 45 ? 1 : (t == 60 || t == 75) ? late : -1;
    const size_t wpage = t == 45 ? 2 : t == 60 ? 4 : 3;
    if (writer == r && MINE(wpage)) {
      usleep(20000);
      if (t == 45) d[2 * W + 3] = 45 + 77;
      if (t == 60) CHECK_OK(loom_atomic_fetch_add(&d[4 * W + 9], 1000, NULL));
      if (t == 75) d[3 * W + 4] = 75 + 77;
    }
    if (t == 45) extra[2][0] = 45 + 77;
    if (t == 60) extra[4][0] = 1000;
    if (t == 75) extra[3][1] = 75 + 77;
    mr_wbar();
  }
  CHECK(bad == 0);
  if (r > 0 && th == 0 && expect) {
    /* Learnt in the first rounds; the writers' own pages refetched after
     * their writes: at least 60 of the 90 rounds' reads came with barriers. */
    const loom_stats_t s9 = stats_now();
    CHECK(s9.prefetch_used - s8.prefetch_used >= (uint64_t)60 * D);
    if (s9.prefetch_used - s8.prefetch_used < (uint64_t)60 * D)
      fprintf(stderr, "rank %d: %llu pages of the block came with barriers, want %d\n", r,
              (unsigned long long)(s9.prefetch_used - s8.prefetch_used), 60 * D);
    if (n == 2 && T == 1 && !(pf && !strcmp(pf, "gets"))) {
      check_ahead(r, s9.pages_ahead - s8.pages_ahead, (uint64_t)60 * D, "of the block");
    }
  }
  mr_wbar();
  mr_wfree(d);

  /* 6. A block read in every round, then no more.  While it is read its
   * pages come with the barriers, most of them installed readable at once
   * (on trust: core.cpp, install_pushed); once it is not, the protected
   * push that checks one in four finds it unread, and the pushes stop:
   * at most three open pushes, then a protected one and a late one, five
   * a page.  (Trusted for ever, a page would be pushed in every round.) */
  enum { E = 8, READING = 16, IDLE = 16 };
  uint64_t* e = (uint64_t*)mr_walloc((size_t)E * 4096, 0);
  mr_wbar();
  const loom_stats_t s10 = stats_now();
  loom_stats_t s11 = s10;
  for (int t = 0; t < READING + IDLE; t++) {
    if (t == READING && th == 0) s11 = stats_now();
    if (r == 0)
      for (size_t p = 0; p < E; p++)
        if (MINE(p)) e[p * W] = (uint64_t)t * 1000 + p;
    mr_wbar();
    if (r > 0 && t < READING)
      for (size_t p = 0; p < E; p++)
        if (MINE(p) && e[p * W] != (uint64_t)t * 1000 + p) bad++;
    mr_wbar();
  }
  CHECK(bad == 0);
  if (r > 0 && th == 0 && expect) {
    const loom_stats_t s12 = stats_now();
    const uint64_t reading = s11.prefetched - s10.prefetched, after = s12.prefetched - s11.prefetched;
    CHECK(reading >= (uint64_t)(READING - 5) * E);
    CHECK(after <= (uint64_t)5 * E);
    if (reading < (uint64_t)(READING - 5) * E || after > (uint64_t)5 * E)
      fprintf(stderr, "rank %d: %llu pages pushed while the block was read, %llu after (want >= %d, <= %d)\n", r,
              (unsigned long long)reading, (unsigned long long)after, (READING - 5) * E, 5 * E);
  }
  mr_wbar();
  mr_wfree(e);

  /* 7. In round t rank 0 writes word t % 2 of every page of a block and
   * each other rank a word of its own in every page (word 16 + rank); after
   * the barrier the others read both.  Each of their releases at that
   * barrier sends diffs into the pages the barrier pushes them, which may
   * have left the home before the diffs came: a push ahead taken there
   * must keep the reader's own word (its diffed bytes stored over the
   * pages: core.cpp, push_note_diff; without that, the word read is the
   * round before's).  At the barrier after the reads, which pushes them
   * too (the readers' writes make them read every interval), no diff is
   * in them. */
  enum { G = 4, WROTE_ROUNDS = 48 };
  uint64_t* g = (uint64_t*)mr_walloc((size_t)G * 4096, 0);
  mr_wbar();
  for (int t = 0; t < WROTE_ROUNDS; t++) {
    for (size_t p = 0; p < G; p++)
      if (MINE(p)) {
        if (r == 0) g[p * W + (size_t)t % 2] = (uint64_t)t * 1000 + p;
        else g[p * W + 16 + (size_t)r] = (uint64_t)t * 10 + (uint64_t)r;
      }
    mr_wbar();
    if (r > 0)
      for (size_t p = 0; p < G; p++)
        if (MINE(p) && (g[p * W + (size_t)t % 2] != (uint64_t)t * 1000 + p ||
                        g[p * W + 16 + (size_t)r] != (uint64_t)t * 10 + (uint64_t)r)) {
          if (bad < 3)
            fprintf(stderr, "rank %d round %d page %zu (its own writes): %llu %llu, want %llu %llu\n", r, t, p,
                    (unsigned long long)g[p * W + (size_t)t % 2], (unsigned long long)g[p * W + 16 + (size_t)r],
                    (unsigned long long)t * 1000 + p, (unsigned long long)t * 10 + (unsigned long long)r);
          bad++;
        }
    mr_wbar();
  }
  if (r == 0)
    for (size_t p = 0; p < G; p++)
      for (int q = 1; q < n && MINE(p); q++)
        if (g[p * W + 16 + (size_t)q] != (uint64_t)(WROTE_ROUNDS - 1) * 10 + (uint64_t)q) bad++;
  CHECK(bad == 0);
  mr_wbar();
  mr_wfree(g);

  /* 8. A diff made at an unlock, then the home's own write of the same word
   * under the lock, in one interval.  In a job of 2 ranks the reader's
   * pages come ahead of the agreement, sent as the home arrives, after its
   * write; a take that stored the reader's older diffed word over them (as
   * a take does with the diffs of the barrier's own release: core.cpp,
   * push_note_diff) would undo the home's write.  In every third round
   * rank 1 writes word 8 of page 1 under the lock, then rank 0, told by an
   * atomic word of another block, takes the lock after it and writes the
   * same word; after the barrier every reader reads rank 0's. */
  enum { K = 4, LOCK_ROUNDS = 30 };
  uint64_t* kb = (uint64_t*)mr_walloc((size_t)K * 4096, 0);
  uint64_t* told = (uint64_t*)mr_walloc(4096, 0);
  mr_wbar();
  const loom_stats_t s13 = stats_now();
  for (int t = 0; t < LOCK_ROUNDS; t++) {
    if (r == 0)
      for (size_t p = 0; p < K; p++)
        if (MINE(p)) kb[p * W] = (uint64_t)t * 1000 + p;
    if (t % 3 == 2 && th == 0 && r == 1) {
      CHECK_OK(loom_lock(LOCK));
      kb[1 * W + 8] = (uint64_t)t * 10 + 1;
      CHECK_OK(loom_unlock(LOCK));
      CHECK_OK(loom_atomic_store(told, (uint64_t)t));
    } else if (t % 3 == 2 && th == 0 && r == 0) {
      for (uint64_t v = 0; v != (uint64_t)t;) {
        CHECK_OK(loom_atomic_load(told, &v));
        if (v != (uint64_t)t) usleep(100);
      }
      CHECK_OK(loom_lock(LOCK));
      kb[1 * W + 8] = (uint64_t)t * 10;
      CHECK_OK(loom_unlock(LOCK));
    }
    mr_wbar();
    const uint64_t word8 = t < 2 ? 0 : (uint64_t)(t - (t - 2) % 3) * 10; /* rank 0's last write */
    if (r > 0)
      for (size_t p = 0; p < K; p++)
        if (MINE(p) && (kb[p * W] != (uint64_t)t * 1000 + p || (p == 1 && kb[W + 8] != word8))) {
          if (bad < 3)
            fprintf(stderr, "rank %d round %d page %zu (a diff at an unlock): %llu %llu, want %llu %llu\n", r, t, p,
                    (unsigned long long)kb[p * W], (unsigned long long)kb[p * W + 8],
                    (unsigned long long)t * 1000 + p, (unsigned long long)(p == 1 ? word8 : 0));
          bad++;
        }
    mr_wbar();
  }
  CHECK(bad == 0);
  if (r == 1 && th == 0 && expect && n == 2 && T == 1 && !(pf && !strcmp(pf, "gets"))) {
    /* the rounds with no unlock's diff take their pages ahead */
    const loom_stats_t s14 = stats_now();
    check_ahead(r, s14.pages_ahead - s13.pages_ahead, (uint64_t)10 * K, "in part 8");
  }
  mr_wbar();
  mr_wfree(told);
  mr_wfree(kb);

  /* 9. A barrier's diffs and the home's own writes to the same pages, the
   * writer arriving late.  In round t rank 0 writes word 0 of every page of
   * block t (their home) and arrives at once; every other rank sleeps 2 ms,
   * then writes its share of the other words of every page (all of them
   * with 2 ranks: half a megabyte of diffs, more than MPI sends before the
   * home posts its receive) and arrives.  After the barrier each writer's
   * copy is stale (the home wrote the pages) and its reads fetch them from
   * the home at once: the diffs must be there by then, and the home reads
   * every writer's words too.  (A barrier that sent the diffs with the
   * writer's row and let the writer leave before the home applied them
   * failed here across 2 hosts: docs/ARCHITECTURE.md, "Tried and not kept:
   * a barrier's diffs with its row".)  A fresh block a round: none comes
   * with a barrier. */
  enum { ROWS = 6, RB = 128 };
  uint64_t* rd = (uint64_t*)mr_walloc((size_t)ROWS * RB * 4096, 0);
  mr_wbar();
  for (int t = 0; t < ROWS; t++) {
    uint64_t* blk = rd + (size_t)t * RB * W;
    if (th == 0) {
      if (r == 0) {
        for (size_t p = 0; p < RB; p++) blk[p * W] = (uint64_t)t * 1000000 + p;
      } else {
        usleep(2000);
        for (size_t p = 0; p < RB; p++)
          for (size_t i = 1; i < W; i++)
            if ((int)((i - 1) % (size_t)(n - 1)) == r - 1) blk[p * W + i] = (uint64_t)t * 1000000 + p * 1000 + i;
      }
    }
    mr_wbar();
    if (th == 0)
      for (size_t p = 0; p < RB; p++)
        for (size_t i = 0; i < W; i++) {
          if (r > 0 && i > 0 && (int)((i - 1) % (size_t)(n - 1)) != r - 1) continue;
          const uint64_t want = i == 0 ? (uint64_t)t * 1000000 + p : (uint64_t)t * 1000000 + p * 1000 + i;
          if (blk[p * W + i] != want) {
            if (bad < 3)
              fprintf(stderr, "rank %d round %d page %zu word %zu (diffs with the row): %llu, want %llu\n", r, t, p, i,
                      (unsigned long long)blk[p * W + i], (unsigned long long)want);
            bad++;
          }
        }
    mr_wbar();
  }
  CHECK(bad == 0);
  mr_wbar();
  mr_wfree(rd);
#undef MINE
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), body);
  return mr_finish("mr_prefetch");
}
