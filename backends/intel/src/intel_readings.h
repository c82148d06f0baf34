// Internal to the Intel backend: one catalog metric of one i915/xe device per call.
#pragma once

#include <string_view>
#include <vector>

#include "intel_gpu.h"
#include "level_zero_loader.h"
#include "xpuperf/core/sample.h"
#include "xpuperf/drm/drm_clients.h"

namespace xpuperf::intel {

struct CollectContext {
  int64_t wall_ns = 0;
  int64_t monotonic_ns = 0;
  const std::vector<drm::ProcessGpuUsage>* processes = nullptr;  // this Collect's scan
  const drm::ProcessBusyTracker::Busy* busy = nullptr;
  bool first_busy_sample = true;          // the tracker had no earlier scan
  LevelZeroLoader* level_zero = nullptr;  // never null
};

Reading ReadIntelMetric(std::string_view metric, IntelGpu& gpu, const CollectContext& context);

// Catalog metrics the Intel backend maps, in catalog order.
std::vector<std::string_view> IntelMetricNames();

}  // namespace xpuperf::intel
