#include "xpuperf/drm/wrapping_counter.h"

namespace xpuperf::drm {

uint64_t WrappingCounter::Add(uint64_t raw) {
  if (last_) {
    if (raw >= *last_) {
      total_ += raw - *last_;
    } else if (wrap_bits_ < 64 && *last_ < (uint64_t{1} << wrap_bits_)) {
      total_ += (uint64_t{1} << wrap_bits_) - *last_ + raw;
    } else {
      total_ += raw;  // reset (driver reload): count from zero again
    }
  }
  last_ = raw;
  return total_;
}

}  // namespace xpuperf::drm
