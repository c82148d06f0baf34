// Energy counters that wrap (hwmon energy*_input on i915/xe is a 32-bit register extended by the
// driver on some kernels only; gpu_metrics v1.0 has a 32-bit accumulator). Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>

namespace xpuperf::drm {

// Accumulates a raw monotonic counter since the first Add: a smaller value than the last one is
// a wrap at `wrap_bits` when the last value fitted in that many bits, else a reset (counted from
// the new value). Returns the total in raw units.
class WrappingCounter {
 public:
  explicit WrappingCounter(int wrap_bits = 32) : wrap_bits_(wrap_bits) {}
  uint64_t Add(uint64_t raw);
  std::optional<uint64_t> last_raw() const { return last_; }

 private:
  int wrap_bits_;
  std::optional<uint64_t> last_;
  uint64_t total_ = 0;
};

}  // namespace xpuperf::drm
