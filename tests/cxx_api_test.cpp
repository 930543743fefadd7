// cxx_api_test: the C++ layer (loom.hpp) over the C API, with 2+ ranks.
//
//  - loom::runtime starts Loom; a second runtime throws loom::error with
//    LOOM_ERR_ALREADY_INITIALIZED and leaves the first one working;
//  - loom::alloc_collective<double>(n) gives one zeroed array at one address,
//    and writes are shared after loom::barrier; a per-block policy homes the
//    pages as asked;
//  - increments under loom::lock_guard are exact, and the guard unlocks when
//    an exception leaves its scope;
//  - loom::fetch_add hands out every ticket exactly once; loom::compare_swap
//    has exactly one winner;
//  - failures throw loom::error carrying the status and the detailed
//    message (an out-of-range lock id, a foreign pointer).
// MPI is used only to combine results across ranks, while the runtime lives.
#include <loom/loom.hpp>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace {

long g_passed = 0, g_failed = 0;

#define CHECK(expr)                                                                             \
  do {                                                                                          \
    if (expr) ++g_passed;                                                                       \
    else {                                                                                      \
      ++g_failed;                                                                               \
      std::fprintf(stderr, "rank %d: %s:%d: CHECK failed: %s\n", loom::rank(), __FILE__, __LINE__, #expr); \
    }                                                                                           \
  } while (0)

// Run f; return the status of the loom::error it throws (LOOM_OK if none).
template <class F>
loom_status_t status_thrown(F&& f) {
  try {
    f();
  } catch (const loom::error& e) {
    return e.status();
  }
  return LOOM_OK;
}

template <class T>
bool same_on_all_ranks(T* p) {
  unsigned long long mine = reinterpret_cast<unsigned long long>(p), lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi && mine != 0;
}

void test_runtime_twice() {
  CHECK(status_thrown([] { loom::runtime again; }) == LOOM_ERR_ALREADY_INITIALIZED);
  CHECK(loom_initialized() == 1);  // the failed constructor did not finalize
  CHECK(loom::rank() >= 0);
}

void test_arrays() {
  const int me = loom::rank(), n = loom::size();
  const std::size_t count = 3000;  // several pages of doubles
  double* a = loom::alloc_collective<double>(count);
  CHECK(same_on_all_ranks(a));
  bool zero = true;
  for (std::size_t i = 0; i < count; i++) zero = zero && a[i] == 0.0;
  CHECK(zero);
  loom::barrier();
  for (std::size_t i = (std::size_t)me; i < count; i += (std::size_t)n) a[i] = 0.5 * (double)i + me;
  loom::barrier();
  bool right = true;
  for (std::size_t i = 0; i < count; i++) right = right && a[i] == 0.5 * (double)i + (double)(i % (std::size_t)n);
  CHECK(right);
  loom::barrier();
  loom::free_collective(a);

  // A per-block policy: cyclic homes page i at rank i mod n.
  const std::size_t ints = 4 * 4096 / sizeof(int);
  // (The policy is the second argument; an overload with a flag once
  // swallowed it and homed by first touch.)
  int* c = loom::alloc_collective<int>(ints, LOOM_HOME_CYCLIC);
  for (int page = 0; page < 4; page++) {
    int home = -1;
    CHECK(loom_home_of(c + page * (4096 / sizeof(int)), &home) == LOOM_OK);
    CHECK(home == page % n);
  }
  loom::barrier();
  loom::free_collective(c);

  // Every page at one rank: the last.
  int* d = loom::alloc_collective_at<int>(ints, n - 1);
  for (int page = 0; page < 4; page++) {
    int home = -1;
    CHECK(loom_home_of(d + page * (4096 / sizeof(int)), &home) == LOOM_OK);
    CHECK(home == n - 1);
  }
  loom::barrier();
  loom::free_collective(d);

  // A count whose size overflows is refused before any rank allocates.
  bool refused = false;
  try {
    (void)loom::alloc_collective<double>(static_cast<std::size_t>(-1) / 4);
  } catch (const std::length_error&) {
    refused = true;
  }
  CHECK(refused);
}

// An erc-update block and loom::update: the other rank reads the written
// array without a fault.
void test_protocol_block() {
  const int me = loom::rank();
  const std::size_t count = 2 * 4096 / sizeof(uint64_t);
  uint64_t* u = loom::alloc_collective_protocol<uint64_t>(count, LOOM_PROTOCOL_ERC_UPDATE);
  if (me == 0) {
    for (std::size_t i = 0; i < count; i++) u[i] = i * 3 + 1;
    loom::update(u, count * sizeof(uint64_t));
  }
  loom::barrier();
  loom_stats_t s0, s1;
  CHECK(loom_stats_get(&s0) == LOOM_OK);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < count; i++) bad += u[i] != i * 3 + 1;
  CHECK(loom_stats_get(&s1) == LOOM_OK);
  CHECK(bad == 0);
  CHECK(s1.read_faults == s0.read_faults);
  loom::poll();
  loom::barrier();
  loom::free_collective(u);
}

void test_lock_guard() {
  const int n = loom::size();
  const int rounds = 200;
  uint64_t* counter = loom::alloc_collective<uint64_t>(2);
  loom::barrier();
  for (int i = 0; i < rounds; i++) {
    loom::lock_guard g(3);
    counter[0] = counter[0] + 1;  // a plain read-modify-write, safe only under the lock
  }
  // The guard releases the lock when an exception leaves its scope.
  try {
    loom::lock_guard g(3);
    counter[1] += 1;
    throw std::runtime_error("leave the scope");
  } catch (const std::runtime_error&) {
  }
  CHECK(loom_lock(3) == LOOM_OK);  // not held any more, so not LOOM_ERR_BUSY
  CHECK(loom_unlock(3) == LOOM_OK);
  loom::barrier();
  CHECK(counter[0] == (uint64_t)rounds * (uint64_t)n);
  CHECK(counter[1] == (uint64_t)n);
  loom::barrier();
  loom::free_collective(counter);
}

void test_atomics() {
  const int me = loom::rank(), n = loom::size();
  const int per_rank = 100;
  uint64_t* w = loom::alloc_collective<uint64_t>(8);
  loom::barrier();

  // fetch_add: the old values over all ranks are exactly 0 .. n*per_rank-1.
  std::vector<unsigned long long> mine(per_rank), all((std::size_t)per_rank * (std::size_t)n);
  for (int i = 0; i < per_rank; i++) mine[(std::size_t)i] = loom::fetch_add(&w[0], 1);
  MPI_Allgather(mine.data(), per_rank, MPI_UNSIGNED_LONG_LONG, all.data(), per_rank, MPI_UNSIGNED_LONG_LONG,
                MPI_COMM_WORLD);
  std::sort(all.begin(), all.end());
  bool tickets = true;
  for (std::size_t i = 0; i < all.size(); i++) tickets = tickets && all[i] == i;
  CHECK(tickets);
  CHECK(std::is_sorted(mine.begin(), mine.end()));  // one rank's tickets increase
  loom::barrier();
  CHECK(w[0] == (uint64_t)per_rank * (uint64_t)n);  // ordinary load after the barrier

  // compare_swap: exactly one rank installs its id.
  uint64_t old = loom::compare_swap(&w[1], 0, (uint64_t)me + 1);
  int won = old == 0 ? 1 : 0, winners = 0;
  MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(winners == 1);
  loom::barrier();
  CHECK(w[1] >= 1 && w[1] <= (uint64_t)n);
  if (!won) CHECK(old == w[1]);  // a loser saw the winner's value
  if (won) CHECK(w[1] == (uint64_t)me + 1);
  // A failing CAS leaves the word alone.
  CHECK(loom::compare_swap(&w[1], 12345, 999) == w[1]);
  // The typed overloads and try_lock.
  float* f = reinterpret_cast<float*>(&w[2]);
  uint32_t* u = reinterpret_cast<uint32_t*>(&w[3]);
  (void)loom::fetch_add(f, 1.0f);
  (void)loom::fetch_add(u, 2);
  double* d = reinterpret_cast<double*>(&w[4]);
  (void)loom::fetch_add(d, 0.5);
  loom::barrier();
  CHECK(loom::load(f) == (float)n && loom::load(u) == 2u * (uint32_t)n && loom::load(d) == 0.5 * n);
  loom::barrier();
  if (loom::try_lock(2)) loom::check(loom_unlock(2));
  loom::barrier();
  CHECK(w[1] >= 1 && w[1] <= (uint64_t)n);
  loom::barrier();
  loom::free_collective(w);
}

void test_errors() {
  try {
    int local = 0;
    loom::free(&local);
    CHECK(false);  // must throw
  } catch (const loom::error& e) {
    CHECK(e.status() == LOOM_ERR_BAD_POINTER);
    CHECK(std::strstr(e.what(), loom_strerror(LOOM_ERR_BAD_POINTER)) != nullptr);
    CHECK(std::strstr(e.what(), "not inside Loom memory") != nullptr);
  }
  CHECK(status_thrown([] { loom::lock_guard g(1u << 30); }) == LOOM_ERR_INVALID);
  int local = 0;
  CHECK(status_thrown([&] { loom::free(&local); }) == LOOM_ERR_BAD_POINTER);
  CHECK(status_thrown([&] { (void)loom::fetch_add(reinterpret_cast<uint64_t*>(&local), 1); }) ==
        LOOM_ERR_BAD_POINTER);
  // loom::error is a std::runtime_error.
  bool as_runtime_error = false;
  try {
    loom::check(LOOM_ERR_BUSY);
  } catch (const std::runtime_error& e) {
    as_runtime_error = std::strstr(e.what(), loom_strerror(LOOM_ERR_BUSY)) != nullptr;
  }
  CHECK(as_runtime_error);
  CHECK(status_thrown([] { loom::check(LOOM_OK); }) == LOOM_OK);

  // A single-rank block from loom::alloc, freed with loom::free.  The
  // barriers keep other ranks from getting the same address from loom::alloc
  // between the free and the double free.
  long* b = loom::alloc<long>(1000);
  b[999] = 7;
  CHECK(b[999] == 7);
  loom::barrier();
  loom::free(b);
  loom::barrier();
  CHECK(status_thrown([&] { loom::free(b); }) == LOOM_ERR_BAD_POINTER);
  loom::barrier();
}

}  // namespace

int main(int argc, char** argv) {
  int rank = -1;
  long all[2] = {0, 0};
  {
    loom::runtime rt(&argc, &argv);
    rank = rt.rank();
    CHECK(rt.size() >= 1 && rt.rank() == loom::rank() && rt.size() == loom::size());
    try {
      test_runtime_twice();
      test_arrays();
      test_protocol_block();
      test_lock_guard();
      test_atomics();
      test_errors();
    } catch (const loom::error& e) {
      ++g_failed;
      std::fprintf(stderr, "rank %d: unexpected loom::error: %s\n", rank, e.what());
    }
    long mine[2] = {g_passed, g_failed};
    MPI_Allreduce(mine, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  }  // loom_finalize (and MPI_Finalize, since Loom started MPI)
  if (loom_initialized()) all[1]++;
  if (rank == 0) std::printf("cxx_api_test: %ld passed, %ld failed\n", all[0], all[1]);
  return all[1] ? 1 : 0;
}
