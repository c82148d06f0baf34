// The GTs (graphics tiles' engines and their clock domains) of an i915 or xe card, from sysfs:
//   i915: cardN/gt/gtM/rps_act_freq_mhz and throttle_reason_* (older kernels:
//   cardN/gt_act_freq_mhz) xe:   cardN/device/tileT/gtM/freq0/act_freq and
//   freq0/throttle/{status,reason_*}
// Frequencies are MHz in the files; act_freq reads 0 while the GT sleeps (RC6).
#pragma once

#include <string>
#include <vector>

#include "xpuperf/drm/drm_cards.h"

namespace xpuperf::intel {

struct IntelGt {
  int id = 0;                 // M of gtM (xe numbers GTs across tiles)
  std::string act_freq_file;  // actual frequency, MHz
  std::string max_freq_file;
  std::string throttle_dir;     // holds the status and reason files; empty when absent
  std::string throttle_prefix;  // "throttle_reason_" (i915) or "reason_" (xe)
  std::string status_file;      // throttle_reason_status (i915) or status (xe)
};

std::vector<IntelGt> ListIntelGts(const drm::DrmCard& card);

// Throttle reasons the kernels define, in the order they are reported.
inline constexpr const char* kIntelThrottleReasons[] = {
    "pl1", "pl2", "pl4", "thermal", "prochot", "ratl", "vr_thermalert", "vr_tdc"};

// A marketing name for well-known PCI device ids of Intel GPUs; empty when unknown.
std::string_view IntelModelName(uint32_t device_id);

}  // namespace xpuperf::intel
