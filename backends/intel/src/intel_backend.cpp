#include "xpuperf/intel/intel_backend.h"

#include <fmt/format.h>

#include <algorithm>

#include "intel_gpu.h"
#include "intel_readings.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::intel {
namespace {

namespace m = metrics;

bool NeedsClients(const std::string& metric) {
  for (const IntelMetric& handler : IntelMetrics()) {
    if (handler.metric == metric) return handler.needs_clients;
  }
  return false;
}

class IntelBackend final : public Backend {
 public:
  IntelBackend(std::vector<IntelGpu> gpus, const BackendOptions& options, IntelBackendConfig config)
      : gpus_(std::move(gpus)),
        root_(options.root),
        clock_(*options.clock),
        config_(std::move(config)),
        level_zero_(config_.level_zero_library) {
    for (const IntelGpu& gpu : gpus_) devices_.push_back(gpu.device);
    // The first snapshot of the rates: energy for power, client counters for busy.
    Collect({std::string(m::kPower), std::string(m::kDutyCycle)});
  }

  std::string_view name() const override { return "intel"; }
  const std::vector<Device>& devices() const override { return devices_; }
  std::vector<std::string_view> metrics() const override {
    std::vector<std::string_view> names;
    for (const IntelMetric& handler : IntelMetrics()) names.push_back(handler.metric);
    return names;
  }

  std::vector<Reading> Collect(const std::vector<std::string>& metric_names) override {
    std::vector<std::string> names = metric_names;
    if (names.empty()) {
      for (std::string_view n : metrics()) names.emplace_back(n);
    }
    for (IntelGpu& gpu : gpus_) CheckIntelGpu(gpu);
    CollectContext context;
    context.wall_ns = clock_.WallNs();
    context.monotonic_ns = clock_.MonotonicNs();
    std::vector<drm::ProcessGpuUsage> processes;
    drm::ProcessBusyTracker::Busy busy;
    if (std::any_of(names.begin(), names.end(), NeedsClients)) {
      for (const char* driver : {"i915", "xe"}) {
        auto found = drm::ScanDrmProcesses(root_, driver, config_.is_drm_fd);
        processes.insert(processes.end(), found.begin(), found.end());
      }
      context.first_busy_sample = !scanned_before_;
      busy = busy_tracker_.Update(processes, context.monotonic_ns);
      scanned_before_ = true;
    }
    context.processes = &processes;
    context.busy = &busy;
    context.level_zero = &level_zero_;
    std::vector<Reading> out;
    for (const std::string& metric : names) {
      for (IntelGpu& gpu : gpus_) out.push_back(ReadIntelMetric(metric, gpu, context));
    }
    return out;
  }

 private:
  std::vector<IntelGpu> gpus_;
  std::string root_;
  const Clock& clock_;
  IntelBackendConfig config_;
  std::vector<Device> devices_;
  drm::ProcessBusyTracker busy_tracker_;
  bool scanned_before_ = false;
  LevelZeroLoader level_zero_;
};

}  // namespace

Result<std::unique_ptr<Backend>> CreateIntelBackend(const BackendOptions& options,
                                                    const IntelBackendConfig& config) {
  std::vector<IntelGpu> gpus;
  for (const drm::DrmCard& card : drm::ListDrmCards(options.root, {"i915", "xe"})) {
    gpus.push_back(MakeIntelGpu(card, static_cast<int>(gpus.size())));
  }
  if (gpus.empty()) {
    return MakeError(
        ErrorCode::kUnavailable,
        fmt::format("no i915 or xe device under {}", JoinRoot(options.root, "/sys/class/drm")));
  }
  return std::unique_ptr<Backend>(std::make_unique<IntelBackend>(std::move(gpus), options, config));
}

void RegisterIntelBackend(BackendRegistry& registry) {
  registry.Register("intel",
                    "Intel GPUs through the i915/xe drivers' sysfs, hwmon and fdinfo files",
                    [](const BackendOptions& options) { return CreateIntelBackend(options); });
}

}  // namespace xpuperf::intel
