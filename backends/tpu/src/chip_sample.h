// Internal to the TPU backend: a chip's scalar sample, as the runtime and SDK readings make them.
#pragma once

#include <cstdint>

#include "xpuperf/core/device.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/sample.h"

namespace xpuperf::tpu {

inline Sample MakeSample(const Device& device, double value, int64_t wall_ns) {
  Sample s;
  s.labels.Set(labels::kDevice, device.id);
  s.timestamp_ns = wall_ns;
  s.value = value;
  return s;
}

}  // namespace xpuperf::tpu
