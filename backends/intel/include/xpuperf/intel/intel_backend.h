// The Intel backend: GPUs driven by i915 or xe, found under /sys/class/drm, with telemetry from
// their sysfs frequency and throttle files, the driver's hwmon chip (energy, power limits,
// temperature) and per-client /proc/<pid>/fdinfo (engine busy, device memory). Device-level engine
// busy on i915 otherwise needs the i915 perf PMU (CAP_PERFMON), so it is summed from the clients,
// as nvtop does. docs/AMD-INTEL.md lists the source of each metric.
#pragma once

#include <memory>
#include <string>

#include "xpuperf/core/backend.h"
#include "xpuperf/drm/drm_clients.h"

namespace xpuperf::intel {

struct IntelBackendConfig {
  // How a /proc/<pid>/fd entry is recognised as a DRM device; tests replace it.
  drm::DrmFdTest is_drm_fd = drm::IsDrmCharacterDevice;
  // Level Zero Sysman for engine activity, memory in use and RAS: a loader path, or empty for
  // $XPUPERF_LEVEL_ZERO_LIBRARY / libze_loader.so.1, or "none".
  std::string level_zero_library;
};

// kUnavailable "no i915 or xe device under <root>/sys/class/drm" when there is none. Power and
// busy are rates: the first snapshot is taken here, values come from the next Collect.
Result<std::unique_ptr<Backend>> CreateIntelBackend(const BackendOptions& options,
                                                    const IntelBackendConfig& config = {});

void RegisterIntelBackend(BackendRegistry& registry);

}  // namespace xpuperf::intel
