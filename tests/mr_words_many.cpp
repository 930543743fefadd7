// The batched word operations of the transport (Transport::words), on
// every path a mode builds: the words of other ranks, of ranks this one
// maps, and its own.
//
// The words are the directory entries of a first-touch block nobody
// touches (its pages' home words and this rank's plane of their writer
// sets).  Every rank at once, in one batch of three groups (the words in a
// rank-dependent order, one group empty):
//   1. compare-and-swaps every home word from 0 to its rank + 1: exactly
//      one rank gets 0 back for each word, every other rank gets that
//      winner's word, and the word holds the winner afterwards;
//   2. ORs its bit into every writer word: afterwards each word holds every
//      rank's bit, and the old values a rank got hold no bit of its own.
// A second batch of load groups reads both back, one of them every home
// word again and again, 25,000 words (more than a request message holds:
// the async path splits them).  The block is freed after, which resets
// its entries.
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
void home_word_again(size_t i, int* r, uint64_t* off) { home_word(i % g_n, r, off); }
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

  uint64_t none = 0;
  std::vector<uint64_t> ored(pages), bits(pages);
  const WordGroup batch[3] = {{WordOp::Cas, pages, home_word, 0, (uint64_t)r + 1, old.data()},
                              {WordOp::Load, 0, home_word, 0, 0, &none},
                              {WordOp::Or, pages, writer_word, my_bit(), 0, ored.data()}};
  rt.tp.words(batch, 3);
  // Back in page order, then every rank's results side by side.
  std::vector<uint64_t> mine(pages);
  for (uint64_t i = 0; i < pages; i++) mine[(i + (uint64_t)g_rot) % pages] = old[i];
  MPI_Allgather(mine.data(), (int)pages, MPI_UINT64_T, all.data(), (int)pages, MPI_UINT64_T, MPI_COMM_WORLD);
  size_t own = 0;
  for (uint64_t i = 0; i < pages; i++) own += (ored[i] & my_bit()) != 0;
  CHECK(own == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  g_rot = 0;
  const size_t many = 25000;
  std::vector<uint64_t> again(many);
  const WordGroup reads[3] = {{WordOp::Load, pages, home_word, 0, 0, now.data()},
                              {WordOp::Load, many, home_word_again, 0, 0, again.data()},
                              {WordOp::Load, pages, writer_word, 0, 0, bits.data()}};
  rt.tp.words(reads, 3);
  size_t differ = 0;
  for (size_t i = 0; i < many; i++) differ += again[i] != now[i % pages];
  CHECK(differ == 0);
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
  // Every rank's bit, in every plane's word of every page.
  std::vector<uint64_t> want((size_t)rank_planes(), 0);
  for (int q = 0; q < n; q++) want[(size_t)plane_of(q)] |= bit_of(q);
  bad = 0;
  for (uint64_t p = 0; p < pages; p++) bad += bits[p] != want[(size_t)my_plane()];
  CHECK(bad == 0);
  if (bad) fprintf(stderr, "rank %d: %zu writer words without every rank's bit\n", r, bad);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(loom_free_collective(block));
  return mr_finish("mr_words_many");
}
