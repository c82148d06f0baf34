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

Reading ReadAmdMetric(std::string_view metric, AmdGpu& gpu, const CollectContext& context);

// Catalog metrics the AMD backend maps, in catalog order.
std::vector<std::string_view> AmdMetricNames();

}  // namespace xpuperf::amd
