#include "verdict_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::health {

DeviceReadings::DeviceReadings(const std::vector<Reading>& all, std::string_view device) {
  for (const Reading& r : all)
    if (r.device == device) readings_.push_back(&r);
}

const Reading* DeviceReadings::Find(std::string_view metric) const {
  for (const Reading* r : readings_)
    if (r->metric == metric) return r;
  return nullptr;
}

std::string DeviceReadings::LostReason() const {
  for (const Reading* r : readings_) {
    if (r->state != ReadingState::kOk && (r->reason.find("GPU lost") != std::string::npos ||
                                          r->reason.find("needs a reset") != std::string::npos))
      return r->reason;
  }
  return {};
}

Verdict Finding(Subsystem subsystem, Status status, std::string code, Action action,
                std::string summary, std::string evidence, std::string source) {
  Verdict v;
  v.subsystem = subsystem;
  v.status = status;
  v.code = std::move(code);
  v.action = action;
  v.severity = status == Status::kFail   ? Severity::kCritical
               : status == Status::kWarn ? Severity::kWarning
                                         : Severity::kInfo;
  v.summary = std::move(summary);
  v.evidence = std::move(evidence);
  v.source = std::move(source);
  return v;
}

Verdict Pass(Subsystem subsystem, std::string evidence, std::string source) {
  Verdict v = Finding(subsystem, Status::kPass, "OK", Action::kNone, "healthy", std::move(evidence),
                      std::move(source));
  v.severity = Severity::kNone;
  return v;
}

Verdict Unknown(Subsystem subsystem, std::string reason, std::string source) {
  return Finding(subsystem, Status::kUnknown, "UNKNOWN", Action::kNone, "could not be read here",
                 std::move(reason), std::move(source));
}

namespace {

using Counts = std::map<std::string, double>;  // errors_total by its type label

Counts ErrorCounts(const Reading& r) {
  Counts counts;
  for (const Sample& s : r.samples) {
    if (s.is_distribution()) continue;
    counts[std::string(s.labels.Get(labels::kType))] += s.scalar();
  }
  return counts;
}

double Count(const Counts& counts, const std::string& type) {
  auto it = counts.find(type);
  return it == counts.end() ? 0 : it->second;
}

std::string CountsText(const Counts& counts) {
  std::string out;
  for (const auto& [type, value] : counts)
    out += fmt::format("{}{}={:g}", out.empty() ? "" : ", ", type, value);
  return out.empty() ? "no error counters" : out;
}

bool Contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

// An uncorrectable RAS count of AMD ("<block>_uncorrectable") or Intel ("uncorrectable_<kind>").
// NVIDIA's own counters (remapped_rows_uncorrectable: rows remapped after uncorrectable errors)
// are the memory rules' business, not a RAS block's.
bool IsRasUncorrectable(const std::string& type) {
  if (type.starts_with("remapped_rows") || type.starts_with("ecc_") ||
      type.starts_with("retired_pages"))
    return false;
  return type.ends_with("_uncorrectable") || type.starts_with("uncorrectable_");
}

// Which subsystem a RAS block belongs to.
Subsystem RasSubsystem(const std::string& type) {
  if (Contains(type, "umc") || Contains(type, "hbm") || Contains(type, "cache") ||
      Contains(type, "mca"))
    return Subsystem::kMemory;
  if (Contains(type, "xgmi") || Contains(type, "wafl")) return Subsystem::kInterconnect;
  if (Contains(type, "pcie") || Contains(type, "bif")) return Subsystem::kPcie;
  return Subsystem::kDriver;
}

struct MemoryRule {
  std::string_view type;  // the errors_total type it reads
  double at_least;
  Status status;
  std::string_view code;
  Action action;
  std::string_view summary;
};

// In order of precedence: the first that matches is the verdict; the evidence lists every count.
// NVIDIA's limits are DCGM's (60 retired pages, 15 of them from double-bit errors).
constexpr MemoryRule kMemoryRules[] = {
    {"remapped_rows_failure", 1, Status::kFail, "MEM_ROW_REMAP_FAILURE", Action::kReplaceDevice,
     "a row remap failed: the memory has no spare rows left"},
    {"retired_pages_total", 60, Status::kFail, "MEM_RETIRED_PAGES_LIMIT", Action::kReplaceDevice,
     "60 or more pages retired: past DCGM's limit"},
    {"ecc_uncorrected_volatile", 1, Status::kFail, "MEM_UNCORRECTABLE_VOLATILE",
     Action::kResetDevice, "uncorrectable ECC errors since the driver loaded"},
    {"ecc_uncorrected", 1, Status::kFail, "MEM_UNCORRECTABLE", Action::kDrainNode,
     "uncorrectable memory errors since boot (EDAC): a DIMM to replace"},
    {"remapped_rows_pending", 1, Status::kWarn, "MEM_ROW_REMAP_PENDING", Action::kResetDevice,
     "a row remap waits for the next reset"},
    {"retired_pages_pending", 1, Status::kWarn, "MEM_PAGE_RETIREMENT_PENDING", Action::kResetDevice,
     "a page retirement waits for the next reset"},
    {"retired_pages_dbe", 15, Status::kWarn, "MEM_RETIRED_PAGES_SOFT_LIMIT", Action::kNone,
     "15 or more pages retired for double-bit errors: past DCGM's soft limit"},
    {"ecc_uncorrected_aggregate", 1, Status::kWarn, "MEM_UNCORRECTABLE_HISTORY", Action::kNone,
     "uncorrectable ECC errors in the device's lifetime, none since the driver loaded"},
};

}  // namespace

Verdict MemoryVerdict(const DeviceReadings& readings) {
  const Reading* r = readings.Find(metrics::kErrors);
  if (r == nullptr) return Unknown(Subsystem::kMemory, "no errors_total reading", "errors_total");
  if (r->state != ReadingState::kOk) return Unknown(Subsystem::kMemory, r->reason, "errors_total");
  Counts counts = ErrorCounts(*r);
  if (counts.contains("retired_pages_sbe") || counts.contains("retired_pages_dbe")) {
    counts["retired_pages_total"] =
        Count(counts, "retired_pages_sbe") + Count(counts, "retired_pages_dbe");
  }
  const std::string evidence = CountsText(counts);
  for (const MemoryRule& rule : kMemoryRules) {
    if (Count(counts, std::string(rule.type)) >= rule.at_least) {
      return Finding(Subsystem::kMemory, rule.status, std::string(rule.code), rule.action,
                     std::string(rule.summary), evidence, "errors_total");
    }
  }
  for (const auto& [type, value] : counts) {
    if (value > 0 && IsRasUncorrectable(type) && RasSubsystem(type) == Subsystem::kMemory) {
      return Finding(Subsystem::kMemory, Status::kFail, "MEM_UNCORRECTABLE", Action::kResetDevice,
                     "uncorrectable memory errors (RAS " + type + ")", evidence, "errors_total");
    }
  }
  // Level Zero answers the correctable set to anyone and the uncorrectable one to root only: a
  // device with the first and not the second has not shown that it has no uncorrectable error.
  bool correctable_ras = false, uncorrectable_ras = false;
  for (const auto& [type, value] : counts) {
    correctable_ras |= type.starts_with("correctable_");
    uncorrectable_ras |= type.starts_with("uncorrectable_");
  }
  if (correctable_ras && !uncorrectable_ras) {
    return Unknown(Subsystem::kMemory,
                   evidence +
                       "; the uncorrectable RAS counters were not readable (Level Zero "
                       "Sysman gives them to root only)",
                   "errors_total");
  }
  return Pass(Subsystem::kMemory, evidence, "errors_total");
}

std::vector<Verdict> RasBlockVerdicts(const DeviceReadings& readings) {
  std::vector<Verdict> out;
  const Reading* r = readings.Find(metrics::kErrors);
  if (r == nullptr || r->state != ReadingState::kOk) return out;
  std::map<Subsystem, std::string> found;
  for (const auto& [type, value] : ErrorCounts(*r)) {
    if (value <= 0 || !IsRasUncorrectable(type)) continue;
    const Subsystem s = RasSubsystem(type);
    if (s == Subsystem::kMemory) continue;  // MemoryVerdict's
    found[s] += fmt::format("{}{}={:g}", found[s].empty() ? "" : ", ", type, value);
  }
  for (const auto& [subsystem, evidence] : found) {
    out.push_back(Finding(subsystem, Status::kFail, "RAS_UNCORRECTABLE", Action::kResetDevice,
                          "uncorrectable hardware errors (RAS); the driver resets the device",
                          evidence, "errors_total"));
  }
  return out;
}

namespace {

// The active clock-event reasons, or nullopt with the reason they could not be read.
std::optional<std::vector<std::string>> ActiveReasons(const DeviceReadings& readings,
                                                      std::string* why) {
  const Reading* r = readings.Find(metrics::kClockEventActive);
  if (r == nullptr || r->state != ReadingState::kOk) {
    *why = r == nullptr ? "no clock_event_active reading" : r->reason;
    return std::nullopt;
  }
  std::vector<std::string> active;
  for (const Sample& s : r->samples)
    if (!s.is_distribution() && s.scalar() > 0) active.emplace_back(s.labels.Get(labels::kReason));
  return active;
}

bool Has(const std::vector<std::string>& reasons, std::string_view reason) {
  for (const std::string& r : reasons)
    if (r == reason) return true;
  return false;
}

std::string ReasonsText(const std::vector<std::string>& reasons) {
  return reasons.empty() ? "no clock-event reason active"
                         : fmt::format("active clock-event reasons: {}", fmt::join(reasons, ", "));
}

std::string TemperatureText(const DeviceReadings& readings) {
  const Reading* t = readings.Find(metrics::kTemperature);
  if (t == nullptr || t->state != ReadingState::kOk) return {};
  double hottest = -1e9;
  for (const Sample& s : t->samples)
    if (!s.is_distribution()) hottest = std::max(hottest, s.scalar());
  return hottest > -1e9 ? fmt::format("; hottest sensor {:.0f} °C", hottest) : std::string();
}

// The kernel's thermal-throttle events since boot (x86: one directory per CPU).
Verdict CpuThrottleCounters(const std::string& root, const std::string& why) {
  const std::string base = JoinRoot(root, "/sys/devices/system/cpu");
  auto cpus = ListDirectory(base);
  uint64_t core = 0, package = 0;
  int read = 0;
  if (cpus.ok()) {
    for (const std::string& cpu : *cpus) {
      if (!cpu.starts_with("cpu") || cpu.size() < 4 ||
          !std::isdigit(static_cast<unsigned char>(cpu[3])))
        continue;
      const std::string dir = fmt::format("{}/{}/thermal_throttle/", base, cpu);
      auto c = ReadUnsignedFile(dir + "core_throttle_count");
      auto p = ReadUnsignedFile(dir + "package_throttle_count");
      if (c.ok()) {
        core += *c;
        ++read;
      }
      if (p.ok()) package = std::max(package, *p);
    }
  }
  const std::string source = base + "/cpu*/thermal_throttle";
  if (read == 0) {
    return Unknown(Subsystem::kThermal,
                   why + "; no thermal_throttle counters (a VM, or a CPU without them)", source);
  }
  const std::string evidence = fmt::format(
      "{} core and {} package throttle events since boot over {} CPUs", core, package, read);
  if (core + package > 0) {
    return Finding(Subsystem::kThermal, Status::kWarn, "THERMAL_THROTTLED_SINCE_BOOT",
                   Action::kNone, "the CPU has slowed down for temperature: check the cooling",
                   evidence, source);
  }
  return Pass(Subsystem::kThermal, evidence, source);
}

}  // namespace

namespace {

// A sensor's temperature (temperature_celsius{sensor}) or a threshold (temperature_limit{type}).
std::optional<double> Labelled(const DeviceReadings& readings, std::string_view metric,
                               std::string_view key, std::string_view value) {
  const Reading* r = readings.Find(metric);
  if (r == nullptr || r->state != ReadingState::kOk) return std::nullopt;
  for (const Sample& s : r->samples)
    if (!s.is_distribution() && s.labels.Get(key) == value) return s.scalar();
  return std::nullopt;
}

// The GPU's (and its memory's) temperature against the driver's thresholds: a fail at the shutdown
// threshold, a warning at the slowdown one or the memory's maximum; nullopt below them or unread.
std::optional<Verdict> AtTemperatureLimit(const DeviceReadings& readings, std::string* limits) {
  const auto gpu = Labelled(readings, metrics::kTemperature, labels::kSensor, "gpu");
  const auto memory = Labelled(readings, metrics::kTemperature, labels::kSensor, "memory");
  const auto shutdown = Labelled(readings, metrics::kTemperatureLimit, labels::kType, "shutdown");
  const auto slowdown = Labelled(readings, metrics::kTemperatureLimit, labels::kType, "slowdown");
  const auto memory_max =
      Labelled(readings, metrics::kTemperatureLimit, labels::kType, "memory_max");
  std::vector<std::string> parts;
  if (slowdown) parts.push_back(fmt::format("slowdown at {:.0f} °C", *slowdown));
  if (shutdown) parts.push_back(fmt::format("shutdown at {:.0f} °C", *shutdown));
  if (memory_max) parts.push_back(fmt::format("memory maximum {:.0f} °C", *memory_max));
  if (!parts.empty()) *limits = fmt::format("; driver limits: {}", fmt::join(parts, ", "));
  const std::string evidence =
      fmt::format("GPU {}{}{}", gpu ? fmt::format("{:.0f} °C", *gpu) : "not read",
                  memory ? fmt::format(", memory {:.0f} °C", *memory) : "", *limits);
  const std::string source = "temperature_celsius, temperature_limit_celsius";
  if (gpu && shutdown && *gpu >= *shutdown) {
    return Finding(Subsystem::kThermal, Status::kFail, "THERMAL_SHUTDOWN_LIMIT", Action::kDrainNode,
                   "at the shutdown temperature: the cooling failed; the GPU turns itself off",
                   evidence, source);
  }
  if ((gpu && slowdown && *gpu >= *slowdown) || (memory && memory_max && *memory >= *memory_max)) {
    return Finding(Subsystem::kThermal, Status::kWarn, "THERMAL_AT_LIMIT", Action::kNone,
                   "at the driver's slowdown temperature (or the memory's maximum): check the "
                   "cooling and the airflow",
                   evidence, source);
  }
  return std::nullopt;
}

}  // namespace

Verdict ThermalVerdict(const DeviceReadings& readings, const std::string& root, bool accelerator) {
  std::string why, limits;
  const auto reasons = ActiveReasons(readings, &why);
  const std::optional<Verdict> at_limit =
      accelerator ? AtTemperatureLimit(readings, &limits) : std::nullopt;
  if (!reasons) {
    if (!accelerator) return CpuThrottleCounters(root, why);
    if (at_limit) return *at_limit;
    return Unknown(Subsystem::kThermal, "no throttle reasons: " + why, "clock_event_active");
  }
  const std::string evidence = ReasonsText(*reasons) + TemperatureText(readings) + limits;
  if (at_limit && at_limit->status == Status::kFail) {
    Verdict v = *at_limit;
    v.evidence = evidence;
    return v;
  }
  if (Has(*reasons, "hw_thermal_slowdown") || Has(*reasons, "sw_thermal_slowdown")) {
    return Finding(Subsystem::kThermal, Status::kWarn, "THERMAL_SLOWDOWN", Action::kNone,
                   "clocks are held down for temperature: check the cooling and the airflow",
                   evidence, "clock_event_active");
  }
  if (Has(*reasons, "hw_slowdown") && !Has(*reasons, "hw_power_brake_slowdown")) {
    return Finding(Subsystem::kThermal, Status::kWarn, "THERMAL_HW_SLOWDOWN", Action::kNone,
                   "hardware slowdown (temperature or an external signal) is active", evidence,
                   "clock_event_active");
  }
  if (at_limit) {
    Verdict v = *at_limit;
    v.evidence = evidence;
    return v;
  }
  return Pass(Subsystem::kThermal, evidence, "clock_event_active");
}

Verdict PowerVerdict(const DeviceReadings& readings) {
  std::string why;
  const auto reasons = ActiveReasons(readings, &why);
  if (!reasons)
    return Unknown(Subsystem::kPower, "no throttle reasons: " + why, "clock_event_active");
  const std::string evidence = ReasonsText(*reasons);
  if (Has(*reasons, "hw_power_brake_slowdown")) {
    return Finding(Subsystem::kPower, Status::kWarn, "POWER_BRAKE", Action::kNone,
                   "the board's power brake is asserted (an external signal): check the node's "
                   "power supply",
                   evidence, "clock_event_active");
  }
  if (Has(*reasons, "sw_power_cap")) {
    Verdict v = Pass(Subsystem::kPower, evidence, "clock_event_active");
    v.code = "POWER_CAPPED";
    v.severity = Severity::kInfo;
    v.summary = "held at its power limit (normal under full load)";
    return v;
  }
  return Pass(Subsystem::kPower, evidence, "clock_event_active");
}

namespace {

// NVLink's error counters since the driver loaded (NVML fields 38, 45, 52, 59). CRC errors and
// replays are retried by the link (DCGM judges their rate, not their count); a recovery means the
// link went down and was retrained: DCGM's NVLink failure.
Verdict NvlinkVerdict(const DeviceReadings& readings) {
  const Reading* r = readings.Find(metrics::kErrors);
  Counts nvlink;
  if (r != nullptr && r->state == ReadingState::kOk) {
    for (const auto& [type, value] : ErrorCounts(*r))
      if (type.starts_with("nvlink_")) nvlink[type] = value;
  }
  if (nvlink.empty()) {
    return Unknown(Subsystem::kInterconnect,
                   "no NVLink error counters (a GPU without NVLink, or the driver gives none); "
                   "NVLink XIDs (74) are judged from the kernel log",
                   "NVML fields 38, 45, 52, 59");
  }
  const std::string evidence = CountsText(nvlink);
  if (Count(nvlink, "nvlink_recovery") >= 1) {
    return Finding(Subsystem::kInterconnect, Status::kFail, "NVLINK_RECOVERY_ERRORS",
                   Action::kResetDevice,
                   "an NVLink went down and was retrained since the driver loaded", evidence,
                   "NVML field 59 (NVLink recovery errors, all lanes)");
  }
  return Pass(Subsystem::kInterconnect, evidence, "NVML fields 38, 45, 52, 59");
}

std::string WhyUnread(const Reading* r, std::string_view metric);  // below

// libtpu's ICI link health scores (0 healthy, 1-5 a transient problem, 6-9 a persistent minor
// problem, 10 not usable), on the host's first chip.
Verdict IciVerdict(const DeviceReadings& readings) {
  const std::string source = "ici_link_health_score (libtpu SDK)";
  const Reading* r = readings.Find(metrics::kIciLinkHealth);
  if (r == nullptr || r->state != ReadingState::kOk || r->samples.empty()) {
    return Unknown(Subsystem::kInterconnect, WhyUnread(r, metrics::kIciLinkHealth), source);
  }
  std::vector<std::string> down, degraded;
  double worst = 0;
  for (const Sample& s : r->samples) {
    if (s.is_distribution()) continue;
    const std::string link = fmt::format("{} scored {:g}", s.labels.Get(labels::kLink), s.scalar());
    if (s.scalar() >= 10) {
      down.push_back(link);
    } else if (s.scalar() >= 6) {
      degraded.push_back(link);
    }
    worst = std::max(worst, s.scalar());
  }
  if (!down.empty()) {
    return Finding(Subsystem::kInterconnect, Status::kFail, "TPU_ICI_LINK_DOWN", Action::kDrainNode,
                   "libtpu scores an ICI link not usable (10 of 10): the slice's collectives "
                   "cross it; drain the node and have the link repaired",
                   fmt::format("{}", fmt::join(down, "; ")), source);
  }
  if (!degraded.empty()) {
    return Finding(Subsystem::kInterconnect, Status::kWarn, "TPU_ICI_LINK_DEGRADED", Action::kNone,
                   "libtpu scores an ICI link with a persistent minor problem (6-9 of 10)",
                   fmt::format("{}", fmt::join(degraded, "; ")), source);
  }
  return Pass(Subsystem::kInterconnect,
              fmt::format("{} ICI links, worst score {:g} of 10", r->samples.size(), worst),
              source);
}

}  // namespace

Verdict InterconnectVerdict(const Device& device, const DeviceReadings& readings) {
  if (device.backend == "nvidia") return NvlinkVerdict(readings);
  if (device.backend == "tpu") return IciVerdict(readings);
  if (device.backend == "amd") {
    const Reading* r = readings.Find(metrics::kErrors);
    if (r != nullptr && r->state == ReadingState::kOk) {
      for (const auto& [type, value] : ErrorCounts(*r)) {
        if (type.starts_with("xgmi")) {
          return Pass(Subsystem::kInterconnect, "no uncorrectable XGMI/WAFL RAS error",
                      "errors_total");
        }
      }
    }
    return Unknown(Subsystem::kInterconnect, "no XGMI/WAFL RAS counters on this GPU",
                   "errors_total");
  }
  return Unknown(Subsystem::kInterconnect, "no link error source for this backend",
                 "backend " + device.backend);
}

namespace {

// The sample of type "sm" (the SM clock), else the first scalar sample of a reading.
std::optional<double> SmOrFirst(const Reading* r) {
  if (r == nullptr || r->state != ReadingState::kOk) return std::nullopt;
  for (const Sample& s : r->samples)
    if (!s.is_distribution() && s.labels.Get(labels::kType) == "sm") return s.scalar();
  for (const Sample& s : r->samples)
    if (!s.is_distribution()) return s.scalar();
  return std::nullopt;
}

std::string WhyUnread(const Reading* r, std::string_view metric) {
  if (r == nullptr) return fmt::format("no {} reading", metric);
  return r->state == ReadingState::kOk ? fmt::format("{} has no sample", metric) : r->reason;
}

}  // namespace

std::optional<Verdict> CoreErrorVerdict(const DeviceReadings& readings) {
  const Reading* r = readings.Find(metrics::kCoreErrorActive);
  if (r == nullptr || r->state != ReadingState::kOk) return std::nullopt;
  std::vector<std::string> in_error;
  for (const Sample& s : r->samples) {
    if (s.is_distribution() || s.scalar() <= 0) continue;
    in_error.push_back(
        fmt::format("core {}: {}", s.labels.Get(labels::kCore), s.labels.Get(labels::kError)));
  }
  if (in_error.empty()) {
    return Pass(Subsystem::kDriver,
                fmt::format("{} cores answer the runtime without error", r->samples.size()),
                "core_error_active (runtime status)");
  }
  return Finding(Subsystem::kDriver, Status::kFail, "TPU_CORE_ERROR", Action::kRestartJob,
                 "the TPU runtime reports a core in error: restart the job; if the error comes "
                 "back, reset the chip (restart the VM)",
                 fmt::format("{}", fmt::join(in_error, "; ")),
                 "core_error_active (runtime status)");
}

Verdict ClocksVerdict(const Device& device, const DeviceReadings& readings) {
  const std::string source = "clock_hertz, clock_max_hertz, duty_cycle_percent";
  const Reading* busy_reading = readings.Find(metrics::kDutyCycle);
  const Reading* clock_reading = readings.Find(metrics::kClock);
  const Reading* max_reading = readings.Find(metrics::kClockMax);
  const std::optional<double> busy = SmOrFirst(busy_reading);
  const std::optional<double> clock = SmOrFirst(clock_reading);
  const std::optional<double> max = SmOrFirst(max_reading);
  if (!clock || !max || *max <= 0) {
    const Reading* missing = clock ? max_reading : clock_reading;
    const std::string_view metric = clock ? metrics::kClockMax : metrics::kClock;
    return Unknown(Subsystem::kClocks,
                   "no current and maximum clock: " +
                       (missing == nullptr
                            ? fmt::format("the {} backend reports no {}", device.backend, metric)
                            : WhyUnread(missing, metric)),
                   "backend " + device.backend);
  }
  if (!busy) {
    return Unknown(Subsystem::kClocks,
                   "clocks are judged under load: " + WhyUnread(busy_reading, metrics::kDutyCycle),
                   source);
  }
  std::string evidence = fmt::format("clock {:.0f} of {:.0f} MHz maximum ({:.0f} %), busy {:.0f} %",
                                     *clock / 1e6, *max / 1e6, 100 * *clock / *max, *busy);
  if (*busy < kLoadedPercent) {
    return Unknown(Subsystem::kClocks,
                   evidence + fmt::format(": judged under load only (busy ≥ {:.0f} %; "
                                          "`xpuperf diag -r 3` loads the device)",
                                          kLoadedPercent),
                   source);
  }
  if (*clock >= kStuckFraction * *max) return Pass(Subsystem::kClocks, evidence, source);
  // Low clocks under load: a reason the driver reports explains them (the thermal and power
  // verdicts judge those); none explains a clock stuck low.
  std::string why;
  const auto reasons = ActiveReasons(readings, &why);
  if (!reasons) {
    return Unknown(Subsystem::kClocks, evidence + "; no clock-event reasons: " + why, source);
  }
  std::vector<std::string> holding;
  for (const std::string& r : *reasons)
    if (r != "gpu_idle") holding.push_back(r);
  if (!holding.empty()) {
    return Pass(Subsystem::kClocks,
                evidence + "; held down by " + fmt::format("{}", fmt::join(holding, ", ")),
                source + ", clock_event_active");
  }
  return Finding(Subsystem::kClocks, Status::kWarn, "CLOCKS_STUCK_LOW", Action::kResetDevice,
                 "the clock stays below half its maximum under load and the driver reports no "
                 "reason: reset the device",
                 evidence + "; " + ReasonsText(*reasons), source + ", clock_event_active");
}

}  // namespace xpuperf::health
