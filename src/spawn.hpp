// The fork-style start (spawn.cpp): a program written for threads -- main
// sets up shared data, then creates workers that share its globals -- runs
// on processes.  loom_start_serial starts Loom with main running on rank 0
// only; the other ranks wait, asleep, until rank 0 calls loom_spawn, which
// copies rank 0's private writable data (the program's global variables) to
// them at the same addresses and runs the worker on every rank; loom_join
// waits for the workers.  The ranks' address spaces are made identical by
// starting each process once more with address-space randomization off.
//
// The hooks below are how the rest of the API meets it.
// Thread safety: under the rank lock (threads.hpp).
#pragma once
#include <cstdint>

#include "status.hpp"

namespace loom {

// A collective call (barrier, collective allocation, checkpoint) is an
// error on rank 0 while the other ranks wait for loom_spawn: they would
// never join it.
Status spawn_check_collective(const char* fn);
// loom_finalize on rank 0 of a fork-style start: the waiting ranks are told
// to finalize too (their loom_finalize is the other half of the barrier).
void spawn_before_finalize();
// loom_lock: the first lock of each rank after a spawn with
// LOOM_SPAWN_ROOT_LAST waits for its turn (returns true: it did); once the
// lock is held, spawn_turn_done lets the next rank take its turn.
bool spawn_before_lock();
void spawn_turn_done();

}  // namespace loom
