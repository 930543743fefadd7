// Event traces (LOOM_TRACE=DIR; the format is docs/TRACE.md, the reader
// tools/loom_trace.py).  Each rank appends fixed-size records to DIR/rank<R>.lt:
// one record per Loom operation, written when the operation ends, with its
// start and duration on the rank's clock (the file's header and trailer
// carry the offsets to the global clock, measured at loom_init and at
// loom_finalize).  The gaps between records are the program's own
// computation; CPU records sample the thread's CPU clock at most every
// kTraceCpuEvery seconds so that a compute span's CPU time can be told from
// its wall time (runs with more ranks than cores).
//
// Records go to a memory buffer; a full buffer is handed over and written
// at the next synchronization (barrier, lock, unlock), never from the
// fault handler; if both buffers are full the records are counted as
// dropped (the trailer says how many).  With tracing off every hook is one
// predictable branch on trace_on().
//
// Thread safety: under the rank lock (threads.hpp), as the protocol.
#pragma once
#include <cstddef>
#include <cstdint>

#include "status.hpp"

namespace loom {

// Record types (docs/TRACE.md).  Numbers are part of the file format.
enum class Ev : uint8_t {
  Fault = 1,       // flags: 1 write; a: page; b: home | pages fetched << 32
  Barrier = 2,     // a: barrier number (1, 2, ... since loom_init); flags: 1 split barrier's arrive, 2 its wait
  Lock = 3,        // a: lock id; b: the hand-over value it got (0: none; see intervals.hpp); flags: 1 trylock that failed
  Unlock = 4,      // a: lock id; b: the hand-over value it left
  Diff = 5,        // a: page; b: bytes | runs << 32 | home << 48
  Atomic = 6,      // a: byte offset in Loom memory; b: operation (loom_atomic_*) | home << 48
  Alloc = 7,       // a: first page; b: pages | kind << 56 (1 loom_alloc, 2 collective, 3 small-block chunk)
  Free = 8,        // as Alloc
  Acquire = 9,     // a: pages dropped (invalidated); b: pages brought up to date
  Migrate = 10,    // a: pages whose homes this rank took
  Cpu = 11,        // a: the thread's CPU time, ns since the trace began; b: wall ns of the sample
  Sync = 12,       // a: offset global - rank clock, ns (signed); b: the rank's clock, ns; dur: the bound; flags: 0 init, 1 finalize
  Dropped = 13,    // a: records dropped because both buffers were full
  Pages = 14,      // a sample at each barrier, before its release: a: pages cached here, b: pages dirty
  Notice = 15,     // one sent (eager protocols, loom_update, frees): a: first page; b: pages | kind << 32 | target rank << 48
  Notices = 16,    // the notices this rank received, acted on: a: notices; b: pages dropped | pages refreshed << 32
  Run = 17,        // LOOM_TRACE_RUNS: a byte run of a diff (at its release, or at an acquire before it): a: byte offset in Loom memory; b: length | home << 48
  Reset = 18,      // loom_stats_reset: LOOM_STATS's wall time starts again here (a program's measured region)
  Prefetch = 19,   // pages a barrier brought from another host's home: a: first page; b: pages | home << 48; flags: 0 the acquire's get, 1 the push
};

struct TraceRec {
  uint64_t t0;    // start, ns since the trace's origin on the trace's clock (Sync records map it to global time)
  uint32_t dur;   // ns (saturates at 2^32-1, 4.3 s)
  uint8_t type;   // Ev
  uint8_t flags;
  uint16_t thread;  // application thread (0 until ranks run several)
  uint64_t a, b;
};
static_assert(sizeof(TraceRec) == 32, "the record size is part of the file format");

extern bool g_trace_on;
inline bool trace_on() { return g_trace_on; }
// LOOM_TRACE_RUNS (with a trace): the byte runs of every release.
extern bool g_trace_runs;
inline bool trace_runs() { return g_trace_runs; }
// LOOM_TRACE_HOMES (with LOOM_TRACE): home pages fault again after each barrier.
extern bool g_trace_homes;
inline bool trace_homes() { return g_trace_homes; }
// One Run record per changed run of page p (twin against the current copy).
void trace_page_runs(uint64_t p, const uint8_t* twin, const uint8_t* cur, int home);
// The same from the runs a release already computed for the page's diff.
void trace_run_list(uint64_t p, const uint32_t* off, const uint32_t* len, size_t n, int home);
// Writes a full buffer now (outside the fault handler only): for loops
// that record many runs in one release.
void trace_flush_full();

// loom_init (collective, after the transport and the clock): open the file,
// write the header, sync the clock.  LOOM_TRACE empty: nothing.
Status trace_start();
// loom_finalize (collective): the closing clock check, the trailer, close.
void trace_stop();
// Now, on the trace's clock (ns since its origin).
uint64_t trace_now();
// A barrier's group in its records (b): 0 for every rank, else a key of the
// member set (a hash of the sorted ranks, never 0): the same on every
// member whatever order it listed them in, so that the trace's readers
// know a subset's barriers apart and find its members (the ranks that
// recorded the key).
uint64_t trace_group_key(const int* ranks, int n, int nranks);
// Append one record (start t0 from trace_now(), ends now).  A barrier's
// number (a) is the trace's own: for every rank's barriers the count of
// them so far, for a subset's (b != 0) the count of that set's.
void trace_event(Ev type, uint64_t t0, uint64_t a, uint64_t b, uint8_t flags = 0);
// At synchronization (before its release): write a full buffer; at a
// barrier also record how many pages are cached and dirty.
void trace_sync_point(bool barrier = false);

}  // namespace loom
