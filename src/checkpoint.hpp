// Checkpoint and restart of the global memory (checkpoint.cpp).
//
// A checkpoint is taken at a barrier, when every diff is at its home and no
// copy is needed to rebuild the memory: each rank saves the home pages it
// holds, the directory entries it owns, the block protocols of the pages,
// and (rank 0) the heap table; every rank also saves the collective blocks
// in the order they were allocated.  Restart brings that back at the same
// address with the same rank count: home pages into the home copies,
// directory and heap table into the metadata; no rank holds a copy, so
// copy-sets and writer sets start empty.  The program's collective
// allocations are then answered, in order, with the saved blocks
// (api.cpp, alloc_collective): that is how a program finds its data again.
//
// Files, under the checkpoint directory: ckpt-<seq>/rank-<r>.bin, each
// written to a temporary name, synced and renamed; then rank 0 writes
// LATEST (seq, rank count, size, address) the same way and syncs the
// directory, and removes the previous ckpt-<seq-1>.  A run killed at any
// point leaves LATEST naming a complete checkpoint.
// Thread safety: under the rank lock (threads.hpp).
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "status.hpp"

namespace loom {

struct CheckpointState {
  std::vector<std::pair<uint64_t, uint64_t>> collective;  // live collective blocks {first page, pages}, in allocation order
  std::vector<std::pair<uint64_t, uint64_t>> replay;      // after a restart: the saved ones, handed out in order
  size_t replayed = 0;
  bool restarted = false;
  uint64_t seq = 0;       // the last checkpoint written or restored (0: none)
  uint64_t barriers = 0;  // loom_barrier calls, for LOOM_CHECKPOINT_EVERY
};

// Collective; a barrier included.  dir: NULL for LOOM_CHECKPOINT_DIR.
Status checkpoint_write(const char* dir);
// At loom_init with LOOM_RESTART: read LATEST (before the global range is
// reserved: it names the address), then restore (after).
Status checkpoint_plan(const char* dir, uint64_t* base, uint64_t* mem_size);
Status checkpoint_restore(const char* dir);
// The range a checkpoint's memory occupies, read from DIR/LATEST with plain
// system calls only (safe in a library constructor, before main and MPI).
bool checkpoint_peek_range(const char* dir, uint64_t* base, uint64_t* mem_size);

}  // namespace loom
