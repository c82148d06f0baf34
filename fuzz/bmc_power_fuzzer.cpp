// libFuzzer target for the parsers of ipmitool's power output (`xpuperf record`'s BMC source reads
// text another program got from firmware): any bytes give a reading in range or an error, never
// a crash. The first byte selects the parser: even = `dcmi power reading`, odd = `sdr type`.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "xpuperf/record/bmc_power_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xpuperf::record;
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto reading = data[0] % 2 == 0 ? ParseDcmiPowerReading(text) : ParseSdrPowerSensors(text);
  (void)FirstLine(text);
  if (!reading.ok()) return 0;
  // What is accepted is a figure a node can draw.
  if (!(reading->watts >= 0 && reading->watts <= kMaxBmcWatts)) std::abort();
  for (const auto& statistic :
       {reading->average_watts, reading->minimum_watts, reading->maximum_watts}) {
    if (statistic && !(*statistic >= 0 && *statistic <= kMaxBmcWatts)) std::abort();
  }
  if (reading->sampling_period_s && !(*reading->sampling_period_s >= 0)) std::abort();
  return 0;
}
