// Internal to the CPU backend: process_cpu_percent and process_memory_bytes for the selected pids.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/core/sample.h"

namespace xpuperf::cpu {

// Not thread-safe.
class ProcessMonitor {
 public:
  // Takes the first CPU-time snapshot of every pid at monotonic time now_ns.
  // clock_ticks_per_second: USER_HZ of /proc/PID/stat times; page_size_bytes: statm's unit.
  ProcessMonitor(std::string root, std::vector<int> pids, uint64_t clock_ticks_per_second,
                 uint64_t page_size_bytes, int64_t now_ns);

  // CPU time per wall time since the previous call (or since construction), in percent of one core:
  // 100 * Δ(utime + stime) / clock_ticks_per_second / Δseconds.
  Reading Cpu(int64_t now_ns, int64_t wall_ns);
  // Resident set size in bytes.
  Reading Memory(int64_t wall_ns);

 private:
  struct CpuBaseline {
    uint64_t cpu_ticks = 0;
    uint64_t start_time_ticks = 0;  // a different value means the pid was reused
    int64_t taken_ns = 0;
  };

  // "no data: no process selected (use --pid)" or "no data: process 1234 not found" and the like.
  std::string NoSampleReason(const std::vector<std::string>& problems) const;

  std::string root_;
  std::vector<int> pids_;
  uint64_t clock_ticks_per_second_;
  uint64_t page_size_bytes_;
  std::map<int, CpuBaseline> baselines_;
};

}  // namespace xpuperf::cpu
