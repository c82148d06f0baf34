#include "xpuperf/cpu/cpu_backend.h"

#include <unistd.h>

#include <cmath>
#include <numeric>
#include <optional>
#include <utility>

#include "cpu_device.h"
#include "cpu_readings.h"
#include "energy_meter.h"
#include "process_monitor.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/cpu/hwmon.h"
#include "xpuperf/cpu/meminfo.h"
#include "xpuperf/cpu/proc_stat.h"

namespace xpuperf::cpu {
namespace {

constexpr double kNanosecondsPerSecond = 1e9;
// USER_HZ is 100 on every Linux ABI; used only if sysconf cannot say.
constexpr uint64_t kDefaultClockTicksPerSecond = 100;
constexpr uint64_t kDefaultPageSizeBytes = 4096;

uint64_t SysconfOr(int name, uint64_t fallback) {
  long value = ::sysconf(name);
  return value > 0 ? static_cast<uint64_t>(value) : fallback;
}

// What one Collect reads at most once, however many metrics need it, and its instant.
class CollectContext {
 public:
  CollectContext(const std::string& root, const Clock& clock)
      : now_ns(clock.MonotonicNs()), wall_ns(clock.WallNs()), root_(root) {}

  const Result<ProcStat>& Stat() {
    if (!stat_) stat_ = ReadProcStat(root_);
    return *stat_;
  }
  const Result<MemInfo>& Memory() {
    if (!meminfo_) meminfo_ = ReadMemInfo(root_);
    return *meminfo_;
  }

  const int64_t now_ns;   // monotonic, for rates
  const int64_t wall_ns;  // sample timestamps

 private:
  const std::string& root_;
  std::optional<Result<ProcStat>> stat_;
  std::optional<Result<MemInfo>> meminfo_;
};

class CpuBackend final : public Backend {
 public:
  CpuBackend(const BackendOptions& options, Device device, ProcStat first_stat,
             Result<std::unique_ptr<SimdUtilization>> simd, const CpuBackendDependencies& deps)
      : root_(options.root),
        clock_(*options.clock),
        opened_ns_(clock_.MonotonicNs()),
        previous_stat_(std::move(first_stat)),
        last_simd_ns_(opened_ns_),
        energy_(EnergyMeter::Open(root_, opened_ns_)),
        processes_(root_, options.pids,
                   deps.clock_ticks_per_second
                       ? deps.clock_ticks_per_second
                       : SysconfOr(_SC_CLK_TCK, kDefaultClockTicksPerSecond),
                   deps.page_size_bytes ? deps.page_size_bytes
                                        : SysconfOr(_SC_PAGESIZE, kDefaultPageSizeBytes),
                   opened_ns_) {
    devices_.push_back(std::move(device));
    for (const CpuTimesOfCpu& cpu : previous_stat_.per_cpu) cpus_.push_back(cpu.cpu);
    if (simd.ok()) {
      simd_ = std::move(simd).value();
    } else {
      simd_unsupported_ = UnsupportedReading(metrics::kTensorCoreUtilization, simd.error());
    }
  }

  std::string_view name() const override { return "cpu"; }
  const std::vector<Device>& devices() const override { return devices_; }

  std::vector<std::string_view> metrics() const override {
    std::vector<std::string_view> names;
    for (const MetricHandler& handler : Handlers()) names.push_back(handler.metric);
    return names;
  }

  std::vector<Reading> Collect(const std::vector<std::string>& metric_names) override {
    CollectContext context(root_, clock_);
    std::vector<Reading> readings;
    if (metric_names.empty()) {
      for (const MetricHandler& handler : Handlers()) {
        readings.push_back((this->*handler.collect)(context));
      }
      return readings;
    }
    for (const std::string& metric : metric_names) readings.push_back(CollectOne(metric, context));
    return readings;
  }

 private:
  using CollectFunction = Reading (CpuBackend::*)(CollectContext&);
  struct MetricHandler {
    std::string_view metric;
    CollectFunction collect;
  };
  static const std::vector<MetricHandler>& Handlers();

  Reading CollectOne(std::string_view metric, CollectContext& context) {
    for (const MetricHandler& handler : Handlers()) {
      if (handler.metric == metric) return (this->*handler.collect)(context);
    }
    return UnsupportedReading(
        metric, "unsupported: the cpu backend does not provide " + std::string(metric));
  }

  Reading DutyCycle(CollectContext& context);
  Reading TensorCoreUtilization(CollectContext& context);
  Reading MemoryTotal(CollectContext& c) { return MemoryTotalReading(c.Memory(), c.wall_ns); }
  Reading MemoryUsed(CollectContext& c) { return MemoryUsedReading(c.Memory(), c.wall_ns); }
  Reading QueueSize(CollectContext& c) { return QueueSizeReading(c.Stat(), c.wall_ns); }
  Reading ClockFrequency(CollectContext& c) { return ClockReading(root_, cpus_, c.wall_ns); }
  Reading Temperature(CollectContext& c);
  Reading Errors(CollectContext& c) { return ErrorsReading(root_, c.wall_ns); }
  Reading Power(CollectContext& c) { return energy_.Power(c.now_ns, c.wall_ns); }
  Reading Energy(CollectContext& c) { return energy_.Energy(c.now_ns, c.wall_ns); }
  Reading ProcessCpu(CollectContext& c) { return processes_.Cpu(c.now_ns, c.wall_ns); }
  Reading ProcessMemory(CollectContext& c) { return processes_.Memory(c.wall_ns); }
  Reading MemoryBandwidth(CollectContext&) {
    return UnsupportedReading(metrics::kMemoryBandwidthUtilization,
                              "unsupported: needs uncore memory-controller counters (not readable "
                              "here)");
  }
  Reading HostLink(CollectContext&) {
    return UnsupportedReading(metrics::kHostLinkThroughput,
                              "unsupported: the CPU backend has no host link");
  }
  Reading IdleDuration(CollectContext&) {
    return UnsupportedReading(metrics::kIdleDuration,
                              "unsupported: the kernel keeps no time-since-last-work per CPU; "
                              "duty_cycle_percent gives the busy share");
  }
  Reading OpExecutionTime(CollectContext&) {
    return NoDataReading(metrics::kOpExecutionTime,
                         "no data: recorded in-process through the xpuperf SDK only");
  }
  Reading TransferLatency(CollectContext&) {
    return NoDataReading(metrics::kTransferLatency,
                         "no data: recorded in-process through the xpuperf SDK only");
  }

  const std::string root_;
  const xpuperf::Clock& clock_;
  const int64_t opened_ns_;
  std::vector<Device> devices_;
  std::vector<int> cpus_;   // logical CPU numbers seen in /proc/stat at open
  ProcStat previous_stat_;  // the duty-cycle window starts here
  std::unique_ptr<SimdUtilization> simd_;
  std::optional<Reading> simd_unsupported_;  // why there is no simd_, repeated on every Collect
  int64_t last_simd_ns_;
  EnergyMeter energy_;
  ProcessMonitor processes_;
  // The hwmon chips and channels, listed at most every kHwmonRescanNs (a listing is two directory
  // reads and a name/label read per chip: too much for every sample at 10 Hz and more); a chip
  // that appears (a hot-plugged drive) shows up at the next listing, one whose read fails
  // forces the next Collect to list again.
  std::vector<HwmonChip> hwmon_chips_;
  int64_t hwmon_listed_ns_ = 0;
  bool hwmon_listed_ = false;
};

constexpr int64_t kHwmonRescanNs = 10'000'000'000;

Reading CpuBackend::Temperature(CollectContext& c) {
  if (!hwmon_listed_ || c.now_ns - hwmon_listed_ns_ >= kHwmonRescanNs) {
    hwmon_chips_ = ListHwmonChips(root_);
    hwmon_listed_ns_ = c.now_ns;
    hwmon_listed_ = true;
  }
  Reading reading = TemperatureReading(hwmon_chips_, c.wall_ns);
  if (reading.state != ReadingState::kOk) hwmon_listed_ = false;
  return reading;
}

const std::vector<CpuBackend::MetricHandler>& CpuBackend::Handlers() {
  // Catalog order.
  static const std::vector<MetricHandler> handlers = {
      {metrics::kTensorCoreUtilization, &CpuBackend::TensorCoreUtilization},
      {metrics::kDutyCycle, &CpuBackend::DutyCycle},
      {metrics::kMemoryTotal, &CpuBackend::MemoryTotal},
      {metrics::kMemoryUsed, &CpuBackend::MemoryUsed},
      {metrics::kTransferLatency, &CpuBackend::TransferLatency},
      {metrics::kOpExecutionTime, &CpuBackend::OpExecutionTime},
      {metrics::kQueueSize, &CpuBackend::QueueSize},
      {metrics::kIdleDuration, &CpuBackend::IdleDuration},
      {metrics::kPower, &CpuBackend::Power},
      {metrics::kEnergy, &CpuBackend::Energy},
      {metrics::kTemperature, &CpuBackend::Temperature},
      {metrics::kClock, &CpuBackend::ClockFrequency},
      {metrics::kMemoryBandwidthUtilization, &CpuBackend::MemoryBandwidth},
      {metrics::kHostLinkThroughput, &CpuBackend::HostLink},
      {metrics::kErrors, &CpuBackend::Errors},
      {metrics::kProcessCpu, &CpuBackend::ProcessCpu},
      {metrics::kProcessMemory, &CpuBackend::ProcessMemory},
  };
  return handlers;
}

Reading CpuBackend::DutyCycle(CollectContext& context) {
  const Result<ProcStat>& stat = context.Stat();
  if (!stat.ok()) return UnsupportedReading(metrics::kDutyCycle, stat.error());
  std::optional<double> overall = BusyPercent(previous_stat_.total, stat->total);
  if (!overall) {
    return NoDataReading(metrics::kDutyCycle,
                         "no data: no /proc/stat ticks elapsed since the previous sample");
  }
  Reading reading = OkReading(metrics::kDutyCycle);
  reading.samples.push_back(MakeSample(*overall, context.wall_ns));
  for (const CpuTimesOfCpu& now : stat->per_cpu) {
    for (const CpuTimesOfCpu& before : previous_stat_.per_cpu) {
      if (before.cpu != now.cpu) continue;
      // A CPU without ticks in the window (offline) has no share to report.
      if (std::optional<double> busy = BusyPercent(before.times, now.times)) {
        reading.samples.push_back(MakeSample(
            *busy, context.wall_ns, {{std::string(labels::kCore), std::to_string(now.cpu)}}));
      }
    }
  }
  previous_stat_ = *stat;
  return reading;
}

Reading CpuBackend::TensorCoreUtilization(CollectContext& context) {
  if (!simd_) return *simd_unsupported_;
  const int64_t elapsed_ns = context.now_ns - last_simd_ns_;
  if (elapsed_ns <= 0) {
    return NoDataReading(metrics::kTensorCoreUtilization,
                         "no data: no time elapsed since the previous sample");
  }
  last_simd_ns_ = context.now_ns;
  Result<std::vector<double>> per_cpu =
      simd_->SamplePercent(static_cast<double>(elapsed_ns) / kNanosecondsPerSecond);
  if (!per_cpu.ok()) return UnsupportedReading(metrics::kTensorCoreUtilization, per_cpu.error());
  if (per_cpu->empty()) {
    return NoDataReading(metrics::kTensorCoreUtilization,
                         "no data: the FP counters reported no CPU");
  }
  Reading reading = OkReading(metrics::kTensorCoreUtilization);
  double sum = 0;
  int measured = 0;
  for (size_t cpu = 0; cpu < per_cpu->size(); ++cpu) {
    const double percent = (*per_cpu)[cpu];
    if (std::isnan(percent)) continue;  // offline or not a CPU number: not measured
    sum += percent;
    ++measured;
    reading.samples.push_back(
        MakeSample(percent, context.wall_ns, {{std::string(labels::kCore), std::to_string(cpu)}}));
  }
  if (measured == 0) {
    return NoDataReading(metrics::kTensorCoreUtilization,
                         "no data: the FP counters reported no CPU");
  }
  reading.samples.insert(reading.samples.begin(), MakeSample(sum / measured, context.wall_ns));
  return reading;
}

}  // namespace

Result<std::unique_ptr<Backend>> CreateCpuBackend(const BackendOptions& options,
                                                  const CpuBackendDependencies& dependencies) {
  Result<ProcStat> stat = ReadProcStat(options.root);
  if (!stat.ok()) {
    // Without /proc/stat there is no duty cycle, the backend's reason to exist.
    if (stat.error().code == ErrorCode::kParse) return stat.error();
    return MakeError(ErrorCode::kIo, stat.error().message);
  }
  Result<CpuInfo> cpuinfo = ReadCpuInfo(options.root);
  Result<MemInfo> meminfo = ReadMemInfo(options.root);
  Device device =
      DescribeCpuDevice(options.root, cpuinfo, meminfo, static_cast<int>(stat->per_cpu.size()));
  Result<std::unique_ptr<SimdUtilization>> simd =
      dependencies.open_simd_utilization
          ? dependencies.open_simd_utilization(options.root)
          : SimdUtilization::Open(options.root, PerfEventApi::System());
  return std::unique_ptr<Backend>(std::make_unique<CpuBackend>(
      options, std::move(device), std::move(stat).value(), std::move(simd), dependencies));
}

Result<std::unique_ptr<Backend>> CreateCpuBackend(const BackendOptions& options) {
  return CreateCpuBackend(options, CpuBackendDependencies{});
}

void RegisterCpuBackend(BackendRegistry& registry) {
  registry.Register("cpu", "Host CPUs and memory (procfs, sysfs, powercap, hwmon, perf, hwloc)",
                    [](const BackendOptions& options) { return CreateCpuBackend(options); });
}

Result<Device> LocalCpuDevice(const std::string& root) {
  BackendOptions backend_options;
  backend_options.root = root;
  XPUPERF_ASSIGN_OR_RETURN(auto backend, CreateCpuBackend(backend_options));
  if (backend->devices().empty()) {
    return MakeError(ErrorCode::kUnavailable, "the CPU backend reports no device");
  }
  return backend->devices().front();
}

}  // namespace xpuperf::cpu
