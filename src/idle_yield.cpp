// Open MPI's yield when idle, inside the program's blocking MPI calls only
// (idle_yield.hpp says why).  Across 2 emulated hosts, a lock taken through
// the home of a rank that waits in MPI_Recv: 127 us with Open MPI polling,
// 35 us yielding there (docs/results/issue10/openmpi_yield/); yielding for
// the whole run instead (its MCA setting) made a fetch from a computing
// home 341 us against 235, each of the protocol thread's MPI_Test calls
// handing the core to the computation.  The rma path's blocking one-sided
// calls open the guard as the program's blocking calls do (mpi_rma.cpp).
#include "idle_yield.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "threads.hpp"

namespace loom {
namespace {

std::atomic<int> g_armed{0};   // IdleYield objects armed
void (*g_turn)(bool) = nullptr;  // Open MPI's opal_progress_set_yield_when_idle
std::mutex g_mu;               // over g_blocked and the turns
int g_blocked = 0;             // YieldWhileBlocked guards open

}  // namespace

void IdleYield::start() {
  if (armed_ || std::getenv("OMPI_MCA_mpi_yield_when_idle")) return;
  const auto* on = static_cast<const bool*>(dlsym(RTLD_DEFAULT, "opal_progress_yield_when_idle"));
  auto turn = reinterpret_cast<void (*)(bool)>(dlsym(RTLD_DEFAULT, "opal_progress_set_yield_when_idle"));
  if (!on || !turn) return;
  std::lock_guard<std::mutex> hold(g_mu);
  if (*on && g_blocked == 0) return;  // Open MPI yields already (oversubscribed)
  g_turn = turn;
  g_armed.fetch_add(1, std::memory_order_relaxed);
  armed_ = true;
}

void IdleYield::stop() {
  if (!armed_) return;
  g_armed.fetch_sub(1, std::memory_order_relaxed);
  armed_ = false;
}

YieldWhileBlocked::YieldWhileBlocked() : on_(g_armed.load(std::memory_order_relaxed) > 0 && !thread_is_internal()) {
  if (!on_) return;
  std::lock_guard<std::mutex> hold(g_mu);
  if (g_blocked++ == 0) g_turn(true);
}

YieldWhileBlocked::~YieldWhileBlocked() {
  if (!on_) return;
  std::lock_guard<std::mutex> hold(g_mu);
  if (--g_blocked == 0) g_turn(false);
}

}  // namespace loom
