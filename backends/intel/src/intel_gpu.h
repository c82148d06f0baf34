// Internal to the Intel backend: one i915/xe device and the state its rates keep between
// Collect calls. Not thread-safe (one thread drives a backend).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "intel_sysfs.h"
#include "xpuperf/core/device.h"
#include "xpuperf/drm/drm_cards.h"
#include "xpuperf/drm/wrapping_counter.h"

namespace xpuperf::intel {

struct EnergyDomain {
  std::string domain;  // energyN_label ("card", "pkg"), else "gpu"
  std::string file;    // <hwmon>/energyN_input, µJ
  drm::WrappingCounter counter{32};
  std::optional<uint64_t> first_raw;
  // The accumulated µJ and monotonic ns where power was last computed.
  std::optional<std::pair<uint64_t, int64_t>> previous_power_point;
};

struct IntelGpu {
  drm::DrmCard card;
  Device device;
  std::vector<IntelGt> gts;
  std::vector<EnergyDomain> energy;
  bool lost = false;
  std::string lost_reason;
};

IntelGpu MakeIntelGpu(const drm::DrmCard& card, int index);

// Marks the device lost when its directory is gone.
void CheckIntelGpu(IntelGpu& gpu);

}  // namespace xpuperf::intel
