#include "xpuperf/core/utc_time.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

namespace xpuperf {

std::string UtcTimestamp(int64_t wall_ns, int fraction_digits) {
  int64_t seconds = wall_ns / 1'000'000'000;
  int64_t nanos = wall_ns % 1'000'000'000;
  if (nanos < 0) {  // before 1970: the second below, and a positive fraction
    --seconds;
    nanos += 1'000'000'000;
  }
  const time_t t = static_cast<time_t>(seconds);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[40];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  fraction_digits = std::clamp(fraction_digits, 0, 9);
  if (fraction_digits == 0) return std::string(text) + "Z";
  int64_t fraction = nanos;
  for (int i = fraction_digits; i < 9; ++i) fraction /= 10;
  return fmt::format("{}.{:0{}d}Z", text, fraction, fraction_digits);
}

}  // namespace xpuperf
