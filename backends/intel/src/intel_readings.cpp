#include "intel_readings.h"

#include <fmt/format.h>

#include <algorithm>

#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/pci_link.h"
#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::intel {
namespace {

namespace m = metrics;

Sample MakeSample(const IntelGpu& gpu, int64_t wall_ns, double value,
                  std::initializer_list<std::pair<std::string_view, std::string>> extra = {}) {
  Sample s;
  s.labels.Set(labels::kDevice, gpu.device.id);
  for (const auto& [key, label] : extra) s.labels.Set(key, label);
  s.timestamp_ns = wall_ns;
  s.value = value;
  return s;
}

Reading Begin(std::string_view metric, const IntelGpu& gpu) {
  Reading r;
  r.metric = std::string(metric);
  r.device = gpu.device.id;
  return r;
}

Reading OrUnsupported(Reading r, std::string reason) {
  if (r.samples.empty()) return Reading::Unsupported(r.metric, r.device, std::move(reason));
  return r;
}

// The counter in µJ accumulated across wraps, starting from the first raw value.
std::optional<uint64_t> ReadEnergyMicrojoules(EnergyDomain& domain) {
  auto raw = ReadUnsignedFile(domain.file);
  if (!raw.ok()) return std::nullopt;
  if (!domain.first_raw) domain.first_raw = *raw;
  return *domain.first_raw + domain.counter.Add(*raw);
}

Reading Energy(IntelGpu& gpu, const CollectContext& c) {
  Reading r = Begin(m::kEnergy, gpu);
  for (EnergyDomain& domain : gpu.energy) {
    if (auto uj = ReadEnergyMicrojoules(domain)) {
      r.samples.push_back(MakeSample(gpu, c.wall_ns, static_cast<double>(*uj) / 1e6,
                                     {{labels::kDomain, domain.domain}}));
    }
  }
  return OrUnsupported(std::move(r), gpu.card.hwmon_dir.empty()
                                         ? "unsupported: the driver registered no hwmon chip "
                                           "(integrated GPUs have none; dGPUs need kernel 6.2+)"
                                         : "unsupported: the hwmon chip has no energy*_input");
}

Reading Power(IntelGpu& gpu, const CollectContext& c) {
  Reading r = Begin(m::kPower, gpu);
  bool waiting = false;
  for (EnergyDomain& domain : gpu.energy) {
    auto uj = ReadEnergyMicrojoules(domain);
    if (!uj) continue;
    const auto before = domain.previous_power_point;
    domain.previous_power_point = std::pair{*uj, c.monotonic_ns};
    if (!before || c.monotonic_ns <= before->second) {
      waiting = true;
      continue;
    }
    // W = ΔµJ / Δµs.
    const double watts = static_cast<double>(*uj - before->first) /
                         (static_cast<double>(c.monotonic_ns - before->second) / 1e3);
    r.samples.push_back(MakeSample(gpu, c.wall_ns, watts, {{labels::kDomain, domain.domain}}));
  }
  if (r.samples.empty() && waiting) {
    return Reading::NoData(
        m::kPower, gpu.device.id,
        "no data: power is Δenergy/Δt between two samples of hwmon energy*_input");
  }
  return OrUnsupported(std::move(r),
                       "unsupported: power is computed from hwmon energy*_input, which this "
                       "device does not have");
}

Reading Temperature(const IntelGpu& gpu, const CollectContext& c) {
  Reading r = Begin(m::kTemperature, gpu);
  if (!gpu.card.hwmon_dir.empty()) {
    for (int i = 1; i <= 8; ++i) {
      auto millis = ReadSignedFile(gpu.card.hwmon_dir + fmt::format("/temp{}_input", i));
      if (!millis.ok()) continue;
      auto label = ReadTrimmedFile(gpu.card.hwmon_dir + fmt::format("/temp{}_label", i));
      r.samples.push_back(MakeSample(gpu, c.wall_ns, static_cast<double>(*millis) / 1000.0,
                                     {{labels::kSensor, label.ok() ? *label : "gpu"}}));
    }
  }
  return OrUnsupported(std::move(r), "unsupported: no hwmon temp*_input for this device");
}

Reading Clocks(const IntelGpu& gpu, const CollectContext& c) {
  Reading r = Begin(m::kClock, gpu);
  for (const IntelGt& gt : gpu.gts) {
    auto mhz = ReadUnsignedFile(gt.act_freq_file);
    if (!mhz.ok()) continue;
    // 0 while the GT sleeps in RC6: a real reading, not a missing one.
    r.samples.push_back(MakeSample(gpu, c.wall_ns, static_cast<double>(*mhz) * 1e6,
                                   {{labels::kType, fmt::format("gt{}", gt.id)}}));
  }
  return OrUnsupported(std::move(r), gpu.card.driver == "xe"
                                         ? "unsupported: no device/tile*/gt*/freq0/act_freq"
                                         : "unsupported: no gt/gt*/rps_act_freq_mhz or "
                                           "gt_act_freq_mhz");
}

// Each GT's highest frequency: the sibling of its actual-frequency file (i915 rps_max_freq_mhz or
// gt_max_freq_mhz, xe freq0/max_freq), MHz.
Reading MaxClocks(const IntelGpu& gpu, const CollectContext& c) {
  Reading r = Begin(m::kClockMax, gpu);
  for (const IntelGt& gt : gpu.gts) {
    std::string path = gt.act_freq_file;
    const size_t name = path.rfind('/') + 1;  // npos + 1 = 0: a bare name
    const size_t act = path.find("act", name);
    if (act == std::string::npos) continue;
    path.replace(act, 3, "max");
    auto mhz = ReadUnsignedFile(path);
    if (!mhz.ok() || *mhz == 0) continue;
    r.samples.push_back(MakeSample(gpu, c.wall_ns, static_cast<double>(*mhz) * 1e6,
                                   {{labels::kType, fmt::format("gt{}", gt.id)}}));
  }
  return OrUnsupported(std::move(r), "unsupported: no GT maximum frequency file");
}

Reading ThrottleReasons(const IntelGpu& gpu, const CollectContext& c) {
  Reading r = Begin(m::kClockEventActive, gpu);
  // GT 0 holds the render/compute engines (later GTs are media).
  const IntelGt* gt = gpu.gts.empty() ? nullptr : &gpu.gts.front();
  if (gt != nullptr && !gt->throttle_dir.empty()) {
    for (const char* reason : kIntelThrottleReasons) {
      auto active = ReadUnsignedFile(gt->throttle_dir + "/" + gt->throttle_prefix + reason);
      if (!active.ok()) continue;
      r.samples.push_back(
          MakeSample(gpu, c.wall_ns, *active != 0 ? 1.0 : 0.0, {{labels::kReason, reason}}));
    }
    if (auto any = ReadUnsignedFile(gt->status_file); any.ok() && !r.samples.empty()) {
      r.samples.push_back(
          MakeSample(gpu, c.wall_ns, *any != 0 ? 1.0 : 0.0, {{labels::kReason, "any"}}));
    }
  }
  return OrUnsupported(std::move(r),
                       "unsupported: no throttle reason files (i915 gt/gt0/throttle_reason_*, xe "
                       "tile0/gt0/freq0/throttle/reason_*; kernel 6.1+)");
}

// Level Zero for this device, or nullptr with *why set ("Level Zero: …").
LevelZeroLibrary* LevelZeroFor(const IntelGpu& gpu, const CollectContext& c, std::string* why) {
  LevelZeroLibrary* ze = c.level_zero->Get();
  if (ze == nullptr) {
    *why = "Level Zero: " + c.level_zero->reason();
    return nullptr;
  }
  if (!ze->HasDevice(gpu.card.pci_slot)) {
    *why = "Level Zero: " + ze->description() + " does not list " + gpu.card.pci_slot;
    return nullptr;
  }
  return ze;
}

Reading Memory(std::string_view metric, const IntelGpu& gpu, const CollectContext& c) {
  if (metric == m::kMemoryTotal && gpu.device.memory_bytes > 0) {
    Reading r = Begin(metric, gpu);
    r.samples.push_back(MakeSample(gpu, c.wall_ns, static_cast<double>(gpu.device.memory_bytes)));
    return r;
  }
  std::string why;
  if (LevelZeroLibrary* ze = LevelZeroFor(gpu, c, &why)) {
    std::string detail;
    if (auto memory = ze->DeviceMemory(gpu.card.pci_slot, &detail)) {
      Reading r = Begin(metric, gpu);
      // zesMemoryGetState: used = physicalSize - free (its `size` field is deprecated).
      const uint64_t value = metric == m::kMemoryTotal         ? memory->first
                             : memory->first >= memory->second ? memory->first - memory->second
                                                               : 0;
      r.samples.push_back(MakeSample(gpu, c.wall_ns, static_cast<double>(value)));
      return r;
    }
    why = "Level Zero: " + detail;
  }
  if (metric == m::kMemoryTotal) {
    return Reading::Unsupported(
        metric, gpu.device.id,
        gpu.card.driver == "xe"
            ? "unsupported: no device/tile*/physical_vram_size_bytes (integrated GPU, or kernel "
              "before 6.8)"
            : "unsupported: i915 reports device memory only through the "
              "DRM_I915_QUERY_MEMORY_REGIONS ioctl, which xpuperf does not issue; " +
                  why);
  }
  return Reading::Unsupported(
      metric, gpu.device.id,
      "unsupported: device memory in use comes from Level Zero Sysman or a DRM query ioctl that "
      "reports it only with CAP_PERFMON (per-process use is in process_memory_bytes); " +
          why);
}

Reading DutyCycle(const IntelGpu& gpu, const CollectContext& c) {
  // Level Zero's device-level engine group first (what the i915 PMU measures), else the clients.
  std::string why;
  if (LevelZeroLibrary* ze = LevelZeroFor(gpu, c, &why)) {
    std::string detail;
    if (auto percent = ze->EngineBusyPercent(gpu.card.pci_slot, &detail)) {
      Reading r = Begin(m::kDutyCycle, gpu);
      r.samples.push_back(MakeSample(gpu, c.wall_ns, *percent));
      return r;
    }
    if (detail == "engine activity needs two samples") {
      return Reading::NoData(m::kDutyCycle, gpu.device.id,
                             "no data: Level Zero engine activity needs two samples");
    }
    why = "Level Zero: " + detail;
  }
  if (c.first_busy_sample) {
    return Reading::NoData(m::kDutyCycle, gpu.device.id,
                           "no data: busy is summed from client fdinfo between two samples");
  }
  const auto device = drm::DeviceBusyFromClients(*c.busy);
  auto it = device.find(gpu.card.pci_slot);
  if (it == device.end() || it->second.empty()) {
    return Reading::NoData(
        m::kDutyCycle, gpu.device.id,
        "no data: no visible client used the device (busy is summed from /proc/<pid>/fdinfo; the "
        "i915 PMU would need CAP_PERFMON, other users' processes need root); " +
            why);
  }
  // The busiest engine class, each class being the sum of its clients (nvtop's rule).
  double busiest = 0;
  for (const auto& [engine, percent] : it->second) busiest = std::max(busiest, percent);
  Reading r = Begin(m::kDutyCycle, gpu);
  r.samples.push_back(MakeSample(gpu, c.wall_ns, busiest));
  return r;
}

// The PCIe link of the GPU's PCI function (sysfs current/max_link_speed and _width).
Reading PciLinkReading(std::string_view metric, const IntelGpu& gpu, const CollectContext& c) {
  Reading r = Begin(metric, gpu);
  auto link = ReadPciLink(gpu.card.device_dir);
  if (!link.ok())
    return Reading::Unsupported(metric, gpu.device.id, "unsupported: " + link.error().message);
  const bool generation = metric == m::kHostLinkGeneration;
  const int now = generation ? link->generation : link->width;
  const int max = generation ? link->max_generation : link->max_width;
  if (now > 0) r.samples.push_back(MakeSample(gpu, c.wall_ns, now, {{labels::kType, "current"}}));
  if (max > 0) r.samples.push_back(MakeSample(gpu, c.wall_ns, max, {{labels::kType, "max"}}));
  return OrUnsupported(std::move(r),
                       "unsupported: a link speed that is no PCIe generation: " + link->speed);
}

Reading Errors(const IntelGpu& gpu, const CollectContext& c) {
  std::string why;
  if (LevelZeroLibrary* ze = LevelZeroFor(gpu, c, &why)) {
    std::string detail;
    Reading r = Begin(m::kErrors, gpu);
    for (const auto& [type, count] : ze->RasCounts(gpu.card.pci_slot, &detail)) {
      r.samples.push_back(
          MakeSample(gpu, c.wall_ns, static_cast<double>(count), {{labels::kType, type}}));
    }
    if (!r.samples.empty()) return r;
    why = "Level Zero: " + detail;
  }
  return Reading::Unsupported(m::kErrors, gpu.device.id,
                              "unsupported: RAS error counters come only from Level Zero Sysman "
                              "(zesRasGetState); i915/xe sysfs has none; " +
                                  why);
}

Reading Processes(std::string_view metric, const IntelGpu& gpu, const CollectContext& c) {
  Reading r = Begin(metric, gpu);
  for (const drm::ProcessGpuUsage& p : *c.processes) {
    if (p.pdev != gpu.card.pci_slot) continue;
    if (metric == m::kProcessMemory) {
      if (p.device_memory_bytes) {
        r.samples.push_back(MakeSample(gpu, c.wall_ns, static_cast<double>(*p.device_memory_bytes),
                                       {{labels::kPid, std::to_string(p.pid)}}));
      }
      continue;
    }
    auto it = c.busy->find({p.pdev, p.pid});
    if (it == c.busy->end()) continue;
    for (const auto& [engine, percent] : it->second) {
      r.samples.push_back(
          MakeSample(gpu, c.wall_ns, percent,
                     {{labels::kPid, std::to_string(p.pid)}, {labels::kEngine, engine}}));
    }
  }
  if (r.samples.empty()) {
    return Reading::NoData(metric, gpu.device.id,
                           metric == m::kProcessMemory
                               ? "no data: no visible process holds device memory on it "
                                 "(/proc/<pid>/fdinfo drm-total-local0 / drm-total-vram0)"
                               : "no data: per-process busy needs two samples of a process using "
                                 "the device (/proc/<pid>/fdinfo)");
  }
  return r;
}

}  // namespace

const std::vector<IntelMetric>& IntelMetrics() {
  using C = const CollectContext&;
  static const std::vector<IntelMetric> handlers = {
      {m::kTensorCoreUtilization,
       [](std::string_view metric, IntelGpu& gpu, C) {
         return Reading::Unsupported(
             metric, gpu.device.id,
             "unsupported: Intel exposes XMX (matrix engine) use only through profiler counters "
             "(Level Zero Metrics API, MDAPI); neither sysfs nor Level Zero Sysman gives it");
       }},
      {m::kDutyCycle, [](std::string_view, IntelGpu& gpu, C c) { return DutyCycle(gpu, c); }, true},
      {m::kMemoryTotal,
       [](std::string_view metric, IntelGpu& gpu, C c) { return Memory(metric, gpu, c); }},
      {m::kMemoryUsed,
       [](std::string_view metric, IntelGpu& gpu, C c) { return Memory(metric, gpu, c); }},
      {m::kPower, [](std::string_view, IntelGpu& gpu, C c) { return Power(gpu, c); }},
      {m::kEnergy, [](std::string_view, IntelGpu& gpu, C c) { return Energy(gpu, c); }},
      {m::kTemperature, [](std::string_view, IntelGpu& gpu, C c) { return Temperature(gpu, c); }},
      {m::kClock, [](std::string_view, IntelGpu& gpu, C c) { return Clocks(gpu, c); }},
      {m::kHostLinkThroughput,
       [](std::string_view metric, IntelGpu& gpu, C) {
         return Reading::Unsupported(metric, gpu.device.id,
                                     "unsupported: PCIe counters come only from Level Zero Sysman "
                                     "(zesDevicePciGetStats); i915/xe sysfs has none");
       }},
      {m::kErrors, [](std::string_view, IntelGpu& gpu, C c) { return Errors(gpu, c); }},
      {m::kProcessMemory,
       [](std::string_view metric, IntelGpu& gpu, C c) { return Processes(metric, gpu, c); }, true},
      {m::kProcessEngineBusy,
       [](std::string_view metric, IntelGpu& gpu, C c) { return Processes(metric, gpu, c); }, true},
      {m::kClockEventActive,
       [](std::string_view, IntelGpu& gpu, C c) { return ThrottleReasons(gpu, c); }},
      {m::kClockMax, [](std::string_view, IntelGpu& gpu, C c) { return MaxClocks(gpu, c); }},
      {m::kHostLinkGeneration,
       [](std::string_view metric, IntelGpu& gpu, C c) { return PciLinkReading(metric, gpu, c); }},
      {m::kHostLinkWidth,
       [](std::string_view metric, IntelGpu& gpu, C c) { return PciLinkReading(metric, gpu, c); }},
  };
  return handlers;
}

Reading ReadIntelMetric(std::string_view metric, IntelGpu& gpu, const CollectContext& c) {
  if (gpu.lost) return Reading::NoData(metric, gpu.device.id, "no data: " + gpu.lost_reason);
  for (const IntelMetric& handler : IntelMetrics()) {
    if (handler.metric == metric) return handler.read(metric, gpu, c);
  }
  return Reading::Unsupported(metric, gpu.device.id,
                              "unsupported: not a metric the Intel backend reports");
}

}  // namespace xpuperf::intel
