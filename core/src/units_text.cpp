#include "xpuperf/core/units_text.h"

#include <fmt/format.h>

#include <cmath>

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

std::string FormatPercent(double percent) { return fmt::format("{:.1f}%", percent); }

}  // namespace xpuperf
