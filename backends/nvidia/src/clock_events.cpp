#include "clock_events.h"

#include <fmt/format.h>

namespace xpuperf::nvidia {

const std::vector<ClockEventReason>& ClockEventReasons() {
  static const std::vector<ClockEventReason> reasons = {
      {0x1, "gpu_idle"},
      {0x2, "applications_clocks_setting"},
      {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},
      {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"},
      {0x80, "hw_power_brake_slowdown"},
      {0x100, "display_clock_setting"},
      // Declared by NVIDIA's own bindings (nvidia-ml-py: nvmlClocksThrottleReasonBoardLimit and
      // ...Reliability) though not by the 13.x header's event names; found by the vendor check.
      {0x200, "board_limit"},
      {0x400, "reliability"},
  };
  return reasons;
}

std::vector<std::string> DecodeClockEvents(uint64_t mask) {
  std::vector<std::string> names;
  for (int bit = 0; bit < 64; ++bit) {
    const uint64_t value = uint64_t{1} << bit;
    if ((mask & value) == 0) continue;
    std::string name = fmt::format("bit_{:#x}", value);
    for (const ClockEventReason& reason : ClockEventReasons()) {
      if (reason.bit == value) name = reason.name;
    }
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace xpuperf::nvidia
