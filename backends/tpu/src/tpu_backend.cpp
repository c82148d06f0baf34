#include "xpuperf/tpu/tpu_backend.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "metric_map.h"
#include "runtime_client.h"
#include "runtime_fetch.h"
#include "runtime_owner.h"
#include "sdk_readings.h"
#include "sdk_source.h"
#include "tpu_chips.h"
#include "tpu_devices.h"
#include "tpu_readings.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::tpu {
namespace {

namespace m = metrics;

constexpr std::string_view kNoChipReason =
    "no TPU found: no PCI device with vendor 0x1ae0 under /sys/bus/pci/devices";
constexpr std::string_view kSdkOff =
    "libtpu's SDK is not read (XPUPERF_TPU_SDK=off, or the backend was opened without it)";

const GaugeMapping* FindGauge(std::string_view catalog) {
  for (const GaugeMapping& g : GaugeMappings()) {
    if (g.catalog == catalog) return &g;
  }
  return nullptr;
}

std::vector<Reading> Gauge(std::string_view metric, ReadingContext& context) {
  return GaugeReadings(*FindGauge(metric), context);
}

// A runtime that serves no queue gauge but answers the status call: the queue from the status.
std::vector<Reading> QueueSize(std::string_view metric, ReadingContext& context) {
  const GaugeMapping& gauge = *FindGauge(metric);
  const auto& statuses = context.fetch.RuntimeStatuses();
  const bool any_status = std::any_of(statuses.begin(), statuses.end(),
                                      [](const auto& status) { return status.has_value(); });
  if (!context.fetch.Serves(gauge.runtime_name) && any_status) {
    return QueueReadingsFromStatus(context);
  }
  return GaugeReadings(gauge, context);
}

// One metric the TPU backend reports and how its readings are made. `sdk`: the metric comes from
// libtpu's SDK alone (kOnly), or from the runtime service with the SDK's value where the service
// has none for a chip (kFallback), or never from the SDK (kNever).
enum class SdkUse { kNever, kFallback, kOnly };
struct TpuMetric {
  std::string_view metric;
  std::vector<Reading> (*read)(std::string_view metric, ReadingContext& context);
  SdkUse sdk = SdkUse::kNever;
};

std::vector<Reading> NoRuntimeReading(std::string_view, ReadingContext&) { return {}; }

// Every metric of the backend, in catalog order: the one place a metric is added (a gauge also
// needs its runtime name in metric_map.cpp).
const std::vector<TpuMetric>& TpuMetrics() {
  static const std::vector<TpuMetric> handlers = {
      {m::kTensorCoreUtilization, NoRuntimeReading, SdkUse::kOnly},
      {m::kDutyCycle, Gauge, SdkUse::kFallback},
      {m::kMemoryTotal, Gauge, SdkUse::kFallback},
      {m::kMemoryUsed, Gauge, SdkUse::kFallback},
      {m::kTransferLatency,
       [](std::string_view, ReadingContext& context) { return TransferLatencyReadings(context); }},
      {m::kOpExecutionTime,
       [](std::string_view, ReadingContext& context) { return HloExecutionReadings(context); }},
      {m::kQueueSize, QueueSize, SdkUse::kFallback},
      {m::kIdleDuration, Gauge, SdkUse::kFallback},
      {m::kMemoryBandwidthUtilization, Gauge, SdkUse::kFallback},
      {m::kCoreErrorActive,
       [](std::string_view, ReadingContext& context) { return CoreErrorReadings(context); }},
      {m::kHostLinkGeneration, PciLinkReadings},
      {m::kHostLinkWidth, PciLinkReadings},
      {m::kCoreState, CoreStateReadings},
      {m::kSequencerState, CoreStateReadings},
      {m::kQueuedProgram, CoreStateReadings},
      {m::kThrottleScore, NoRuntimeReading, SdkUse::kOnly},
      {m::kIciLinkHealth, NoRuntimeReading, SdkUse::kOnly},
      {m::kLatencyStatistic, NoRuntimeReading, SdkUse::kOnly},
      {m::kTcpDeliveryRate, NoRuntimeReading, SdkUse::kOnly},
  };
  return handlers;
}

class TpuBackend final : public Backend {
 public:
  TpuBackend(std::vector<Device> devices, std::vector<RuntimeClient> clients,
             std::vector<int> ports, int cores_per_chip, std::string root, const Clock& clock,
             std::unique_ptr<SdkSource> sdk)
      : sdk_(std::move(sdk)),
        devices_(std::move(devices)),
        clients_(std::move(clients)),
        ports_(std::move(ports)),
        cores_per_chip_(cores_per_chip),
        root_(std::move(root)),
        clock_(clock) {}

  ~TpuBackend() override = default;
  std::string_view name() const override { return "tpu"; }
  const std::vector<Device>& devices() const override { return devices_; }

  std::vector<std::string_view> metrics() const override {
    std::vector<std::string_view> names;
    for (const TpuMetric& handler : TpuMetrics()) names.push_back(handler.metric);
    return names;
  }

  std::vector<Reading> Collect(const std::vector<std::string>& metric_names) override {
    // One listing per port per Collect: a runtime that (re)started since the last call is found,
    // and renamed metrics are never requested blindly.
    RuntimeFetch fetch(clients_);
    const CoreMap cores = MapRuntimes(fetch, devices_, cores_per_chip_, RuntimePids());
    ReadingContext context{fetch, devices_, cores, clock_.WallNs(), root_};

    std::vector<Reading> out;
    auto append = [&out](std::vector<Reading> readings) {
      for (Reading& r : readings) out.push_back(std::move(r));
    };
    std::vector<std::string> names = metric_names;
    if (names.empty()) {
      for (std::string_view n : metrics()) names.emplace_back(n);
    }
    std::optional<SdkView> sdk;  // read once per Collect, when a metric needs it
    auto sdk_view = [this, &sdk]() -> const SdkView& {
      if (!sdk) sdk = ReadSdk();
      return *sdk;
    };
    for (const std::string& name : names) {
      const auto handler = std::find_if(TpuMetrics().begin(), TpuMetrics().end(),
                                        [&name](const TpuMetric& h) { return h.metric == name; });
      if (handler != TpuMetrics().end()) {
        std::vector<Reading> readings = handler->read(name, context);
        for (Reading& r : readings) {
          if (r.source.empty()) r.source = "runtime";
        }
        if (handler->sdk == SdkUse::kOnly) {
          readings = SdkReadings(name, sdk_view(), devices_, cores_per_chip_, context.wall_ns)
                         .value_or(std::vector<Reading>{});
        } else if (handler->sdk == SdkUse::kFallback) {
          FillFromSdk(name, readings, sdk_view, context.wall_ns);
        }
        append(std::move(readings));
        continue;
      }
      for (const Device& d : devices_) {
        out.push_back(Reading::Unsupported(name, d.id, "not a TPU metric"));
      }
    }
    return out;
  }

 private:
  SdkView ReadSdk() {
    SdkView view;
    if (sdk_ == nullptr) {
      view.reason = std::string(kSdkOff);
      return view;
    }
    auto latest = sdk_->Latest();
    if (latest.ok()) {
      view.snapshot = std::move(latest).value();
    } else {
      view.reason = latest.error().message;
    }
    return view;
  }

  // A chip the runtime service has no value for gets the SDK's, where the SDK has one.
  template <typename ViewFn>
  void FillFromSdk(std::string_view metric, std::vector<Reading>& readings, ViewFn& sdk_view,
                   int64_t wall_ns) {
    const bool all_ok = std::all_of(readings.begin(), readings.end(),
                                    [](const Reading& r) { return r.state == ReadingState::kOk; });
    if (all_ok || sdk_ == nullptr) return;
    std::optional<std::vector<Reading>> from_sdk =
        SdkReadings(metric, sdk_view(), devices_, cores_per_chip_, wall_ns);
    if (!from_sdk) return;
    for (Reading& r : readings) {
      if (r.state == ReadingState::kOk) continue;
      for (Reading& s : *from_sdk) {
        if (s.device == r.device && s.state == ReadingState::kOk) r = std::move(s);
      }
    }
  }

  // The process serving each port, for matching runtimes to chips and labelling their
  // distributions (loopback targets only: /proc cannot see another host's processes). Scanning
  // /proc/*/fd costs milliseconds on a busy host, so the answer is kept for kPidCacheNs; a runtime
  // restarted in between is labelled with its old pid for at most that long.
  const std::vector<std::optional<int>>& RuntimePids() {
    const int64_t now = clock_.MonotonicNs();
    if (pids_checked_ns_ >= 0 && now - pids_checked_ns_ < kPidCacheNs) return pids_;
    pids_.clear();
    for (size_t i = 0; i < ports_.size(); ++i) {
      const std::string& target = clients_[i].target();
      const bool local = target.starts_with("localhost:") || target.starts_with("127.0.0.1:");
      pids_.push_back(local ? ListeningPid(root_, ports_[i]) : std::nullopt);
    }
    pids_checked_ns_ = now;
    return pids_;
  }

  static constexpr int64_t kPidCacheNs = 10'000'000'000;  // 10 s
  std::unique_ptr<SdkSource> sdk_;                        // null when XPUPERF_TPU_SDK=off
  std::vector<std::optional<int>> pids_;
  int64_t pids_checked_ns_ = -1;
  std::vector<Device> devices_;
  std::vector<RuntimeClient> clients_;
  std::vector<int> ports_;
  int cores_per_chip_;
  std::string root_;
  const Clock& clock_;
};

}  // namespace

Result<std::unique_ptr<Backend>> CreateTpuBackend(const BackendOptions& options) {
  TpuBackendConfig config;
  config.sdk = SdkOptionsFromEnvironment();
  return CreateTpuBackend(options, config);
}

Result<std::unique_ptr<Backend>> CreateTpuBackend(const BackendOptions& options,
                                                  const TpuBackendConfig& config) {
  std::vector<int> ports = config.ports;
  if (ports.empty()) {
    XPUPERF_ASSIGN_OR_RETURN(ports, ParseRuntimePorts(std::getenv("TPU_RUNTIME_METRICS_PORTS")));
  }
  std::vector<RuntimeClient> clients;
  clients.reserve(ports.size());
  for (int port : ports)
    clients.emplace_back(fmt::format("{}:{}", config.host, port), config.deadline);

  // A host without the PCI directory (a container) has no chips to show, but may still reach a
  // runtime, so a missing directory is not an error here.
  auto chips = DiscoverTpuChips(options.root);
  std::vector<TpuChip> found = chips.ok() ? std::move(chips).value() : std::vector<TpuChip>{};

  RuntimeFetch probe(clients);
  if (found.empty() && !probe.AnyReachable()) {
    // Asked for by name, the user also needs to know that no runtime answered (and on which
    // ports); otherwise the absence of chips is the whole story.
    return MakeError(ErrorCode::kUnavailable,
                     options.explicitly_requested
                         ? fmt::format("{}; {}", kNoChipReason, probe.UnreachableReason())
                         : std::string(kNoChipReason));
  }
  if (!probe.AnyReachable() && options.explicitly_requested) {
    return MakeError(ErrorCode::kUnavailable, probe.UnreachableReason());
  }
  int cores_per_chip = 1;
  std::vector<Device> devices;
  if (!found.empty()) {
    devices = DevicesFromChips(found);
    cores_per_chip = found.front().generation.cores_per_chip;
  } else {
    devices = DevicesFromRuntime(probe, cores_per_chip);
    if (devices.empty()) {
      return MakeError(ErrorCode::kUnavailable,
                       fmt::format("{}, and the TPU runtime at {} reports no device yet (no XLA "
                                   "program has run)",
                                   kNoChipReason, clients.front().target()));
    }
  }
  std::unique_ptr<SdkSource> sdk;
  if (config.sdk) sdk = std::make_unique<SdkSource>(*config.sdk);
  return std::unique_ptr<Backend>(
      std::make_unique<TpuBackend>(std::move(devices), std::move(clients), std::move(ports),
                                   cores_per_chip, options.root, *options.clock, std::move(sdk)));
}

void RegisterTpuBackend(BackendRegistry& registry) {
  registry.Register("tpu", "Google TPU chips (PCI sysfs) and the libtpu runtime metric service",
                    [](const BackendOptions& options) { return CreateTpuBackend(options); });
}

}  // namespace xpuperf::tpu
