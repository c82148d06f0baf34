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

// One catalog metric of one device: the lost check, then the metric's handler; a metric the
// backend does not map is unsupported.
Reading ReadIntelMetric(std::string_view metric, IntelGpu& gpu, const CollectContext& context);

// One metric the Intel backend reports and how it is read.
struct IntelMetric {
  std::string_view metric;
  Reading (*read)(std::string_view metric, IntelGpu& gpu, const CollectContext& context);
  bool needs_clients = false;  // the DRM clients of /proc are scanned first (busy rates)
};
// Every metric of the backend, in catalog order: the one place a metric is added.
const std::vector<IntelMetric>& IntelMetrics();

}  // namespace xpuperf::intel
