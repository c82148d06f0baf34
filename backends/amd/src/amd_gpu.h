// Internal to the AMD backend: one amdgpu device and the state its rate metrics keep between
// Collect calls. Not thread-safe (one thread drives a backend).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/amd/gpu_metrics.h"
#include "xpuperf/core/device.h"
#include "xpuperf/core/status.h"
#include "xpuperf/drm/drm_cards.h"
#include "xpuperf/drm/wrapping_counter.h"

namespace xpuperf::amd {

struct AmdGpu {
  drm::DrmCard card;
  Device device;
  bool lost = false;
  std::string lost_reason;

  // This Collect's gpu_metrics table (read once per Collect), or why there is none.
  Result<GpuMetrics> metrics = MakeError(ErrorCode::kNotFound, "not read yet");

  // gpu_metrics v1.0's 32-bit energy accumulator, extended across wraps.
  drm::WrappingCounter energy32{32};
  // XGMI totals (KB, read and write) and throttle residencies where they were last read.
  std::optional<int64_t> previous_xgmi_ns;
  std::optional<std::array<uint64_t, 2>> previous_xgmi_kb;
  std::optional<ThrottleResidency> previous_residency;
};

// Builds the device description from a card (model from product_name, else the PCI id table).
AmdGpu MakeAmdGpu(const drm::DrmCard& card, int index, const std::string& root);

// Reads device/gpu_metrics into gpu.metrics; marks the device lost when its directory is gone.
void RefreshAmdGpu(AmdGpu& gpu);

}  // namespace xpuperf::amd
