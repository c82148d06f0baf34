// Human formatting of values for tables (JSON always carries base units).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

}  // namespace xpuperf::cli
