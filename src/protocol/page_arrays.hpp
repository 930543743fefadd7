// Per-page arrays that cost no resident memory until written (the page
// table's, and migration's, adaptation's and exact invalidation's per-page
// state): a rank's tables grow with the pages it touches, not with
// LOOM_MEM_SIZE.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace loom {

// A zeroed per-page array that costs no resident memory until written: its
// own anonymous mapping, whose pages the kernel supplies zeroed on first
// touch (not calloc, which may memset a block from the heap once glibc's
// mmap threshold has grown).  A 64 GiB global memory is 16 M pages: the
// per-page tables filled at init cost each rank 17 bytes a page (286 MB
// resident, 0.17 s of init, measured 2026-12-07) before; now a rank pays
// for the pages it touches (docs/RELIABILITY.md).
template <typename T>
class ZeroArray {
 public:
  ZeroArray() = default;
  ZeroArray(const ZeroArray&) = delete;
  ZeroArray& operator=(const ZeroArray&) = delete;
  ZeroArray(ZeroArray&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr, o.n_ = 0; }
  ZeroArray& operator=(ZeroArray&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  ~ZeroArray() { reset(); }
  // n zeroed elements (0: none, the memory given back).  False when the
  // memory could not be had (the array is then empty).
  bool assign(uint64_t n) {
    reset();
    if (!n) return true;
    void* m = mmap(nullptr, bytes(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return false;
    p_ = static_cast<T*>(m);
    n_ = n;
    return true;
  }
  void reset() {
    if (p_) munmap(p_, bytes(n_));
    p_ = nullptr;
    n_ = 0;
  }
  uint64_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T& operator[](uint64_t i) { return p_[i]; }
  const T& operator[](uint64_t i) const { return p_[i]; }
  // Element i becomes v, written only if it differs: setting a range that
  // was never touched to its zero value touches nothing (a read of an
  // untouched page maps the kernel's zero page).
  void put(uint64_t i, T v) {
    if (p_[i] != v) p_[i] = v;
  }

 private:
  static size_t bytes(uint64_t n) { return (size_t)((n * sizeof(T) + 4095) / 4096 * 4096); }
  T* p_ = nullptr;
  uint64_t n_ = 0;
};

// A per-page array whose every element starts at `fill` and costs no
// resident memory until written: it keeps each value xor `fill`, so that
// the zero pages of a ZeroArray read as `fill` (the home table's -1,
// "unknown", the block protocol LOOM_PROTOCOL set, the heap check's ~0).
// An element reads as T and is assigned through a small reference object:
// `T x = a[p]` and `a[p] = v` work; bind a copy, not `auto`, where the
// value must not follow later writes.
template <typename T>
class FillArray {
 public:
  class Ref {
   public:
    operator T() const { return (T)(*p_ ^ fill_); }
    Ref& operator=(T v) {  // written only if it differs (ZeroArray::put)
      const T s = (T)(v ^ fill_);
      if (*p_ != s) *p_ = s;
      return *this;
    }
    Ref& operator=(const Ref& o) { return *this = (T)o; }

   private:
    friend class FillArray;
    Ref(T* p, T fill) : p_(p), fill_(fill) {}
    T* p_;
    T fill_;
  };
  bool assign(uint64_t n, T fill) {
    fill_ = fill;
    return raw_.assign(n);
  }
  void reset() { raw_.reset(); }
  uint64_t size() const { return raw_.size(); }
  Ref operator[](uint64_t i) { return Ref(&raw_[i], fill_); }
  T operator[](uint64_t i) const { return (T)(raw_[i] ^ fill_); }

 private:
  ZeroArray<T> raw_;
  T fill_ = 0;
};

}  // namespace loom
