#include "amd_readings.h"

#include <fmt/format.h>

#include <algorithm>

#include "amd_throttle.h"
#include "xpuperf/amd/amd_sysfs.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/pci_link.h"
#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::amd {
namespace {

namespace m = metrics;

struct Emitter {
  Reading reading;
  const AmdGpu& gpu;
  int64_t wall_ns;

  Emitter(std::string_view metric, const AmdGpu& g, int64_t wall) : gpu(g), wall_ns(wall) {
    reading.metric = std::string(metric);
    reading.device = g.device.id;
  }
  void Add(double value, std::string_view key = {}, std::string_view label = {}) {
    Sample s;
    s.labels.Set(labels::kDevice, gpu.device.id);
    if (!key.empty()) s.labels.Set(key, label);
    s.timestamp_ns = wall_ns;
    s.value = value;
    reading.samples.push_back(std::move(s));
  }
  Reading Done(std::string reason) && {
    if (reading.samples.empty())
      return Reading::Unsupported(reading.metric, reading.device, std::move(reason));
    return std::move(reading);
  }
};

std::string MetricsReason(const AmdGpu& gpu) {
  return gpu.metrics.ok() ? fmt::format("gpu_metrics {} has no such field", gpu.metrics->revision())
                          : gpu.metrics.error().message;
}

// The library's answer for this device, or why there is none ("AMD SMI: …").
template <typename Fn>
auto FromAmdSmi(const AmdGpu& gpu, const CollectContext& c, std::string* reason, Fn read)
    -> decltype(read(std::declval<const AmdSmiLibrary&>())) {
  const AmdSmiLibrary* smi = c.smi->Get();
  if (smi == nullptr) {
    *reason = "AMD SMI: " + c.smi->reason();
    return std::nullopt;
  }
  if (!smi->HasDevice(gpu.card.pci_slot)) {
    *reason = "AMD SMI " + smi->version() + " does not list " + gpu.card.pci_slot;
    return std::nullopt;
  }
  auto value = read(*smi);
  if (!value) *reason = "AMD SMI " + smi->version() + " does not report it";
  return value;
}

Result<uint64_t> ReadDevice(const AmdGpu& gpu, std::string_view file) {
  return ReadUnsignedFile(gpu.card.device_dir + "/" + std::string(file));
}

Result<int64_t> ReadHwmon(const AmdGpu& gpu, std::string_view file) {
  if (gpu.card.hwmon_dir.empty()) return MakeError(ErrorCode::kNotFound, "no hwmon chip");
  return ReadSignedFile(gpu.card.hwmon_dir + "/" + std::string(file));
}

Reading Percent(std::string_view metric, const AmdGpu& gpu, const CollectContext& c,
                std::string_view file, std::optional<double> GpuMetrics::*field) {
  Emitter e(metric, gpu, c.wall_ns);
  auto busy = ReadDevice(gpu, file);
  if (busy.ok() && *busy <= 100) {
    e.Add(static_cast<double>(*busy));
  } else if (gpu.metrics.ok() && (*gpu.metrics).*field) {
    e.Add(*((*gpu.metrics).*field));
  }
  return std::move(e).Done(fmt::format("unsupported: no {} ({}) and {}", file,
                                       busy.ok() ? "out of range" : busy.error().message,
                                       MetricsReason(gpu)));
}

Reading Memory(std::string_view metric, const AmdGpu& gpu, const CollectContext& c) {
  Emitter e(metric, gpu, c.wall_ns);
  const std::string_view file =
      metric == m::kMemoryTotal ? "mem_info_vram_total" : "mem_info_vram_used";
  auto bytes = ReadDevice(gpu, file);
  if (bytes.ok()) e.Add(static_cast<double>(*bytes));
  return std::move(e).Done(bytes.ok() ? "" : "unsupported: " + bytes.error().message);
}

Reading Power(const AmdGpu& gpu, const CollectContext& c) {
  Emitter e(m::kPower, gpu, c.wall_ns);
  // power1_average on most parts; MI300 and newer kernels give only power1_input (current).
  for (std::string_view file : {"power1_average", "power1_input"}) {
    if (auto uw = ReadHwmon(gpu, file); uw.ok() && *uw >= 0) {
      e.Add(static_cast<double>(*uw) / 1e6, labels::kDomain, "gpu");
      return std::move(e).Done("");
    }
  }
  if (gpu.metrics.ok() && gpu.metrics->socket_power_watts) {
    e.Add(*gpu.metrics->socket_power_watts, labels::kDomain, "gpu");
    return std::move(e).Done("");
  }
  std::string smi_reason;
  if (auto watts = FromAmdSmi(gpu, c, &smi_reason, [&](const AmdSmiLibrary& smi) {
        return smi.PowerWatts(gpu.card.pci_slot);
      })) {
    e.Add(*watts, labels::kDomain, "gpu");
  }
  return std::move(e).Done("unsupported: no hwmon power1_average/power1_input, " +
                           MetricsReason(gpu) + ", " + smi_reason);
}

Reading Energy(AmdGpu& gpu, const CollectContext& c) {
  Emitter e(m::kEnergy, gpu, c.wall_ns);
  if (gpu.metrics.ok() && gpu.metrics->energy_accumulator) {
    uint64_t units = *gpu.metrics->energy_accumulator;
    if (gpu.metrics->energy_accumulator_bits == 32) {
      // v1.0's 32-bit counter holds 65536 J (a few minutes at 300 W): the first value plus what
      // accumulated since, across wraps.
      const uint64_t first = gpu.energy32.last_raw().value_or(units);
      units = first + gpu.energy32.Add(units);
    }
    e.Add(static_cast<double>(units) * kGpuMetricsEnergyJoulesPerUnit, labels::kDomain, "gpu");
    return std::move(e).Done("");
  }
  std::string smi_reason;
  if (auto joules = FromAmdSmi(gpu, c, &smi_reason, [&](const AmdSmiLibrary& smi) {
        return smi.EnergyJoules(gpu.card.pci_slot);
      })) {
    e.Add(*joules, labels::kDomain, "gpu");
  }
  return std::move(e).Done("unsupported: " + MetricsReason(gpu) + ", " + smi_reason);
}

Reading Temperature(const AmdGpu& gpu, const CollectContext& c) {
  Emitter e(m::kTemperature, gpu, c.wall_ns);
  std::vector<std::string> seen;
  // hwmon temp1 edge, temp2 junction, temp3 mem (labels say which), in m°C.
  for (int i = 1; i <= 8; ++i) {
    auto millis = ReadHwmon(gpu, fmt::format("temp{}_input", i));
    if (!millis.ok()) continue;
    auto label = ReadTrimmedFile(gpu.card.hwmon_dir + fmt::format("/temp{}_label", i));
    std::string sensor = label.ok() ? *label : fmt::format("temp{}", i);
    if (sensor == "mem") sensor = "memory";
    e.Add(static_cast<double>(*millis) / 1000.0, labels::kSensor, sensor);
    seen.push_back(sensor);
  }
  if (gpu.metrics.ok()) {
    for (const auto& [name, celsius] : gpu.metrics->temperatures_celsius) {
      std::string sensor = name == "hotspot" ? "junction" : name == "mem" ? "memory" : name;
      if (std::find(seen.begin(), seen.end(), sensor) != seen.end()) continue;
      e.Add(celsius, labels::kSensor, sensor);
    }
  }
  std::string smi_reason;
  if (e.reading.samples.empty()) {
    // AMDSMI_TEMPERATURE_TYPE_EDGE 0, HOTSPOT (junction) 1, VRAM 2.
    for (const auto& [smi_type, sensor] :
         {std::pair{0, "edge"}, std::pair{1, "junction"}, std::pair{2, "memory"}}) {
      const int type = smi_type;  // clang 14 cannot capture a structured binding (P1091)
      if (auto celsius = FromAmdSmi(gpu, c, &smi_reason, [&](const AmdSmiLibrary& smi) {
            return smi.TemperatureCelsius(gpu.card.pci_slot, type);
          })) {
        e.Add(*celsius, labels::kSensor, sensor);
      }
    }
  }
  return std::move(e).Done("unsupported: no hwmon temp*_input, " + MetricsReason(gpu) + ", " +
                           smi_reason);
}

Reading Clocks(const AmdGpu& gpu, const CollectContext& c) {
  Emitter e(m::kClock, gpu, c.wall_ns);
  // hwmon freq1 = gfx (sclk), freq2 = memory (mclk), in Hz; else gpu_metrics (MHz); else the
  // current DPM level.
  const struct {
    std::string_view hwmon, metrics_name, dpm, type;
  } kClocks[] = {{"freq1_input", "gfx", "pp_dpm_sclk", "gfx"},
                 {"freq2_input", "mem", "pp_dpm_mclk", "memory"},
                 {"", "soc", "pp_dpm_socclk", "soc"}};
  for (const auto& clock : kClocks) {
    if (!clock.hwmon.empty()) {
      if (auto hz = ReadHwmon(gpu, clock.hwmon); hz.ok() && *hz > 0) {
        e.Add(static_cast<double>(*hz), labels::kType, clock.type);
        continue;
      }
    }
    bool found = false;
    if (gpu.metrics.ok()) {
      for (const auto& [name, mhz] : gpu.metrics->clocks_mhz) {
        if (name == clock.metrics_name) {
          e.Add(mhz * 1e6, labels::kType, clock.type);
          found = true;
          break;
        }
      }
    }
    if (found) continue;
    auto dpm = ReadFileToString(gpu.card.device_dir + "/" + std::string(clock.dpm));
    if (dpm.ok()) {
      if (auto mhz = ParseCurrentDpmLevelMhz(*dpm)) e.Add(*mhz * 1e6, labels::kType, clock.type);
    }
  }
  return std::move(e).Done("unsupported: no hwmon freq*_input, gpu_metrics clocks or pp_dpm_*");
}

// The highest DPM level of the gfx and memory clocks (what amd-smi reports as the maximum).
Reading MaxClocks(const AmdGpu& gpu, const CollectContext& c) {
  Emitter e(m::kClockMax, gpu, c.wall_ns);
  for (auto [dpm, type] : {std::pair{"pp_dpm_sclk", "gfx"}, std::pair{"pp_dpm_mclk", "memory"}}) {
    auto text = ReadFileToString(gpu.card.device_dir + "/" + dpm);
    if (!text.ok()) continue;
    if (auto mhz = ParseHighestDpmLevelMhz(*text)) e.Add(*mhz * 1e6, labels::kType, type);
  }
  return std::move(e).Done("unsupported: no pp_dpm_sclk or pp_dpm_mclk levels");
}

// hwmon's power cap (the limit set now) and its range and default, microwatts to watts.
Reading PowerLimits(const AmdGpu& gpu, const CollectContext& c) {
  Emitter e(m::kPowerLimit, gpu, c.wall_ns);
  for (auto [file, type] :
       {std::pair{"power1_cap", "current"}, std::pair{"power1_cap_default", "default"},
        std::pair{"power1_cap_min", "min"}, std::pair{"power1_cap_max", "max"}}) {
    if (auto uw = ReadHwmon(gpu, file); uw.ok() && *uw > 0) e.Add(*uw * 1e-6, labels::kType, type);
  }
  return std::move(e).Done("unsupported: no hwmon power1_cap");
}

// The PCIe link of the GPU's PCI function (sysfs current/max_link_speed and _width).
Reading PciLinkReading(std::string_view metric, const AmdGpu& gpu, const CollectContext& c) {
  Emitter e(metric, gpu, c.wall_ns);
  auto link = ReadPciLink(gpu.card.device_dir);
  if (!link.ok()) return std::move(e).Done("unsupported: " + link.error().message);
  const bool generation = metric == m::kHostLinkGeneration;
  const int now = generation ? link->generation : link->width;
  const int max = generation ? link->max_generation : link->max_width;
  if (now > 0) e.Add(now, labels::kType, "current");
  if (max > 0) e.Add(max, labels::kType, "max");
  return std::move(e).Done("unsupported: a link speed that is no PCIe generation: " + link->speed);
}

Reading Errors(const AmdGpu& gpu, const CollectContext& c) {
  Emitter e(m::kErrors, gpu, c.wall_ns);
  auto entries = ListDirectory(gpu.card.device_dir + "/ras");
  if (entries.ok()) {
    for (const std::string& file : *entries) {
      if (!file.ends_with("_err_count")) continue;
      const std::string block = file.substr(0, file.size() - std::string_view("_err_count").size());
      auto text = ReadFileToString(gpu.card.device_dir + "/ras/" + file);
      if (!text.ok()) continue;
      auto counts = ParseRasErrorCount(*text);
      if (!counts) continue;
      e.Add(static_cast<double>(counts->correctable), labels::kType, block + "_correctable");
      e.Add(static_cast<double>(counts->uncorrectable), labels::kType, block + "_uncorrectable");
      if (counts->deferred) {
        e.Add(static_cast<double>(*counts->deferred), labels::kType, block + "_deferred");
      }
    }
  }
  if (auto replays = ReadDevice(gpu, "pcie_replay_count"); replays.ok()) {
    e.Add(static_cast<double>(*replays), labels::kType, "pcie_replay");
  }
  return std::move(e).Done(
      "unsupported: no ras/*_err_count (RAS is on Instinct parts only) and no pcie_replay_count");
}

Reading HostLink(const AmdGpu& gpu, const CollectContext& c) {
  Emitter e(m::kHostLinkThroughput, gpu, c.wall_ns);
  if (gpu.metrics.ok() && gpu.metrics->pcie_bandwidth_inst_bytes_per_second) {
    e.Add(*gpu.metrics->pcie_bandwidth_inst_bytes_per_second, labels::kDirection, "total");
  }
  // device/pcie_bw is not read: the kernel sleeps 1 s inside each read on most ASICs, and its two
  // counters' directions are read differently by nvtop and ROCm SMI.
  return std::move(e).Done("unsupported: gpu_metrics before 1.4 has no PCIe bandwidth (" +
                           MetricsReason(gpu) +
                           "), and device/pcie_bw is not read (each read blocks for 1 s)");
}

Reading PeerLink(AmdGpu& gpu, const CollectContext& c) {
  if (!gpu.metrics.ok() || !gpu.metrics->has_xgmi) {
    return Reading::Unsupported(
        m::kPeerLinkThroughput, gpu.device.id,
        "unsupported: XGMI counters need gpu_metrics 1.4+ (" + MetricsReason(gpu) + ")");
  }
  std::array<uint64_t, 2> now{};
  for (int i = 0; i < 8; ++i) {
    now[0] += gpu.metrics->xgmi_read_kb[i];
    now[1] += gpu.metrics->xgmi_write_kb[i];
  }
  const auto before = gpu.previous_xgmi_kb;
  const auto before_ns = gpu.previous_xgmi_ns;
  gpu.previous_xgmi_kb = now;
  gpu.previous_xgmi_ns = c.monotonic_ns;
  if (!before || !before_ns || c.monotonic_ns <= *before_ns) {
    return Reading::NoData(m::kPeerLinkThroughput, gpu.device.id,
                           "no data: XGMI throughput needs two samples");
  }
  Emitter e(m::kPeerLinkThroughput, gpu, c.wall_ns);
  const double seconds = static_cast<double>(c.monotonic_ns - *before_ns) / 1e9;
  const char* directions[2] = {"rx", "tx"};  // read by this GPU = received
  for (int i = 0; i < 2; ++i) {
    if (now[i] < (*before)[i]) continue;
    e.Add(static_cast<double>(now[i] - (*before)[i]) * 1000.0 / seconds, labels::kDirection,
          directions[i]);
  }
  return std::move(e).Done("no data: XGMI counters went backwards");
}

Reading Processes(std::string_view metric, const AmdGpu& gpu, const CollectContext& c) {
  Emitter e(metric, gpu, c.wall_ns);
  for (const drm::ProcessGpuUsage& p : *c.processes) {
    if (p.pdev != gpu.card.pci_slot) continue;
    if (metric == m::kProcessMemory) {
      if (!p.device_memory_bytes) continue;
      Sample s;
      s.labels.Set(labels::kDevice, gpu.device.id);
      s.labels.Set(labels::kPid, std::to_string(p.pid));
      s.timestamp_ns = c.wall_ns;
      s.value = static_cast<double>(*p.device_memory_bytes);
      e.reading.samples.push_back(std::move(s));
      continue;
    }
    auto it = c.busy->find({p.pdev, p.pid});
    if (it == c.busy->end()) continue;
    for (const auto& [engine, percent] : it->second) {
      Sample s;
      s.labels.Set(labels::kDevice, gpu.device.id);
      s.labels.Set(labels::kPid, std::to_string(p.pid));
      s.labels.Set(labels::kEngine, engine);
      s.timestamp_ns = c.wall_ns;
      s.value = percent;
      e.reading.samples.push_back(std::move(s));
    }
  }
  if (e.reading.samples.empty()) {
    return Reading::NoData(metric, gpu.device.id,
                           metric == m::kProcessMemory
                               ? "no data: no process of this user holds the device "
                                 "(/proc/<pid>/fdinfo; other users' need root)"
                               : "no data: per-process busy needs two samples of a process "
                                 "using the device (/proc/<pid>/fdinfo)");
  }
  return std::move(e.reading);
}

}  // namespace

const std::vector<AmdMetric>& AmdMetrics() {
  using C = const CollectContext&;
  static const std::vector<AmdMetric> handlers = {
      {m::kTensorCoreUtilization,
       [](std::string_view metric, AmdGpu& gpu, C) {
         return Reading::Unsupported(
             metric, gpu.device.id,
             "unsupported: amdgpu exposes no matrix-core utilisation (only profiler counters, "
             "rocprofiler, measure it); sysfs, gpu_metrics and AMD SMI do not");
       }},
      {m::kDutyCycle,
       [](std::string_view metric, AmdGpu& gpu, C c) {
         return Percent(metric, gpu, c, "gpu_busy_percent", &GpuMetrics::gfx_activity_percent);
       }},
      {m::kMemoryTotal,
       [](std::string_view metric, AmdGpu& gpu, C c) { return Memory(metric, gpu, c); }},
      {m::kMemoryUsed,
       [](std::string_view metric, AmdGpu& gpu, C c) { return Memory(metric, gpu, c); }},
      {m::kPower, [](std::string_view, AmdGpu& gpu, C c) { return Power(gpu, c); }},
      {m::kEnergy, [](std::string_view, AmdGpu& gpu, C c) { return Energy(gpu, c); }},
      {m::kTemperature, [](std::string_view, AmdGpu& gpu, C c) { return Temperature(gpu, c); }},
      {m::kClock, [](std::string_view, AmdGpu& gpu, C c) { return Clocks(gpu, c); }},
      {m::kMemoryBandwidthUtilization,
       [](std::string_view metric, AmdGpu& gpu, C c) {
         return Percent(metric, gpu, c, "mem_busy_percent", &GpuMetrics::umc_activity_percent);
       }},
      {m::kHostLinkThroughput, [](std::string_view, AmdGpu& gpu, C c) { return HostLink(gpu, c); }},
      {m::kErrors, [](std::string_view, AmdGpu& gpu, C c) { return Errors(gpu, c); }},
      {m::kProcessMemory,
       [](std::string_view metric, AmdGpu& gpu, C c) { return Processes(metric, gpu, c); }, true},
      {m::kProcessEngineBusy,
       [](std::string_view metric, AmdGpu& gpu, C c) { return Processes(metric, gpu, c); }, true},
      {m::kClockEventActive,
       [](std::string_view, AmdGpu& gpu, C c) { return ThrottleReasons(gpu, c.wall_ns); }},
      {m::kPeerLinkThroughput, [](std::string_view, AmdGpu& gpu, C c) { return PeerLink(gpu, c); }},
      {m::kClockMax, [](std::string_view, AmdGpu& gpu, C c) { return MaxClocks(gpu, c); }},
      {m::kPowerLimit, [](std::string_view, AmdGpu& gpu, C c) { return PowerLimits(gpu, c); }},
      {m::kHostLinkGeneration,
       [](std::string_view metric, AmdGpu& gpu, C c) { return PciLinkReading(metric, gpu, c); }},
      {m::kHostLinkWidth,
       [](std::string_view metric, AmdGpu& gpu, C c) { return PciLinkReading(metric, gpu, c); }},
  };
  return handlers;
}

Reading ReadAmdMetric(std::string_view metric, AmdGpu& gpu, const CollectContext& c) {
  if (gpu.lost) return Reading::NoData(metric, gpu.device.id, "no data: " + gpu.lost_reason);
  for (const AmdMetric& handler : AmdMetrics()) {
    if (handler.metric == metric) return handler.read(metric, gpu, c);
  }
  return Reading::Unsupported(metric, gpu.device.id,
                              "unsupported: not a metric the AMD backend reports");
}

}  // namespace xpuperf::amd
