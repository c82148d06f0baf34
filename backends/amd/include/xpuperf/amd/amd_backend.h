// The AMD backend: amdgpu GPUs found under /sys/class/drm and their telemetry read directly from
// the kernel's files (device sysfs, hwmon, the binary gpu_metrics table, /proc/<pid>/fdinfo), as
// the CPU backend reads /proc; no ROCm needed. docs/AMD-INTEL.md lists the source of each metric.
#pragma once

#include <memory>
#include <string>

#include "xpuperf/core/backend.h"
#include "xpuperf/drm/drm_clients.h"

namespace xpuperf::amd {

struct AmdBackendConfig {
  // How a /proc/<pid>/fd entry is recognised as a DRM device; tests replace it.
  drm::DrmFdTest is_drm_fd = drm::IsDrmCharacterDevice;
  // AMD SMI, opened only when a device lacks a file for power, temperature or energy: a path, or
  // empty for $XPUPERF_AMDSMI_LIBRARY / libamd_smi.so / /opt/rocm/lib, or "none".
  std::string amd_smi_library;
};

// kUnavailable "no amdgpu device under <root>/sys/class/drm" when there is none. Rates (XGMI
// throughput, throttle residency, per-process engine busy) need two Collect calls; the first
// snapshot is taken here.
Result<std::unique_ptr<Backend>> CreateAmdBackend(const BackendOptions& options,
                                                  const AmdBackendConfig& config = {});

void RegisterAmdBackend(BackendRegistry& registry);

}  // namespace xpuperf::amd
