// The pseudo-global clock (clock.cpp).
#pragma once
#include "loom/loom.h"
#include "status.hpp"

namespace loom {

Status clock_sync(int rounds, loom_clock_t* out);
Status clock_check(int rounds, loom_clock_t* out);
double clock_global();
double clock_local();

}  // namespace loom
