// /proc/meminfo: host memory capacity and use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::cpu {

// The fields the backend uses, in bytes (the file states kB, meaning KiB).
struct MemInfo {
  uint64_t total_bytes = 0;                 // MemTotal
  uint64_t free_bytes = 0;                  // MemFree
  std::optional<uint64_t> available_bytes;  // MemAvailable (kernel >= 3.14)
  uint64_t buffers_bytes = 0;               // Buffers
  uint64_t cached_bytes = 0;                // Cached
};

// kParse on a line that is not "Key: number [kB]" or when MemTotal is missing.
Result<MemInfo> ParseMemInfo(std::string_view text);
// Reads root/proc/meminfo.
Result<MemInfo> ReadMemInfo(const std::string& root);

// MemTotal - MemAvailable; without MemAvailable, MemTotal - MemFree - Buffers - Cached (the older
// estimate, which counts unreclaimable cache as free). Never below 0.
uint64_t UsedMemoryBytes(const MemInfo& info);

}  // namespace xpuperf::cpu
