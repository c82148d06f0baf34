#include "xpuperf/nvidia/nvidia_backend.h"

#include <fmt/format.h>

#include <algorithm>

#include "gpm_sampler.h"
#include "nvidia_gpu.h"
#include "nvidia_readings.h"
#include "nvml_library.h"
#include "xid_events.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::nvidia {
namespace {

namespace m = metrics;

// The handler of `metric`; nullptr when the backend does not report it.
const GpuReader::Handler* FindHandler(std::string_view metric) {
  for (const GpuReader::Handler& handler : GpuReader::Handlers()) {
    if (handler.metric == metric) return &handler;
  }
  return nullptr;
}

class NvidiaBackend final : public Backend {
 public:
  NvidiaBackend(std::unique_ptr<NvmlLibrary> library, std::vector<Gpu> gpus, const Clock& clock)
      : library_(std::move(library)), gpus_(std::move(gpus)), clock_(clock) {
    const int64_t now = clock_.MonotonicNs();
    for (Gpu& gpu : gpus_) StartGpm(*library_, gpu, now);
    xid_ = std::make_unique<XidWatcher>(*library_, gpus_);
    for (const Gpu& gpu : gpus_) devices_.push_back(gpu.device);
  }

  ~NvidiaBackend() override {
    xid_.reset();
    for (Gpu& gpu : gpus_) StopGpm(*library_, gpu);
  }

  std::string_view name() const override { return "nvidia"; }
  const std::vector<Device>& devices() const override { return devices_; }

  std::vector<std::string_view> metrics() const override {
    std::vector<std::string_view> names;
    for (const GpuReader::Handler& handler : GpuReader::Handlers()) names.push_back(handler.metric);
    return names;
  }

  std::vector<Reading> Collect(const std::vector<std::string>& metric_names) override {
    std::vector<std::string> names = metric_names;
    if (names.empty()) {
      for (std::string_view n : metrics()) names.emplace_back(n);
    }
    bool gpm = false, xid = false;
    for (const std::string& name : names) {
      const GpuReader::Handler* handler = FindHandler(name);
      gpm = gpm || (handler != nullptr && handler->needs_gpm);
      xid = xid || (handler != nullptr && handler->needs_xid);
    }
    if (gpm) {
      const int64_t now = clock_.MonotonicNs();
      for (Gpu& gpu : gpus_) RefreshGpm(*library_, gpu, now);
    }
    if (xid) xid_->Drain(gpus_);
    PropagateParentLoss();
    const GpuReader reader(*library_, clock_.WallNs());
    std::vector<Reading> out;
    for (const std::string& name : names) {
      for (Gpu& gpu : gpus_) out.push_back(reader.Read(name, gpu));
    }
    return out;
  }

 private:
  // A MIG device is gone with its GPU: it takes the GPU's lost reason and is not queried again.
  void PropagateParentLoss() {
    for (Gpu& gpu : gpus_) {
      if (!gpu.is_mig() || gpu.lost) continue;
      const Gpu& parent = gpus_[static_cast<size_t>(gpu.parent)];
      if (!parent.lost) continue;
      gpu.lost = true;
      gpu.lost_reason = fmt::format("{} (MIG device of {})", parent.lost_reason, parent.device.id);
    }
  }

  std::unique_ptr<NvmlLibrary> library_;
  std::vector<Gpu> gpus_;
  const Clock& clock_;
  std::vector<Device> devices_;
  std::unique_ptr<XidWatcher> xid_;
};

}  // namespace

Result<std::unique_ptr<Backend>> CreateNvidiaBackend(const BackendOptions& options) {
  return CreateNvidiaBackend(options, NvidiaBackendConfig{});
}

Result<std::unique_ptr<Backend>> CreateNvidiaBackend(const BackendOptions& options,
                                                     const NvidiaBackendConfig& config) {
  XPUPERF_ASSIGN_OR_RETURN(std::unique_ptr<NvmlLibrary> library,
                           NvmlLibrary::Open(NvmlLibraryPath(config.library)));
  XPUPERF_ASSIGN_OR_RETURN(std::vector<Gpu> gpus, DiscoverGpus(*library, ReadDriverInfo(*library)));
  if (gpus.empty()) return MakeError(ErrorCode::kUnavailable, "NVML reports no NVIDIA GPU");
  return std::unique_ptr<Backend>(
      std::make_unique<NvidiaBackend>(std::move(library), std::move(gpus), *options.clock));
}

void RegisterNvidiaBackend(BackendRegistry& registry) {
  registry.Register("nvidia", "NVIDIA GPUs through NVML (libnvidia-ml.so.1)",
                    [](const BackendOptions& options) { return CreateNvidiaBackend(options); });
}

}  // namespace xpuperf::nvidia
