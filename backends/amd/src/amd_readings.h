// Internal to the AMD backend: one catalog metric of one amdgpu device per call, from the files
// under its device directory, its hwmon chip and this Collect's gpu_metrics table.
#pragma once

#include <string_view>
#include <vector>

#include "amd_gpu.h"
#include "amd_smi_loader.h"
#include "xpuperf/core/sample.h"
#include "xpuperf/drm/drm_clients.h"

namespace xpuperf::amd {

struct CollectContext {
  int64_t wall_ns = 0;
  int64_t monotonic_ns = 0;
  const std::vector<drm::ProcessGpuUsage>* processes = nullptr;  // this Collect's scan
  const drm::ProcessBusyTracker::Busy* busy = nullptr;
  AmdSmiLoader* smi = nullptr;  // the fallback for what the files lack; never null
};

// One catalog metric of one device: the lost check, then the metric's handler; a metric the
// backend does not map is unsupported.
Reading ReadAmdMetric(std::string_view metric, AmdGpu& gpu, const CollectContext& context);

// One metric the AMD backend reports and how it is read.
struct AmdMetric {
  std::string_view metric;
  Reading (*read)(std::string_view metric, AmdGpu& gpu, const CollectContext& context);
  bool needs_processes = false;  // the DRM clients of /proc are scanned first
};
// Every metric of the backend, in catalog order: the one place a metric is added.
const std::vector<AmdMetric>& AmdMetrics();

}  // namespace xpuperf::amd
