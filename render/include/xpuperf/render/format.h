// Human formatting of values for tables (JSON always carries base units).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "xpuperf/core/device.h"
#include "xpuperf/core/units_text.h"

namespace xpuperf::render {

// Bytes, seconds and percentages as every component writes them (core/units_text.h).
using xpuperf::FormatBytes;
using xpuperf::FormatPercent;
using xpuperf::FormatSeconds;
using xpuperf::FormatSi;
// "2.10 GHz".
std::string FormatHertz(double hertz);
// A value in the catalog unit `unit` ("bytes", "seconds", "percent", "watts", ...).
std::string FormatValue(std::string_view unit, double value);
// A device's id for a table's first column: a MIG device indented under its GPU, which the
// backends list right before it ("nvidia0", then "  nvidia0/gi1/ci0").
std::string DeviceColumn(const Device& device);

}  // namespace xpuperf::render
