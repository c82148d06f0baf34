// Byte counts in error messages: "1.5 GiB" at or above 1 GiB, else "12.0 MiB" (binary units).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace xpuperf {

inline std::string HumanBytes(uint64_t bytes) {
  char text[64];
  if (bytes >= (1ull << 30)) {
    std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1ull << 30));
  } else {
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1ull << 20));
  }
  return text;
}

}  // namespace xpuperf
