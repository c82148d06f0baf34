// Wall-clock times as text: ISO 8601 / RFC 3339 in UTC, the one form every file and line uses.
#pragma once

#include <cstdint>
#include <string>

namespace xpuperf {

// "2026-12-07T04:45:12Z" (fraction_digits 0), "2026-12-07T04:45:12.123Z" (3), up to 9 digits.
std::string UtcTimestamp(int64_t wall_ns, int fraction_digits = 0);

}  // namespace xpuperf
