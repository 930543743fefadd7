// The time-stamp counter's calibration (src/tick_rate.hpp).  A made-up pair
// of clocks (a counter at 2.5 ticks a ns, each read advancing it) with the
// calibrating thread stopped between two reads, where a single pair of reads
// around a spin took the stop as time the counter missed; and the real pair,
// whose ratio is checked against CLOCK_MONOTONIC over a sleep.
#include "tick_rate.hpp"

#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <cmath>
#include <cstdint>

#include "unit_check.hpp"

namespace {

// A fake machine: `ns` is the true time; every read costs 30 ns; a stall of
// `stall_ns` happens once, right after the `stall_at`-th wall read, before
// the next read of either clock (the thread stopped there).
struct Fake {
  double ns = 1e9;
  long wall_reads = 0;
  long stall_at = -1;
  double stall_ns = 0;
  int stalls_left = 1;
  bool counter_stops = false;  // the counter does not run through the stall
  uint64_t ticks_off = 0;
  double wall() {
    ns += 30;
    const double w = ns * 1e-9;
    if (++wall_reads == stall_at || (stall_at == 0 && stalls_left > 0)) {
      if (stalls_left-- > 0) {
        ns += stall_ns;
        if (counter_stops) ticks_off += (uint64_t)(stall_ns * 2.5);
      }
    }
    return w;
  }
  uint64_t ticks() {
    ns += 30;
    return (uint64_t)(ns * 2.5) - ticks_off;
  }
};

double period(Fake& f) {
  return loom::tick_period([&f] { return f.wall(); }, [&f] { return f.ticks(); });
}

bool near_true(double p) { return p > 0 && std::fabs(p * 2.5e9 - 1) < 1e-3; }

double mono() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

}  // namespace

int main() {
  {  // No stall: the true period.
    Fake f;
    CHECK(near_true(period(f)));
  }
  // A 5 s stall after any one of the first 40 wall reads (inside the
  // anchors and the windows' spins): never a wrong period.
  for (long at = 1; at <= 40; at++) {
    Fake f;
    f.stall_at = at;
    f.stall_ns = 5e9;
    const double p = period(f);
    CHECK(near_true(p));
    if (!near_true(p)) std::fprintf(stderr, "  stall after wall read %ld: period %g (true %g)\n", at, p, 1 / 2.5e9);
  }
  {  // The counter stops through a stall (a paused machine whose counter is
     // not advanced): the windows disagree; the measurement is repeated.
    Fake f;
    f.stall_at = 20;
    f.stall_ns = 1e6;
    f.counter_stops = true;
    CHECK(near_true(period(f)));
  }
  {  // A stall after every wall read (a machine this loaded): the anchors
     // are all wide, the narrowest still pairs its reads; the true period.
    Fake f;
    f.stall_at = 0;
    f.stall_ns = 1e5;
    f.stalls_left = 1 << 30;
    CHECK(near_true(period(f)));
  }
#if defined(__x86_64__)
  {  // The real counter: its period converts a 200 ms sleep to 200 ms of
     // CLOCK_MONOTONIC within 1 % (0 where the counter is not usable).
    auto tsc = [] { return (uint64_t)__rdtsc(); };
    const double p = loom::tick_period(mono, tsc);
    std::printf("this machine's counter: %.4f ticks a ns\n", p > 0 ? 1e-9 / p : 0.0);
    if (p > 0) {
      const loom::TickAnchor a = loom::tick_anchor(mono, tsc);
      timespec t{0, 200000000};
      nanosleep(&t, nullptr);
      const loom::TickAnchor b = loom::tick_anchor(mono, tsc);
      CHECK(std::fabs((double)(b.ticks - a.ticks) * p / (b.wall - a.wall) - 1) < 0.01);
    }
  }
#endif
  return unit_result("tick_rate_test");
}
