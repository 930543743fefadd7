// The period of a tick counter (the time-stamp counter) measured against a
// wall clock (CLOCK_MONOTONIC), robust to the calibrating thread being
// stopped between two reads: preempted on a loaded machine, or its virtual
// CPU stalled by the hypervisor.  A single read of each clock around a spin
// took a stall between them as time the counter did not count, and the
// statistics and the trace ran fast by that ratio (hundreds of times over,
// seen once in CI: a 0.08 s run whose barriers summed 4.5 s).
//
// Each anchor is the narrowest of a few back-to-back reads (counter, wall,
// counter): a read the thread was stopped inside is wide and loses.  Three
// anchors a window apart give two rates; they must agree to 0.1 %, else the
// whole measurement is repeated, and after a few failures the counter is not
// used (0: the caller keeps the wall clock).  A stall inside a window is
// harmless: both clocks run through it.
//
// Header-only and generic in its two clocks, so that a unit test can feed it
// stalls (tests/tick_rate_test.cpp).
#pragma once
#include <cstdint>

namespace loom {

struct TickAnchor {
  double wall = 0;
  uint64_t ticks = 0;
  uint64_t width = UINT64_MAX;  // ticks between the two counter reads around the wall read
};

template <class Wall, class Ticks>
TickAnchor tick_anchor(Wall& wall, Ticks& ticks, int tries = 8) {
  TickAnchor best;
  for (int i = 0; i < tries; i++) {
    const uint64_t a = ticks();
    const double w = wall();
    const uint64_t b = ticks();
    if (b >= a && b - a < best.width) best = TickAnchor{w, a + (b - a) / 2, b - a};
  }
  return best;
}

// Seconds per tick, or 0 where the two clocks do not keep one ratio.
template <class Wall, class Ticks>
double tick_period(Wall wall, Ticks ticks, double window_s = 2e-3, int attempts = 5) {
  for (int k = 0; k < attempts; k++) {
    TickAnchor p[3];
    p[0] = tick_anchor(wall, ticks);
    for (int i = 1; i < 3; i++) {
      const double until = p[i - 1].wall + window_s;
      while (wall() < until) {
      }
      p[i] = tick_anchor(wall, ticks);
    }
    bool ok = true;
    double r[2];
    for (int i = 0; i < 2; i++) {
      if (p[i].width == UINT64_MAX || p[i + 1].width == UINT64_MAX || p[i + 1].ticks <= p[i].ticks ||
          p[i + 1].wall <= p[i].wall) {
        ok = false;
        break;
      }
      r[i] = (p[i + 1].wall - p[i].wall) / (double)(p[i + 1].ticks - p[i].ticks);
    }
    if (!ok) continue;
    const double d = r[0] > r[1] ? r[0] - r[1] : r[1] - r[0];
    if (d <= 1e-3 * (r[0] < r[1] ? r[0] : r[1])) return (p[2].wall - p[0].wall) / (double)(p[2].ticks - p[0].ticks);
  }
  return 0;
}

}  // namespace loom
