// The timeline of a recorded job: named series (one metric on one device with its labels) and
// ticks (one sampling instant with the values read at it). Written by the recorder, read back by
// `analyze --telemetry`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/sample.h"

namespace xpuperf::record {

// Metrics the recorder derives itself (not in the core catalog): the job's process tree.
inline constexpr std::string_view kJobMemory = "job_memory_bytes";  // host RSS summed over the
                                                                    // tree, or device memory of
                                                                    // its pids (per device)
inline constexpr std::string_view kJobProcesses = "job_processes";  // processes in the tree

struct Series {
  std::string metric;
  std::string device;
  Labels labels;     // without "device"
  std::string unit;  // catalog unit ("watts", "joules", ...)
  std::string key;   // metric{device="..",domain=".."}: unique
  // The label value that names this series among the metric's series on its device ("package-0",
  // "gpu", "sw_power_cap"); empty for the device's overall value.
  std::string detail;
};

// Interns series by key. Not thread-safe.
class SeriesTable {
 public:
  // Index of the series, added when new.
  uint32_t Intern(std::string_view metric, std::string_view device, const Labels& labels);
  const Series& operator[](uint32_t index) const { return series_[index]; }
  const std::vector<Series>& all() const { return series_; }
  size_t size() const { return series_.size(); }
  // -1 when absent.
  int64_t Find(std::string_view key) const;

 private:
  std::vector<Series> series_;
  std::map<std::string, uint32_t, std::less<>> index_;
};

// The key of a series: metric{device="d",k="v",...} (labels sorted, device first).
std::string SeriesKey(std::string_view metric, std::string_view device, const Labels& labels);

struct TickValue {
  uint32_t series = 0;
  double value = 0;
};

struct Tick {
  int64_t wall_ns = 0;  // CLOCK_REALTIME, ns since the Unix epoch (aligns with profiler traces)
  int64_t mono_ns = 0;  // CLOCK_MONOTONIC (intervals)
  std::vector<TickValue> values;
};

}  // namespace xpuperf::record
