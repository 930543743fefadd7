/* The protocols side by side, each on its own block
 * (loom_alloc_collective_protocol), whatever LOOM_PROTOCOL says:
 *  - a reader holding a copy of a page another rank rewrote (a copy in the
 *    copy-set, fetched after the home traps its writes): under
 *    erc-update it does not fault and sees the new data; under
 *    erc-invalidate and hlrc it faults once and sees the new data (hlrc
 *    with the home on another host: or none, where the barrier pushed the
 *    page readable); the same when the writer is not the home (3+ ranks);
 *  - loom_update: ranks that never touched the range read it without a
 *    fault, under every protocol for 3 pages, and (hlrc) for 4200 pages
 *    (more than a notice ring holds) and 1100 separate one-page ranges;
 *  - a page a rank is writing while others' notices arrive (a split barrier's
 *    fuzzy region) keeps this rank's writes and gains the others';
 *  - more notices than a ring holds: the holder falls back to dropping its
 *    copies, and reads are still right;
 *  - errors of the new calls.
 *
 * mr_protocols T runs T threads per rank.  The allocations and barriers
 * are thread 0's (loom_alloc_collective_protocol, the split barrier); the
 * reads and writes are every thread's, on the same pages at once: a
 * writing rank's threads each write their own words of every page, and
 * every thread of a reading rank reads every page, so the rank's fault
 * counts (read by thread 0 once its siblings are done) must be those of
 * one thread: one fault a page rewritten under hlrc and erc-invalidate,
 * none under erc-update or after loom_update.  Rank 0's loom_update calls
 * are split among its threads; in the fuzzy region every thread writes its
 * own word; every thread makes the failing calls and finds its own
 * pointer in loom_last_error. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mr.h"

#define PAGE 4096
#define WORDS (PAGE / 8)

static const loom_protocol_t kProtocols[3] = {LOOM_PROTOCOL_HLRC, LOOM_PROTOCOL_ERC_INVALIDATE,
                                              LOOM_PROTOCOL_ERC_UPDATE};

static uint64_t faults(void) {
  loom_stats_t s;
  loom_stats_get(&s);
  return s.read_faults + s.write_faults;
}

/* Pages that came with a barrier's push and were read (counted read when
 * a push installs them readable: core.cpp, install_pushed). */
static uint64_t pushed_read(void) {
  loom_stats_t s;
  loom_stats_get(&s);
  return s.prefetch_used;
}

/* A collective allocation under `proto` (-1: LOOM_PROTOCOL's) by thread 0,
 * handed to its siblings across a barrier of the rank's threads (no Loom
 * barrier: the program's barriers are those of one thread), and its free. */
static void* g_block;
static void* walloc_protocol(size_t bytes, int proto) {
  if (mr_t == 0) {
    void* p = NULL;
    CHECK_OK(proto < 0 ? loom_alloc_collective(bytes, &p)
                       : loom_alloc_collective_protocol(bytes, (loom_protocol_t)proto, &p));
    g_block = p;
  }
  mr_rbar();
  void* p = g_block;
  mr_rbar(); /* nobody overwrites it before every thread read it */
  return p;
}

/* After the threads' last touch of p (a Loom barrier, or mr_rbar). */
static void wfree(void* p) {
  mr_rbar();
  if (mr_t == 0) CHECK_OK(loom_free_collective(p));
}

/* Thread 0's count of the rank's faults, for every thread to read (after
 * mr_rbar). */
static uint64_t g_f0, g_p0;

/* Page 0 of b is homed at rank 0 and written by `writer`; every rank other
 * than the home and the writer reads it each round.  The writer's thread 0
 * writes word 0, its last thread the last word, and every thread u word
 * 16 + u; every thread of a reader reads them all. */
static void reader_after_release(loom_protocol_t proto, int writer, int rounds) {
  const int r = loom_rank(), t = mr_t, T = mr_T;
  volatile uint64_t* b = (volatile uint64_t*)walloc_protocol(4 * PAGE, proto);
  if (r == 0 && t == 0) b[0] = 1; /* first touch: rank 0 is the home */
  mr_wbar();
  const int reader = r != 0 && r != writer;
  /* The first copy is fetched while the home writes the page untrapped (nobody
   * else held it), so it lasts one interval and tells the home to trap its
   * writes again (at the home's next acquire, done by the second barrier);
   * the copy fetched after that is in the copy-set for good. */
  if (reader) CHECK(b[0] == 1);
  mr_wbar();
  mr_wbar();
  if (reader) CHECK(b[0] == 1);
  mr_wbar();
  int bad_faults = 0, bad_data = 0;
  for (int k = 0; k < rounds; k++) {
    if (reader && t == 0) g_p0 = pushed_read(); /* before the barrier that may push the page */
    if (r == writer) {
      if (t == 0) b[0] = 100 + (uint64_t)k;
      if (t == T - 1) b[WORDS - 1] = 200 + (uint64_t)k;
      b[16 + t] = 300 + (uint64_t)(k * 64 + t);
    }
    mr_wbar();
    if (reader) {
      if (t == 0) g_f0 = faults();
      mr_rbar(); /* the count before any thread reads */
      uint64_t v0 = b[0], v1 = b[WORDS - 1];
      int stale = v0 != 100 + (uint64_t)k || v1 != 200 + (uint64_t)k;
      for (int u = 0; u < T; u++) stale |= b[16 + u] != 300 + (uint64_t)(k * 64 + u);
      bad_data += stale;
      mr_rbar(); /* every thread's reads are done */
      if (t == 0) {
        /* hlrc across hosts: once the barrier's push brings the page and a
         * pushed copy was read, the push installs it readable (no fault) */
        const uint64_t df = faults() - g_f0, dp = pushed_read() - g_p0;
        const int none = proto == LOOM_PROTOCOL_ERC_UPDATE || (proto == LOOM_PROTOCOL_HLRC && df == 0 && dp > 0);
        if (df != (none ? 0u : 1u)) bad_faults++;
      }
    }
    mr_wbar();
  }
  CHECK(bad_data == 0);
  CHECK(bad_faults == 0);
  if (bad_data) fprintf(stderr, "rank %d thread %d: protocol %d writer %d: %d rounds with stale data\n", r, t, proto,
                        writer, bad_data);
  if (bad_faults) fprintf(stderr, "rank %d: protocol %d writer %d: %d rounds with the wrong fault count\n", r, proto,
                          writer, bad_faults);
  wfree((void*)b);
}

/* Nobody but rank 0 touches the range before loom_update; then everyone
 * reads it without faulting.  `pages` pages, updated as one range or, with
 * `stride` > 1, as one range of a page every `stride` pages (more separate
 * ranges than Loom keeps apart, so they are joined).  Ranges larger than a
 * notice ring (4096 entries) used to be dropped silently: the readers then
 * faulted on every page.  Rank 0's thread t writes the words i % T == t
 * (so its threads write every page at once) and updates its share of the
 * ranges (a contiguous T-th of the pages as one range, or every T-th
 * one-page range); every thread of every rank reads every word. */
static void update_call(loom_protocol_t proto, int pages, int stride) {
  const int r = loom_rank(), t = mr_t, T = mr_T;
  volatile uint64_t* b = (volatile uint64_t*)walloc_protocol((size_t)pages * PAGE, proto);
  const size_t words = (size_t)pages * WORDS;
  for (int k = 0; k < 2; k++) {
    if (r == 0) {
      for (size_t i = (size_t)t; i < words; i += (size_t)T)
        if ((i / WORDS) % stride == 0) b[i] = (uint64_t)i * 7 + (uint64_t)k;
      if (stride == 1) {
        const int p0 = pages * t / T, p1 = pages * (t + 1) / T;
        CHECK_OK(loom_update((const void*)(b + (size_t)p0 * WORDS), (size_t)(p1 - p0) * PAGE));
      } else {
        for (int p = 0; p < pages; p += stride)
          if ((p / stride) % T == t) CHECK_OK(loom_update((const void*)(b + (size_t)p * WORDS), PAGE));
      }
    }
    mr_wbar();
    if (t == 0) g_f0 = faults();
    mr_rbar(); /* the count before any thread reads */
    size_t bad = 0;
    for (size_t i = 0; i < words; i++)
      if ((i / WORDS) % stride == 0) bad += b[i] != (uint64_t)i * 7 + (uint64_t)k;
    CHECK(bad == 0);
    mr_rbar(); /* every thread's reads are done */
    if (r != 0 && t == 0) {
      const uint64_t f1 = faults();
      CHECK(f1 == g_f0);
      if (f1 != g_f0)
        fprintf(stderr, "rank %d: update_call protocol %d, %d pages stride %d, round %d: %llu faults\n", r, proto,
                pages, stride, k, (unsigned long long)(f1 - g_f0));
    }
    mr_wbar();
  }
  wfree((void*)b);
}

/* Every worker writes slot b[8 + w] before its rank arrives and b[128 + w]
 * between arrive and wait, all on one page that every rank holds. */
static void fuzzy_merge(loom_protocol_t proto) {
  const int t = mr_t, T = mr_T, n = loom_nranks();
  const int w = loom_rank() * T + t, W = n * T;
  volatile uint64_t* b = (volatile uint64_t*)walloc_protocol(PAGE, proto);
  if (w == 0) b[0] = 0;
  mr_wbar();
  int bad = 0;
  for (uint64_t k = 1; k <= 5; k++) {
    (void)b[1]; /* hold a copy */
    b[8 + w] = k;
    mr_rbar(); /* the siblings' writes before the arrive */
    if (t == 0) CHECK_OK(loom_barrier_arrive(NULL, 0));
    mr_rbar(); /* every thread writes after the arrive */
    b[128 + w] = k;
    mr_rbar();
    if (t == 0) CHECK_OK(loom_barrier_wait());
    mr_rbar();
    for (int q = 0; q < W; q++) bad += b[8 + q] != k; /* the arrive published these */
    mr_wbar();
    for (int q = 0; q < W; q++) bad += b[8 + q] != k || b[128 + q] != k;
    mr_wbar();
  }
  CHECK(bad == 0);
  if (bad) fprintf(stderr, "rank %d thread %d: fuzzy_merge protocol %d: %d words wrong\n", loom_rank(), t, proto, bad);
  wfree((void*)b);
}

/* Rank 1 holds more pages than a notice ring has entries; rank 0 (the home)
 * rewrites them all in one interval.  Rank 0's thread t first touches page
 * p when p % T == t, then writes word 3 + t of every page; every thread of
 * rank 1 reads every page. */
static void ring_overflow(loom_protocol_t proto) {
  const int r = loom_rank(), t = mr_t, T = mr_T;
  const int pages = 4200;
  volatile uint64_t* b = (volatile uint64_t*)walloc_protocol((size_t)pages * PAGE, proto);
  if (r == 0)
    for (int p = t; p < pages; p += T) b[(size_t)p * WORDS] = 1;
  mr_wbar();
  int bad = 0;
  if (r == 1)
    for (int p = 0; p < pages; p++) bad += b[(size_t)p * WORDS] != 1;
  mr_wbar();
  if (r == 0)
    for (int p = 0; p < pages; p++) b[(size_t)p * WORDS + 3 + t] = 2 + (uint64_t)(p + t);
  mr_wbar();
  if (r == 1)
    for (int p = 0; p < pages; p++) {
      bad += b[(size_t)p * WORDS] != 1;
      for (int u = 0; u < T; u++) bad += b[(size_t)p * WORDS + 3 + u] != 2 + (uint64_t)(p + u);
    }
  CHECK(bad == 0);
  if (bad) fprintf(stderr, "rank %d thread %d: ring_overflow protocol %d: %d words wrong\n", r, t, proto, bad);
  mr_wbar();
  wfree((void*)b);
}

static void body(int w, int W) {
  (void)w;
  const int n = loom_nranks(), t = mr_t;
  CHECK(W <= 120); /* fuzzy_merge's words 8 + w stay below 128 */
  CHECK(mr_T <= 16); /* reader_after_release's words 16 + t, ring_overflow's 3 + t */
  for (int i = 0; i < 3; i++) {
    reader_after_release(kProtocols[i], 0, 4);          /* the home writes */
    if (n >= 3) reader_after_release(kProtocols[i], 1, 4); /* a non-home writer's diff */
    update_call(kProtocols[i], 3, 1);
    if (i == 0) { /* the rings are the same under every protocol */
      update_call(kProtocols[i], 4200, 1); /* more pages than a ring holds */
      update_call(kProtocols[i], 2200, 2); /* 1100 separate ranges */
    }
    fuzzy_merge(kProtocols[i]);
    ring_overflow(kProtocols[i]);
  }

  /* Errors: the collective ones on thread 0, loom_update's on every thread. */
  if (t == 0) {
    void* bad = NULL;
    CHECK_ERR(loom_alloc_collective_protocol(PAGE, (loom_protocol_t)7, &bad), LOOM_ERR_INVALID);
  }
  int local = 0;
  char want[64];
  snprintf(want, sizeof want, "%p is not inside Loom memory", (void*)&local); /* this thread's stack */
  CHECK_ERR(loom_update(&local, 8), LOOM_ERR_BAD_POINTER);
  mr_rbar(); /* every sibling failed too before this thread reads its message */
  CHECK(strstr(loom_last_error(), want) != NULL);
  if (!strstr(loom_last_error(), want))
    fprintf(stderr, "rank %d thread %d: last error '%s', wanted '%s'\n", loom_rank(), t, loom_last_error(), want);
  void* p = walloc_protocol(PAGE, -1);
  CHECK_OK(loom_update(p, 0));
  CHECK_ERR(loom_update(p, 2 * PAGE), LOOM_ERR_BAD_POINTER); /* runs past the block */
  wfree(p);
  mr_rbar(); /* after thread 0 freed it */
  CHECK_ERR(loom_update(p, 8), LOOM_ERR_BAD_POINTER); /* freed */
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  mr_workers(mr_threads_arg(argc, argv), body);
  return mr_finish("mr_protocols");
}
