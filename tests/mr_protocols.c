/* The protocols side by side, each on its own block
 * (loom_alloc_collective_protocol), whatever LOOM_PROTOCOL says:
 *  - a reader holding a copy of a page another rank rewrote (a copy in the
 *    copy-set, fetched after the home traps its writes): under
 *    erc-update it does not fault and sees the new data; under
 *    erc-invalidate and hlrc it faults once and sees the new data; the same
 *    when the writer is not the home (3+ ranks);
 *  - loom_update: ranks that never touched the range read it without a
 *    fault, under every protocol for 3 pages, and (hlrc) for 4200 pages
 *    (more than a notice ring holds) and 1100 separate one-page ranges;
 *  - a page a rank is writing while others' notices arrive (a split barrier's
 *    fuzzy region) keeps this rank's writes and gains the others';
 *  - more notices than a ring holds: the holder falls back to dropping its
 *    copies, and reads are still right;
 *  - errors of the new calls. */
#include <stdint.h>
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

/* Page 0 of b is homed at rank 0 and written by `writer`; every rank other
 * than the home and the writer reads it each round. */
static void reader_after_release(loom_protocol_t proto, int writer, int rounds) {
  const int r = loom_rank();
  volatile uint64_t* b = NULL;
  CHECK_OK(loom_alloc_collective_protocol(4 * PAGE, proto, (void**)&b));
  if (r == 0) b[0] = 1; /* first touch: rank 0 is the home */
  CHECK_OK(loom_barrier());
  const int reader = r != 0 && r != writer;
  /* The first copy is fetched while the home writes the page untrapped (nobody
   * else held it), so it lasts one interval and tells the home to trap its
   * writes again (at the home's next acquire, done by the second barrier);
   * the copy fetched after that is in the copy-set for good. */
  if (reader) CHECK(b[0] == 1);
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_barrier());
  if (reader) CHECK(b[0] == 1);
  CHECK_OK(loom_barrier());
  int bad_faults = 0, bad_data = 0;
  for (int k = 0; k < rounds; k++) {
    if (r == writer) {
      b[0] = 100 + (uint64_t)k;
      b[WORDS - 1] = 200 + (uint64_t)k;
    }
    CHECK_OK(loom_barrier());
    if (reader) {
      uint64_t f0 = faults();
      uint64_t v0 = b[0], v1 = b[WORDS - 1];
      uint64_t df = faults() - f0;
      if (v0 != 100 + (uint64_t)k || v1 != 200 + (uint64_t)k) bad_data++;
      if (df != (proto == LOOM_PROTOCOL_ERC_UPDATE ? 0u : 1u)) bad_faults++;
    }
    CHECK_OK(loom_barrier());
  }
  CHECK(bad_data == 0);
  CHECK(bad_faults == 0);
  if (bad_faults) fprintf(stderr, "rank %d: protocol %d writer %d: %d rounds with the wrong fault count\n", r, proto,
                          writer, bad_faults);
  CHECK_OK(loom_free_collective((void*)b));
}

/* Nobody but rank 0 touches the range before loom_update; then everyone
 * reads it without faulting.  `pages` pages, updated as one range or, with
 * `stride` > 1, as one range of a page every `stride` pages (more separate
 * ranges than Loom keeps apart, so they are joined).  Ranges larger than a
 * notice ring (4096 entries) used to be dropped silently: the readers then
 * faulted on every page. */
static void update_call(loom_protocol_t proto, int pages, int stride) {
  const int r = loom_rank();
  volatile uint64_t* b = NULL;
  CHECK_OK(loom_alloc_collective_protocol((size_t)pages * PAGE, proto, (void**)&b));
  const size_t words = (size_t)pages * WORDS;
  for (int k = 0; k < 2; k++) {
    if (r == 0) {
      for (size_t i = 0; i < words; i++)
        if ((i / WORDS) % stride == 0) b[i] = (uint64_t)i * 7 + (uint64_t)k;
      if (stride == 1) CHECK_OK(loom_update((const void*)b, (size_t)pages * PAGE));
      else
        for (int p = 0; p < pages; p += stride) CHECK_OK(loom_update((const void*)(b + (size_t)p * WORDS), PAGE));
    }
    CHECK_OK(loom_barrier());
    uint64_t f0 = faults();
    size_t bad = 0;
    for (size_t i = 0; i < words; i++)
      if ((i / WORDS) % stride == 0) bad += b[i] != (uint64_t)i * 7 + (uint64_t)k;
    CHECK(bad == 0);
    if (r != 0) CHECK(faults() == f0);
    if (r != 0 && faults() != f0)
      fprintf(stderr, "rank %d: update_call protocol %d, %d pages stride %d, round %d: %llu faults\n", r, proto, pages,
              stride, k, (unsigned long long)(faults() - f0));
    CHECK_OK(loom_barrier());
  }
  CHECK_OK(loom_free_collective((void*)b));
}

/* Every rank writes slot a[r] before arriving and b[r] between arrive and
 * wait, all on one page that every rank holds. */
static void fuzzy_merge(loom_protocol_t proto) {
  const int r = loom_rank(), n = loom_nranks();
  volatile uint64_t* b = NULL;
  CHECK_OK(loom_alloc_collective_protocol(PAGE, proto, (void**)&b));
  if (r == 0) b[0] = 0;
  CHECK_OK(loom_barrier());
  int bad = 0;
  for (uint64_t k = 1; k <= 5; k++) {
    (void)b[1]; /* hold a copy */
    b[8 + r] = k;
    CHECK_OK(loom_barrier_arrive(NULL, 0));
    b[128 + r] = k;
    CHECK_OK(loom_barrier_wait());
    for (int q = 0; q < n; q++) bad += b[8 + q] != k; /* the arrive published these */
    CHECK_OK(loom_barrier());
    for (int q = 0; q < n; q++) bad += b[8 + q] != k || b[128 + q] != k;
    CHECK_OK(loom_barrier());
  }
  CHECK(bad == 0);
  CHECK_OK(loom_free_collective((void*)b));
}

/* Rank 1 holds more pages than a notice ring has entries; rank 0 (the home)
 * rewrites them all in one interval. */
static void ring_overflow(loom_protocol_t proto) {
  const int r = loom_rank();
  const int pages = 4200;
  volatile uint64_t* b = NULL;
  CHECK_OK(loom_alloc_collective_protocol((size_t)pages * PAGE, proto, (void**)&b));
  if (r == 0)
    for (int p = 0; p < pages; p++) b[(size_t)p * WORDS] = 1;
  CHECK_OK(loom_barrier());
  int bad = 0;
  if (r == 1)
    for (int p = 0; p < pages; p++) bad += b[(size_t)p * WORDS] != 1;
  CHECK_OK(loom_barrier());
  if (r == 0)
    for (int p = 0; p < pages; p++) b[(size_t)p * WORDS + 3] = 2 + (uint64_t)p;
  CHECK_OK(loom_barrier());
  if (r == 1)
    for (int p = 0; p < pages; p++) bad += b[(size_t)p * WORDS] != 1 || b[(size_t)p * WORDS + 3] != 2 + (uint64_t)p;
  CHECK(bad == 0);
  CHECK_OK(loom_barrier());
  CHECK_OK(loom_free_collective((void*)b));
}

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int n = loom_nranks();
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

  /* Errors. */
  void* p = NULL;
  CHECK_ERR(loom_alloc_collective_protocol(PAGE, (loom_protocol_t)7, &p), LOOM_ERR_INVALID);
  int local = 0;
  CHECK_ERR(loom_update(&local, 8), LOOM_ERR_BAD_POINTER);
  CHECK_OK(loom_alloc_collective(PAGE, &p));
  CHECK_OK(loom_update(p, 0));
  CHECK_ERR(loom_update(p, 2 * PAGE), LOOM_ERR_BAD_POINTER); /* runs past the block */
  CHECK_OK(loom_free_collective(p));
  CHECK_ERR(loom_update(p, 8), LOOM_ERR_BAD_POINTER); /* freed */
  return mr_finish("mr_protocols");
}
