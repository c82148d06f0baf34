// How values read in tables and sentences, the one place for every component (JSON always carries
// base units).
#pragma once

#include <string>
#include <string_view>

namespace xpuperf {

// "23.41 GiB" (binary units, as memory is sized); "512 B" below 1 KiB.
std::string FormatBytes(double bytes);
// "812ns", "12.3us", "4.56ms", "1.23s".
std::string FormatSeconds(double seconds);
// A time to wait, for progress lines: "45 s" below 90 s, "12 min" below 90 min, else "1.5 h".
std::string FormatDuration(double seconds);
// "45.2%" (from a percentage, not a fraction).
std::string FormatPercent(double percent);
// Three significant digits with an SI prefix before `unit`: "1.77 GFLOP", "312 TFLOP/s".
std::string FormatSi(double value, std::string_view unit);

}  // namespace xpuperf
