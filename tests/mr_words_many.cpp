// The batched word operations of the transport (Transport::cas_many,
// or_many; load_many reads the results), on every path a mode builds: the
// words of other ranks, of ranks this one maps, and its own.
//
// The words are the directory entries of a first-touch block nobody
// touches (its pages' home words and this rank's plane of their writer
// sets).  Every rank at once:
//   1. compare-and-swaps every home word from 0 to its rank + 1, in one
//      batch, the words in a rank-dependent order: exactly one rank gets 0
//      back for each word, every other rank gets that winner's word, and
//      the word holds the winner afterwards;
//   2. ORs its bit into every writer word: afterwards each word holds every
//      rank's bit, and the old values a rank got hold no bit of its own.
// The block is freed after, which resets its entries.
#include "mr.h"
#include "protocol/protocol.hpp"
#include "runtime.hpp"

#include <vector>

using namespace loom;

namespace {
uint64_t g_first, g_n;
int g_rot;
uint64_t page_at(size_t i) { return g_first + (i + (uint64_t)g_rot) % g_n; }
void home_word(size_t i, int* r, uint64_t* off) {
  *r = (int)dir_rank(page_at(i));
  *off = dir_off(page_at(i));
}
void writer_word(size_t i, int* r, uint64_t* off) {
  *r = (int)dir_rank(page_at(i));
  *off = dir_writers_off(page_at(i), my_plane());
}
}  // namespace

int main(int argc, char** argv) {
  mr_init(&argc, &argv);
  const int r = loom_rank(), n = loom_nranks();
  const uint64_t pages = 96;
  uint8_t* block = nullptr;
  CHECK_OK(loom_alloc_collective_policy(pages * kPage, LOOM_HOME_FIRST_TOUCH, (void**)&block));
  g_first = (uint64_t)(block - rt.base) / kPage;
  g_n = pages;
  g_rot = r * 37;
  std::vector<uint64_t> old(pages), now(pages), all((size_t)n * pages);
  CHECK_OK(loom_barrier());

  rt.tp.cas_many(pages, home_word, 0, (uint64_t)r + 1, old.data());
  // Back in page order, then every rank's results side by side.
  std::vector<uint64_t> mine(pages);
  for (uint64_t i = 0; i < pages; i++) mine[(i + (uint64_t)g_rot) % pages] = old[i];
  MPI_Allgather(mine.data(), (int)pages, MPI_UINT64_T, all.data(), (int)pages, MPI_UINT64_T, MPI_COMM_WORLD);
  g_rot = 0;
  rt.tp.load_many(pages, home_word, now.data());
  size_t bad = 0;
  for (uint64_t p = 0; p < pages; p++) {
    int winners = 0, winner = -1;
    for (int q = 0; q < n; q++)
      if (all[(size_t)q * pages + p] == 0) winners++, winner = q;
    bool ok = winners == 1 && now[p] == (uint64_t)winner + 1;
    for (int q = 0; q < n && ok; q++)
      ok = q == winner || all[(size_t)q * pages + p] == (uint64_t)winner + 1;
    bad += !ok;
  }
  CHECK(bad == 0);
  if (bad) fprintf(stderr, "rank %d: %zu home words without exactly one winner\n", r, bad);
  MPI_Barrier(MPI_COMM_WORLD);

  g_rot = r * 11;
  rt.tp.or_many(pages, writer_word, my_bit(), old.data());
  size_t own = 0;
  for (uint64_t i = 0; i < pages; i++) own += (old[i] & my_bit()) != 0;
  CHECK(own == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  // Every rank's bit, in every plane's word of every page.
  std::vector<uint64_t> want((size_t)rank_planes(), 0);
  for (int q = 0; q < n; q++) want[(size_t)plane_of(q)] |= bit_of(q);
  bad = 0;
  g_rot = 0;
  rt.tp.load_many(pages, writer_word, now.data());
  for (uint64_t p = 0; p < pages; p++) bad += now[p] != want[(size_t)my_plane()];
  CHECK(bad == 0);
  if (bad) fprintf(stderr, "rank %d: %zu writer words without every rank's bit\n", r, bad);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(loom_free_collective(block));
  return mr_finish("mr_words_many");
}
