// Parsers of ipmitool's text for the BMC's power reading (`xpuperf record`'s IPMI/DCMI source).
// The text comes from another program talking to firmware, so nothing in it is trusted: each line
// is matched whole, numbers are plain decimals checked for range, and anything else is an error.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::record {

// No node draws more than this; a larger figure is a misread, not a reading (watts).
inline constexpr double kMaxBmcWatts = 100'000;
// Text longer than this is not ipmitool's answer to one power query (bytes).
inline constexpr size_t kMaxIpmitoolOutputBytes = size_t{64} * 1024;

struct BmcPowerReading {
  double watts = 0;  // DCMI: the instantaneous reading; SDR: the total (or Σ PSU input) sensor
  // DCMI only: the BMC's statistics over its own sampling period.
  std::optional<double> average_watts, minimum_watts, maximum_watts;
  std::optional<double> sampling_period_s;  // the BMC's averaging window (seconds)
  // DCMI only: the BMC's timestamp of the reading, as ipmitool printed it (the format differs
  // between ipmitool releases; used only to tell a new BMC sample from a repeated one).
  std::string bmc_timestamp;
  std::string sensors;  // SDR only: the sensors read, "PS1 Input Power + PS2 Input Power"
};

// `ipmitool dcmi power reading` (ipmitool 1.8.x: "Instantaneous power reading: 220 Watts" ...,
// "Sampling period: 00000001 Seconds.", "Power reading state is: activated"). An error when the
// instantaneous reading is missing or out of range, or the BMC says the reading is deactivated.
Result<BmcPowerReading> ParseDcmiPowerReading(std::string_view text);

// `ipmitool sdr type "Power Supply"` / `sdr type Current` rows ("PS1 Input Power | 5Fh | ok |
// 10.1 | 112 Watts"). A node total ("Pwr Consumption", "System Power", "Total Power") is taken
// alone; otherwise the PSU input sensors are summed. An error when no such sensor reads ok.
Result<BmcPowerReading> ParseSdrPowerSensors(std::string_view text);

// The first non-empty line of a text, trimmed and cut to 200 printable characters (an ipmitool
// error line quoted in a reason).
std::string FirstLine(std::string_view text);

}  // namespace xpuperf::record
