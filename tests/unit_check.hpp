// The standalone unit tests' one check (no framework): CHECK counts passes
// and failures and prints file:line and the expression of a failure; a
// test's main ends with unit_result(), nonzero where anything failed.
#pragma once
#include <cstdio>

inline int g_passed = 0;
inline int g_failed = 0;

#define CHECK(expr)                                                                  \
  do {                                                                               \
    if (expr) {                                                                      \
      ++g_passed;                                                                    \
    } else {                                                                         \
      ++g_failed;                                                                    \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #expr); \
    }                                                                                \
  } while (0)

inline int unit_result(const char* name) {
  std::printf("%s: %d passed, %d failed\n", name, g_passed, g_failed);
  return g_failed ? 1 : 0;
}
