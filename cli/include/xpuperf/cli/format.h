// Human formatting of values for tables (JSON always carries base units).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "xpuperf/core/device.h"

namespace xpuperf::cli {

// "23.41 GiB" (binary units, as memory is sized).
std::string FormatBytes(double bytes);
// "812ns", "12.3us", "4.56ms", "1.23s".
std::string FormatSeconds(double seconds);
// "2.10 GHz".
std::string FormatHertz(double hertz);
// "45.2%".
std::string FormatPercent(double percent);
// A value in the catalog unit `unit` ("bytes", "seconds", "percent", "watts", ...).
std::string FormatValue(std::string_view unit, double value);
// A device's id for a table's first column: a MIG device indented under its GPU, which the
// backends list right before it ("nvidia0", then "  nvidia0/gi1/ci0").
std::string DeviceColumn(const Device& device);

}  // namespace xpuperf::cli
