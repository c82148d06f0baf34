#include "cpu_readings.h"

#include <map>
#include <set>

#include "edac.h"
#include "xpuperf/core/cpuinfo.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/cpu/cpufreq.h"
#include "xpuperf/cpu/hwmon.h"

namespace xpuperf::cpu {
namespace {
constexpr double kHertzPerMegahertz = 1e6;
constexpr double kMillidegreesPerDegree = 1000.0;
}  // namespace

Reading OkReading(std::string_view metric) {
  Reading reading;
  reading.metric = std::string(metric);
  reading.device = std::string(kCpuDeviceId);
  return reading;
}

Sample MakeSample(double value, int64_t wall_ns, Labels labels) {
  labels.Set(labels::kDevice, kCpuDeviceId);
  return Sample{std::move(labels), wall_ns, value};
}

Reading UnsupportedReading(std::string_view metric, std::string reason) {
  return Reading::Unsupported(metric, kCpuDeviceId, std::move(reason));
}

Reading NoDataReading(std::string_view metric, std::string reason) {
  return Reading::NoData(metric, kCpuDeviceId, std::move(reason));
}

Reading UnsupportedReading(std::string_view metric, const Error& error) {
  constexpr std::string_view kPrefix = "unsupported: ";
  // Some sources (the FP-counter sampler) already word their messages as reasons.
  if (std::string_view(error.message).starts_with(kPrefix))
    return UnsupportedReading(metric, error.message);
  return UnsupportedReading(metric, std::string(kPrefix) + error.message);
}

Reading MemoryTotalReading(const Result<MemInfo>& meminfo, int64_t wall_ns) {
  if (!meminfo.ok()) return UnsupportedReading(metrics::kMemoryTotal, meminfo.error());
  Reading reading = OkReading(metrics::kMemoryTotal);
  reading.samples.push_back(MakeSample(static_cast<double>(meminfo->total_bytes), wall_ns));
  return reading;
}

Reading MemoryUsedReading(const Result<MemInfo>& meminfo, int64_t wall_ns) {
  if (!meminfo.ok()) return UnsupportedReading(metrics::kMemoryUsed, meminfo.error());
  Reading reading = OkReading(metrics::kMemoryUsed);
  reading.samples.push_back(MakeSample(static_cast<double>(UsedMemoryBytes(*meminfo)), wall_ns));
  return reading;
}

Reading QueueSizeReading(const Result<ProcStat>& stat, int64_t wall_ns) {
  if (!stat.ok()) return UnsupportedReading(metrics::kQueueSize, stat.error());
  if (!stat->procs_running) {
    return UnsupportedReading(metrics::kQueueSize,
                              "unsupported: no procs_running line in /proc/stat");
  }
  Reading reading = OkReading(metrics::kQueueSize);
  reading.samples.push_back(MakeSample(static_cast<double>(*stat->procs_running), wall_ns));
  return reading;
}

Reading ClockReading(const std::string& root, const std::vector<int>& cpus, int64_t wall_ns) {
  Reading reading = OkReading(metrics::kClock);
  std::optional<Result<CpuInfo>> cpuinfo;  // read only when some CPU has no cpufreq
  for (int cpu : cpus) {
    std::optional<double> hertz;
    if (Result<uint64_t> cpufreq = ReadScalingCurFreqHertz(root, cpu); cpufreq.ok()) {
      hertz = static_cast<double>(*cpufreq);
    } else {
      if (!cpuinfo) cpuinfo = ReadCpuInfo(root);
      if (cpuinfo->ok()) {
        for (const LogicalCpuInfo& entry : (*cpuinfo)->cpus) {
          if (entry.processor == cpu && entry.mhz) hertz = *entry.mhz * kHertzPerMegahertz;
        }
      }
    }
    if (hertz)
      reading.samples.push_back(
          MakeSample(*hertz, wall_ns, {{std::string(labels::kCore), std::to_string(cpu)}}));
  }
  if (reading.samples.empty()) {
    return UnsupportedReading(metrics::kClock,
                              "unsupported: no cpufreq scaling_cur_freq under "
                              "/sys/devices/system/cpu/cpuN/cpufreq and no 'cpu MHz' in "
                              "/proc/cpuinfo");
  }
  return reading;
}

Reading TemperatureReading(const std::vector<HwmonChip>& chips, int64_t wall_ns) {
  Reading reading = OkReading(metrics::kTemperature);
  std::set<std::string> used_sensor_names;
  std::optional<Error> first_error;
  bool any_channel = false;
  for (const HwmonChip& chip : chips) {
    for (const HwmonChannel& channel : chip.channels) {
      if (channel.kind != HwmonChannelKind::kTemperature) continue;
      any_channel = true;
      Result<int64_t> millidegrees = ReadHwmonChannel(chip, channel);
      if (!millidegrees.ok()) {
        if (!first_error) first_error = millidegrees.error();
        continue;
      }
      // Two chips can share a name (two nvme drives): the chip id keeps the sensors apart.
      std::string sensor = chip.name + "/" + channel.label;
      if (!used_sensor_names.insert(sensor).second) sensor += "@" + chip.id;
      reading.samples.push_back(
          MakeSample(static_cast<double>(*millidegrees) / kMillidegreesPerDegree, wall_ns,
                     {{std::string(labels::kSensor), sensor}}));
    }
  }
  if (!any_channel) {
    return UnsupportedReading(metrics::kTemperature,
                              "unsupported: no hwmon temperature sensor under /sys/class/hwmon");
  }
  if (reading.samples.empty()) return UnsupportedReading(metrics::kTemperature, *first_error);
  return reading;
}

Reading ErrorsReading(const std::string& root, int64_t wall_ns) {
  Result<EdacCounts> counts = ReadEdacCounts(root);
  if (!counts.ok()) return UnsupportedReading(metrics::kErrors, counts.error());
  Reading reading = OkReading(metrics::kErrors);
  reading.samples.push_back(MakeSample(static_cast<double>(counts->corrected), wall_ns,
                                       {{std::string(labels::kType), "ecc_corrected"}}));
  reading.samples.push_back(MakeSample(static_cast<double>(counts->uncorrected), wall_ns,
                                       {{std::string(labels::kType), "ecc_uncorrected"}}));
  return reading;
}

}  // namespace xpuperf::cpu
