// Internal to the NVIDIA backend: clock-event ("throttle") reason bits and their names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xpuperf::nvidia {

struct ClockEventReason {
  uint64_t bit;
  const char* name;  // "sw_power_cap"
};

// The reasons NVML defines (nvmlClocksEventReason* / nvmlClocksThrottleReason*), lowest bit first.
const std::vector<ClockEventReason>& ClockEventReasons();

// Names of the bits set in `mask`, lowest first; a bit NVML does not define is "bit_0x800".
std::vector<std::string> DecodeClockEvents(uint64_t mask);

}  // namespace xpuperf::nvidia
