// Loom C++ API: a thin, header-only layer over loom.h.
//   - loom::runtime: RAII init/finalize;
//   - loom::alloc_collective<T>(n) / loom::alloc<T>(n): typed allocation;
//   - loom::lock_guard: RAII lock/unlock;
//   - loom::error: the exception these helpers throw on a non-OK status (it
//     carries the status and the detailed message).  Exceptions are thrown in
//     the caller's code only; none crosses the C library.
// Thread safety: as loom.h (one application thread per process).
#ifndef LOOM_LOOM_HPP
#define LOOM_LOOM_HPP

#include <loom/loom.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace loom {

class error : public std::runtime_error {
 public:
  explicit error(loom_status_t s)
      : std::runtime_error(std::string(loom_strerror(s)) + ": " + loom_last_error()), status_(s) {}
  loom_status_t status() const noexcept { return status_; }

 private:
  loom_status_t status_;
};

inline void check(loom_status_t s) {
  if (s != LOOM_OK) throw error(s);
}

class runtime {
 public:
  runtime(int* argc, char*** argv, const loom_config_t* cfg = nullptr) { check(loom_init(argc, argv, cfg)); }
  runtime() : runtime(nullptr, nullptr) {}
  ~runtime() { (void)loom_finalize(); }
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;
  int rank() const { return loom_rank(); }
  int size() const { return loom_nranks(); }
};

template <class T>
T* alloc_collective(std::size_t n, loom_home_policy_t policy = LOOM_HOME_FIRST_TOUCH, bool use_default = true) {
  void* p = nullptr;
  check(use_default ? loom_alloc_collective(n * sizeof(T), &p) : loom_alloc_collective_policy(n * sizeof(T), policy, &p));
  return static_cast<T*>(p);
}

// A block under its own coherence protocol (the others follow LOOM_PROTOCOL).
template <class T>
T* alloc_collective_protocol(std::size_t n, loom_protocol_t protocol) {
  void* p = nullptr;
  check(loom_alloc_collective_protocol(n * sizeof(T), protocol, &p));
  return static_cast<T*>(p);
}

template <class T>
T* alloc(std::size_t n) {
  void* p = nullptr;
  check(loom_alloc(n * sizeof(T), &p));
  return static_cast<T*>(p);
}

inline void free(void* p) { check(loom_free(p)); }
inline void free_collective(void* p) { check(loom_free_collective(p)); }
inline void barrier() { check(loom_barrier()); }
inline void update(const void* p, std::size_t len) { check(loom_update(p, len)); }
inline void poll() { check(loom_poll()); }
inline int rank() { return loom_rank(); }
inline int size() { return loom_nranks(); }
inline double wtime() { return loom_wtime(); }

class lock_guard {
 public:
  explicit lock_guard(uint32_t id) : id_(id) { check(loom_lock(id)); }
  ~lock_guard() { (void)loom_unlock(id_); }
  lock_guard(const lock_guard&) = delete;
  lock_guard& operator=(const lock_guard&) = delete;

 private:
  uint32_t id_;
};

inline uint64_t fetch_add(uint64_t* a, uint64_t v) {
  uint64_t old = 0;
  check(loom_atomic_fetch_add(a, v, &old));
  return old;
}
inline uint64_t compare_swap(uint64_t* a, uint64_t expected, uint64_t desired) {
  uint64_t old = 0;
  check(loom_atomic_cas(a, expected, desired, &old));
  return old;
}

}  // namespace loom
#endif
