#include "xpuperf/amd/amd_backend.h"

#include <fmt/format.h>

#include <algorithm>

#include "amd_gpu.h"
#include "amd_readings.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/sysfs_file.h"
#include "xpuperf/drm/drm_cards.h"

namespace xpuperf::amd {
namespace {

namespace m = metrics;

bool NeedsProcesses(const std::string& metric) {
  for (const AmdMetric& handler : AmdMetrics()) {
    if (handler.metric == metric) return handler.needs_processes;
  }
  return false;
}

class AmdBackend final : public Backend {
 public:
  AmdBackend(std::vector<AmdGpu> gpus, const BackendOptions& options, AmdBackendConfig config)
      : gpus_(std::move(gpus)),
        root_(options.root),
        clock_(*options.clock),
        config_(std::move(config)),
        smi_(config_.amd_smi_library) {
    for (const AmdGpu& gpu : gpus_) devices_.push_back(gpu.device);
    // The first snapshot of every rate: XGMI totals, throttle residencies, per-process busy.
    Collect({std::string(m::kPeerLinkThroughput), std::string(m::kClockEventActive),
             std::string(m::kProcessEngineBusy)});
  }

  std::string_view name() const override { return "amd"; }
  const std::vector<Device>& devices() const override { return devices_; }
  std::vector<std::string_view> metrics() const override {
    std::vector<std::string_view> names;
    for (const AmdMetric& handler : AmdMetrics()) names.push_back(handler.metric);
    return names;
  }

  std::vector<Reading> Collect(const std::vector<std::string>& metric_names) override {
    std::vector<std::string> names = metric_names;
    if (names.empty()) {
      for (std::string_view n : metrics()) names.emplace_back(n);
    }
    for (AmdGpu& gpu : gpus_) RefreshAmdGpu(gpu);
    CollectContext context;
    context.wall_ns = clock_.WallNs();
    context.monotonic_ns = clock_.MonotonicNs();
    std::vector<drm::ProcessGpuUsage> processes;
    drm::ProcessBusyTracker::Busy busy;
    if (std::any_of(names.begin(), names.end(), NeedsProcesses)) {
      processes = drm::ScanDrmProcesses(root_, "amdgpu", config_.is_drm_fd);
      busy = busy_tracker_.Update(processes, context.monotonic_ns);
    }
    context.processes = &processes;
    context.busy = &busy;
    context.smi = &smi_;
    std::vector<Reading> out;
    for (const std::string& metric : names) {
      for (AmdGpu& gpu : gpus_) out.push_back(ReadAmdMetric(metric, gpu, context));
    }
    return out;
  }

 private:
  std::vector<AmdGpu> gpus_;
  std::string root_;
  const Clock& clock_;
  AmdBackendConfig config_;
  std::vector<Device> devices_;
  drm::ProcessBusyTracker busy_tracker_;
  AmdSmiLoader smi_;
};

}  // namespace

Result<std::unique_ptr<Backend>> CreateAmdBackend(const BackendOptions& options,
                                                  const AmdBackendConfig& config) {
  std::vector<AmdGpu> gpus;
  for (const drm::DrmCard& card : drm::ListDrmCards(options.root, {"amdgpu"})) {
    gpus.push_back(MakeAmdGpu(card, static_cast<int>(gpus.size()), options.root));
  }
  if (gpus.empty()) {
    return MakeError(
        ErrorCode::kUnavailable,
        fmt::format("no amdgpu device under {}", JoinRoot(options.root, "/sys/class/drm")));
  }
  return std::unique_ptr<Backend>(std::make_unique<AmdBackend>(std::move(gpus), options, config));
}

void RegisterAmdBackend(BackendRegistry& registry) {
  registry.Register("amd", "AMD GPUs through the amdgpu driver's sysfs, hwmon and fdinfo files",
                    [](const BackendOptions& options) { return CreateAmdBackend(options); });
}

}  // namespace xpuperf::amd
