// Byte counts in error messages: "1.5 GiB", "12.0 MiB", "3.2 KiB" (binary units), "100 bytes" below
// 1 KiB.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace xpuperf {

inline std::string HumanBytes(uint64_t bytes) {
  char text[64];
  if (bytes >= (1ull << 30)) {
    std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1ull << 30));
  } else if (bytes >= (1ull << 20)) {
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1ull << 20));
  } else if (bytes >= (1ull << 10)) {
    std::snprintf(text, sizeof text, "%.1f KiB", double(bytes) / double(1ull << 10));
  } else {
    // Small sizes exactly: a 100-byte cap is "100 bytes", never "0.0 MiB".
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  }
  return text;
}

}  // namespace xpuperf
