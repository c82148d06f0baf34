// The TPU backend's tests: one reading of a Collect, by metric and device.
#pragma once

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "xpuperf/core/sample.h"

namespace xpuperf::tpu::testing {

// The reading, or a test failure and an empty reading.
inline const Reading& Find(const std::vector<Reading>& readings, std::string_view metric,
                           std::string_view device) {
  for (const Reading& r : readings) {
    if (r.metric == metric && r.device == device) return r;
  }
  ADD_FAILURE() << "no reading " << metric << " " << device;
  static const Reading kNone;
  return kNone;
}

}  // namespace xpuperf::tpu::testing
