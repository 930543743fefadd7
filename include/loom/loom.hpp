// Loom C++ API: a thin, header-only layer over loom.h.
//   - loom::runtime: RAII init/finalize;
//   - loom::alloc_collective<T>(n[, policy]) / alloc_collective_at<T>(n, rank) /
//     loom::alloc<T>(n): typed allocation (no boolean parameters anywhere);
//   - loom::lock_guard: RAII lock/unlock; loom::try_lock;
//   - loom::fetch_add / compare_swap / exchange / load / store: atomics,
//     overloaded for uint64_t, uint32_t, float and double words;
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

namespace detail {
inline std::size_t bytes_of(std::size_t n, std::size_t size) {
  if (size && n > static_cast<std::size_t>(-1) / size) throw std::length_error("loom: allocation size overflows size_t");
  return n * size;
}
}  // namespace detail

// n objects at one address on every rank, homed by LOOM_HOME (first touch
// unless set).
template <class T>
T* alloc_collective(std::size_t n) {
  void* p = nullptr;
  check(loom_alloc_collective(detail::bytes_of(n, sizeof(T)), &p));
  return static_cast<T*>(p);
}

// The same, homed by the given policy (first touch, cyclic or block).
template <class T>
T* alloc_collective(std::size_t n, loom_home_policy_t policy) {
  void* p = nullptr;
  check(loom_alloc_collective_policy(detail::bytes_of(n, sizeof(T)), policy, &p));
  return static_cast<T*>(p);
}

// The same, every page homed at one rank.
template <class T>
T* alloc_collective_at(std::size_t n, int home_rank) {
  void* p = nullptr;
  check(loom_alloc_collective_at(detail::bytes_of(n, sizeof(T)), home_rank, &p));
  return static_cast<T*>(p);
}

// A block under its own coherence protocol (the others follow LOOM_PROTOCOL).
template <class T>
T* alloc_collective_protocol(std::size_t n, loom_protocol_t protocol) {
  void* p = nullptr;
  check(loom_alloc_collective_protocol(detail::bytes_of(n, sizeof(T)), protocol, &p));
  return static_cast<T*>(p);
}

template <class T>
T* alloc(std::size_t n) {
  void* p = nullptr;
  check(loom_alloc(detail::bytes_of(n, sizeof(T)), &p));
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

// Take lock id if no rank holds or waits for it; true when taken (then
// unlock it with loom_unlock, or adopt it in a lock_guard-like owner).
inline bool try_lock(uint32_t id) {
  int got = 0;
  check(loom_trylock(id, &got));
  return got != 0;
}

// The atomics of one word type: the C functions, by type.
namespace detail {
template <class T>
struct atomics;
template <class T, auto Add, auto Cas, auto Xchg, auto Load, auto Store>
struct atomics_of {
  using value = T;
  static constexpr auto add = Add;
  static constexpr auto cas = Cas;
  static constexpr auto xchg = Xchg;
  static constexpr auto load = Load;
  static constexpr auto store = Store;
};
template <>
struct atomics<uint64_t> : atomics_of<uint64_t, loom_atomic_fetch_add, loom_atomic_cas, loom_atomic_exchange,
                                      loom_atomic_load, loom_atomic_store> {};
template <>
struct atomics<uint32_t> : atomics_of<uint32_t, loom_atomic_fetch_add_u32, loom_atomic_cas_u32,
                                      loom_atomic_exchange_u32, loom_atomic_load_u32, loom_atomic_store_u32> {};
template <>
struct atomics<float> : atomics_of<float, loom_atomic_fetch_add_f32, loom_atomic_cas_f32, loom_atomic_exchange_f32,
                                   loom_atomic_load_f32, loom_atomic_store_f32> {};
template <>
struct atomics<double> : atomics_of<double, loom_atomic_fetch_add_f64, loom_atomic_cas_f64, loom_atomic_exchange_f64,
                                    loom_atomic_load_f64, loom_atomic_store_f64> {};
}  // namespace detail

// The word's type decides (uint64_t, uint32_t, float, double); the value
// converts to it.
template <class T>
T fetch_add(T* a, typename detail::atomics<T>::value v) {
  T old{};
  check(detail::atomics<T>::add(a, v, &old));
  return old;
}
template <class T>
T compare_swap(T* a, typename detail::atomics<T>::value expected, typename detail::atomics<T>::value desired) {
  T old{};
  check(detail::atomics<T>::cas(a, expected, desired, &old));
  return old;
}
template <class T>
T exchange(T* a, typename detail::atomics<T>::value v) {
  T old{};
  check(detail::atomics<T>::xchg(a, v, &old));
  return old;
}
template <class T>
T load(T* a) {
  T v{};
  check(detail::atomics<T>::load(a, &v));
  return v;
}
template <class T>
void store(T* a, typename detail::atomics<T>::value v) {
  check(detail::atomics<T>::store(a, v));
}

}  // namespace loom
#endif
