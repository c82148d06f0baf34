// Internal: a dense host array of a PJRT element type, for inputs and for reading results back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "xpuperf/pjrt/element_type.h"

namespace xpuperf::pjrt_bench {

class HostArray {
 public:
  HostArray(pjrt::ElementType type, size_t count)
      : type_(type), count_(count), bytes_(count * pjrt::ElementBytes(type)) {}

  // Uniform values in [-1, 1] for floating types (rounded to the type), integers in [-8, 8] for
  // integer types, from a fixed-seed generator: the same seed gives the same array.
  void FillRandom(uint64_t seed);
  // Element i = pattern(i), rounded to the type.
  template <typename F>
  void Fill(F pattern) {
    for (size_t i = 0; i < count_; ++i) Set(i, pattern(i));
  }

  double At(size_t i) const {
    return pjrt::LoadElement(type_, bytes_.data() + i * element_bytes());
  }
  void Set(size_t i, double value) {
    pjrt::StoreElement(type_, value, bytes_.data() + i * element_bytes());
  }

  pjrt::ElementType type() const { return type_; }
  size_t count() const { return count_; }
  size_t size_bytes() const { return bytes_.size(); }
  size_t element_bytes() const { return pjrt::ElementBytes(type_); }
  void* data() { return bytes_.data(); }
  const void* data() const { return bytes_.data(); }

 private:
  pjrt::ElementType type_;
  size_t count_;
  std::vector<uint8_t> bytes_;
};

}  // namespace xpuperf::pjrt_bench
