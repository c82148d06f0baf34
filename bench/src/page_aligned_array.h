// Arrays whose first element starts a page, for the matrices of the oneDNN GEMM benchmark, so that
// its timing does not depend on where the heap happens to put them: glibc places a large block at
// a page + 16 bytes when it maps it, but at any 16-byte offset once an earlier free has raised its
// mmap threshold (the second point of a sweep got A at 32 and C at 48 bytes past a cache line,
// the first point and a fresh process 16). The bare-loop referee (tools/onednn_gemm_direct.cpp)
// allocates the same way. Not thread-safe; move-only.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <span>
#include <utility>

namespace xpuperf::bench {

template <class T>
class PageAlignedArray {
 public:
  static constexpr size_t kPageBytes = 4096;

  PageAlignedArray() = default;
  // count elements, each set to `fill`; throws std::bad_alloc as std::vector would.
  explicit PageAlignedArray(size_t count, T fill = T{}) : size_(count) {
    const size_t bytes = (count * sizeof(T) + kPageBytes - 1) / kPageBytes * kPageBytes;
    data_ = static_cast<T*>(std::aligned_alloc(kPageBytes, bytes == 0 ? kPageBytes : bytes));
    if (data_ == nullptr) throw std::bad_alloc();
    for (size_t i = 0; i < count; ++i) data_[i] = fill;
  }
  PageAlignedArray(PageAlignedArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  PageAlignedArray& operator=(PageAlignedArray&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~PageAlignedArray() { std::free(data_); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  operator std::span<const T>() const { return {data_, size_}; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace xpuperf::bench
