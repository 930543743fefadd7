// Placement files (LOOM_PLACEMENT): homes for page ranges of the program's
// collective allocations, chosen from a trace by `loom place` (the SCI
// paper's last question: place the data by its reference pattern, before
// the run).  First touch and the block policies decide homes from where a
// page is first written or from its index; a placement file decides them
// from what a traced run of the same program did.
//
// The file is text, one block per collective allocation in the order the
// program makes them (as checkpoints replay them: the same program and
// input make the same sequence):
//
//   # loom-placement 1
//   block 0 pages 1024        the first collective allocation, 1024 pages
//   0 512 1                   its pages [0, 512) homed at rank 1
//   512 512 0                 ...
//   block 2 pages 16          (blocks not named keep their policy)
//
// A block's ranges may leave pages out (they keep the policy's home).  The
// file is read at loom_init on every rank; a malformed line fails loom_init
// naming the file and line, a rank the job does not have too; an
// allocation whose size is not the file's fails naming both (the file was
// written for another run).
// Thread safety: called under the rank lock, collectively.
#pragma once
#include <cstdint>
#include <vector>

#include "status.hpp"

namespace loom {

// Reads `path` ("" clears any placement).  Ranks must be below `nranks`.
Status placement_load(const char* path, int nranks);
// The homes of the next collective allocation of `npages` pages: `homes`
// gets one entry per page (-1: the policy decides), or stays empty when
// the file names no such block.  Advances to the next allocation.
Status placement_next(uint64_t npages, std::vector<int16_t>* homes);
// Collective allocations made so far (a restart's replayed ones count).
void placement_skip();

}  // namespace loom
