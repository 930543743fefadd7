// The fuzzers' random numbers (fuzz_diff.cpp, fuzz_config.cpp): splitmix64,
// small, fast, and the same sequence everywhere for a given seed, so that a
// failure printed with its seed and iteration can be replayed.
#pragma once
#include <cstddef>
#include <cstdint>

struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return n ? (size_t)(next() % n) : 0; }
  bool chance(unsigned pct) { return below(100) < pct; }
};
