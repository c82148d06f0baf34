// Internal to the CPU backend: building readings for the one host device, and the metrics that need
// no state between Collect calls.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/sample.h"
#include "xpuperf/core/status.h"
#include "xpuperf/cpu/hwmon.h"
#include "xpuperf/cpu/meminfo.h"
#include "xpuperf/cpu/proc_stat.h"

namespace xpuperf::cpu {

// The CPU backend reports the whole host as one device.
inline constexpr std::string_view kCpuDeviceId = "cpu0";

// A kOk reading for cpu0 without samples yet.
Reading OkReading(std::string_view metric);
// A sample labelled device="cpu0" plus `labels`, stamped wall_ns (ns since the Unix epoch).
Sample MakeSample(double value, int64_t wall_ns, Labels labels = {});
Reading UnsupportedReading(std::string_view metric, std::string reason);
Reading NoDataReading(std::string_view metric, std::string reason);
// Unsupported with "unsupported: <error message>".
Reading UnsupportedReading(std::string_view metric, const Error& error);

// memory_total_bytes / memory_used_bytes from /proc/meminfo.
Reading MemoryTotalReading(const Result<MemInfo>& meminfo, int64_t wall_ns);
Reading MemoryUsedReading(const Result<MemInfo>& meminfo, int64_t wall_ns);
// queue_size: procs_running from /proc/stat (it counts the thread reading the file too).
Reading QueueSizeReading(const Result<ProcStat>& stat, int64_t wall_ns);
// clock_hertz per logical CPU: cpufreq scaling_cur_freq, else "cpu MHz" of /proc/cpuinfo.
Reading ClockReading(const std::string& root, const std::vector<int>& cpus, int64_t wall_ns);
// temperature_celsius per hwmon temperature channel, sensor="<chip name>/<label or tempN>".
// Every temperature channel of `chips` (ListHwmonChips), read now.
Reading TemperatureReading(const std::vector<HwmonChip>& chips, int64_t wall_ns);
// errors_total from EDAC: type="ecc_corrected" and type="ecc_uncorrected".
Reading ErrorsReading(const std::string& root, int64_t wall_ns);

}  // namespace xpuperf::cpu
