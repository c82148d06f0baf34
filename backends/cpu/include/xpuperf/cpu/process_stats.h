// One process's CPU time and resident memory: /proc/PID/stat, /proc/PID/status, /proc/PID/statm.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::cpu {

// The fields of /proc/PID/stat the backend uses (proc(5) field numbers in brackets).
struct ProcessStat {
  int pid = 0;                    // [1]
  std::string comm;               // [2] without the parentheses; may contain spaces and ')'
  uint64_t utime_ticks = 0;       // [14] user CPU time, clock ticks (sysconf(_SC_CLK_TCK))
  uint64_t stime_ticks = 0;       // [15] system CPU time, clock ticks
  uint64_t start_time_ticks = 0;  // [22] start after boot, clock ticks: tells a reused pid apart
};

// kParse when the line has no "(comm)" or too few / malformed fields.
Result<ProcessStat> ParseProcessStat(std::string_view text);
// The "VmRSS:" line of /proc/PID/status in bytes; nullopt when absent (kernel threads have none).
Result<std::optional<uint64_t>> ParseStatusResidentBytes(std::string_view text);
// Second field of /proc/PID/statm: resident pages.
Result<uint64_t> ParseStatmResidentPages(std::string_view text);

struct ProcessSnapshot {
  ProcessStat stat;
  uint64_t resident_bytes = 0;
};

// Reads root/proc/<pid>/stat and the RSS (status VmRSS, else statm resident × page_size_bytes).
// kNotFound ("process 1234 not found") when the process does not exist (any more).
Result<ProcessSnapshot> ReadProcessSnapshot(const std::string& root, int pid,
                                            uint64_t page_size_bytes);

}  // namespace xpuperf::cpu
