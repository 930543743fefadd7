// The spin phase of Loom's wait loops (src/spin.hpp): it keeps the core for
// at most LOOM_SPIN polls, and for no longer than LOOM_SPIN x 50 ns however
// slow each poll is (a poll that calls MPI takes microseconds); with
// LOOM_SPIN=0 it never keeps the core.  Only bounds are asserted: a stall of
// the machine may end a phase early, never late.
#include "spin.hpp"

#include <time.h>

#include "unit_check.hpp"

namespace {

int kept_polls(int spin, long poll_ns) {
  loom::SpinPhase phase(spin);
  int kept = 0;
  for (int i = 0; i < 10 * spin + 10; i++) {
    if (!phase.keep()) break;
    kept++;
    if (poll_ns) {
      timespec t{0, poll_ns};
      nanosleep(&t, nullptr);
    }
  }
  // Once given up, the core is given up on every later poll.
  for (int i = 0; i < 5; i++) CHECK(!phase.keep());
  return kept;
}

}  // namespace

int main() {
  CHECK(kept_polls(0, 0) == 0);
  const int fast = kept_polls(50, 0);
  CHECK(fast >= 1 && fast <= 50);  // at most LOOM_SPIN polls
  // Polls of 100 us against a budget of 2.5 us: the first poll's clock read
  // is inside the budget, the next is past it.
  CHECK(kept_polls(50, 100000) <= 1);
  // A budget of 100 ms (LOOM_SPIN 2,000,000) with polls of 1 ms: about 100
  // polls, never the count.
  const int slow = kept_polls(2000000, 1000000);
  CHECK(slow >= 1 && slow <= 101);
  return unit_result("spin_test");
}
