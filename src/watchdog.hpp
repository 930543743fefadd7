// The hang watchdog (watchdog.cpp): with LOOM_HANG_TIMEOUT=T, a rank that
// has waited T seconds in one Loom wait loop (a barrier, a lock, a group
// barrier, the clock's ping-pong) reports what it waits in, asks every other
// rank to report too, and ends the job: a deadlock in the program (a
// collective one rank never calls, a barrier while holding a lock another
// rank waits for) becomes an error with a diagnosis instead of a silent hang.
// Off by default (0): a long wait can be legitimate (a rank doing I/O).
//
// What a rank waits in is a WaitSite set by the sync code just before it
// spins (sync.cpp, clock.cpp); spin_until (runtime.hpp) calls watchdog_poll
// every few hundred polls while it waits.
// Thread safety: under the rank lock (threads.hpp).
#pragma once
#include <cstdint>

namespace loom {

struct WaitSite {
  const char* what = "a wait";  // e.g. "a barrier", "lock"
  int64_t id = -1;              // lock id, or -1
  int peer = -1;                // the rank whose action ends the wait, if known
};

// The wait the application thread is in (or was last in).
extern WaitSite g_wait;
inline void wait_site(const char* what, int64_t id = -1, int peer = -1) { g_wait = WaitSite{what, id, peer}; }

// Called by spin_until while it waits, with the wait's start (now()).
// Reports this rank's wait when another rank asked; past LOOM_HANG_TIMEOUT,
// reports, asks the others, and aborts the job (does not return).
void watchdog_poll(double started);

}  // namespace loom
