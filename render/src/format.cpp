#include "xpuperf/render/format.h"

#include <fmt/format.h>

#include <cmath>

namespace xpuperf::render {

std::string FormatHertz(double hertz) {
  if (hertz >= 1e9) return fmt::format("{:.2f} GHz", hertz / 1e9);
  if (hertz >= 1e6) return fmt::format("{:.0f} MHz", hertz / 1e6);
  return fmt::format("{:.0f} Hz", hertz);
}

std::string FormatValue(std::string_view unit, double value) {
  if (std::isnan(value)) return "n/a";
  if (unit == "bytes") return FormatBytes(value);
  if (unit == "seconds") return FormatSeconds(value);
  if (unit == "percent") return FormatPercent(value);
  if (unit == "hertz") return FormatHertz(value);
  if (unit == "watts") return fmt::format("{:.1f} W", value);
  if (unit == "joules") return fmt::format("{:.1f} J", value);
  if (unit == "celsius") return fmt::format("{:.1f} C", value);
  if (unit == "bytes_per_second") return FormatBytes(value) + "/s";
  return fmt::format("{:g}", value);
}

std::string DeviceColumn(const Device& device) {
  return device.is_partition() ? "  " + device.id : device.id;
}

}  // namespace xpuperf::render
