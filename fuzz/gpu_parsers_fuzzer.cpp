// libFuzzer target for the GPU backends' parsers of kernel files: the amdgpu gpu_metrics binary
// table, DRM fdinfo text, amdgpu RAS counts and DPM level lists, and health's reader of the kernel
// log's XID records (whose text carries process names users choose) and PCI addresses. The first
// input byte picks the parser, the rest is its input. Each must return a value or an error, never
// crash or hang. Build and run: scripts/fuzz.sh [SECONDS] gpu
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "xpuperf/amd/amd_sysfs.h"
#include "xpuperf/amd/gpu_metrics.h"
#include "xpuperf/drm/fdinfo.h"
#include "xpuperf/health/kernel_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::span<const uint8_t> bytes(data + 1, size - 1);
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0: {
      auto metrics = xpuperf::amd::DecodeGpuMetrics(bytes);
      if (metrics.ok()) (void)metrics->revision();
      break;
    }
    case 1: {
      auto usage = xpuperf::drm::ParseDrmFdinfo(text);
      if (usage.ok()) (void)xpuperf::drm::DeviceMemoryBytes(*usage);
      break;
    }
    case 2:
      (void)xpuperf::amd::ParseRasErrorCount(text);
      break;
    case 3:
      (void)xpuperf::amd::ParseCurrentDpmLevelMhz(text);
      break;
    case 4:
      for (const auto& event : xpuperf::health::ParseKernelLog(text))
        (void)xpuperf::health::NormalizeBusId(event.bus_id);
      (void)xpuperf::health::NormalizeBusId(text);
      break;
  }
  return 0;
}
