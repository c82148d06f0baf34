#include "xpuperf/core/units_text.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

namespace xpuperf {

std::string FormatBytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  while (std::fabs(bytes) >= 1024 && unit < 5) {
    bytes /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.2f} {}", bytes, kUnits[unit]);
}

std::string FormatSeconds(double seconds) {
  const double abs = std::fabs(seconds);
  if (abs < 1e-6) return fmt::format("{:.0f}ns", seconds * 1e9);
  if (abs < 1e-3) return fmt::format("{:.3g}us", seconds * 1e6);
  if (abs < 1) return fmt::format("{:.3g}ms", seconds * 1e3);
  return fmt::format("{:.3g}s", seconds);
}

std::string FormatDuration(double seconds) {
  if (seconds < 90) return fmt::format("{:.0f} s", seconds);
  if (seconds < 5400) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

std::string FormatPercent(double percent) { return fmt::format("{:.1f}%", percent); }

std::string FormatSi(double value, std::string_view unit) {
  if (!std::isfinite(value)) return fmt::format("NaN {}", unit);
  static constexpr std::pair<double, const char*> kPrefixes[] = {
      {1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& [scale, prefix] : kPrefixes) {
    if (std::fabs(value) >= scale) return fmt::format("{:.3g} {}{}", value / scale, prefix, unit);
  }
  return fmt::format("{:.3g} {}", value, unit);
}

}  // namespace xpuperf
