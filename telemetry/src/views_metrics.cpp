#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "xpuperf/core/json.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/temperature_sensor.h"
#include "xpuperf/core/version.h"
#include "xpuperf/render/format.h"
#include "xpuperf/render/text_table.h"
#include "xpuperf/telemetry/views.h"

namespace xpuperf::telemetry {

using Align = render::TextTable::Align;
namespace m = metrics;

namespace {

const Reading* Find(const std::vector<Reading>& readings, std::string_view metric,
                    std::string_view device) {
  for (const Reading& r : readings) {
    if (r.metric == metric && r.device == device) return &r;
  }
  return nullptr;
}

// The first sample whose label `key` equals `value` (key empty: the overall sample).
const Sample* FindSample(const Reading* r, std::string_view key = {}, std::string_view value = {}) {
  if (r == nullptr || r->state != ReadingState::kOk) return nullptr;
  if (key.empty()) return r->Overall();
  for (const Sample& s : r->samples) {
    if (s.labels.Get(key) == value && s.labels.Has(key)) return &s;
  }
  return nullptr;
}

std::string Scalar(const Sample* s, std::string_view unit) {
  if (s == nullptr || s->is_distribution()) return "n/a";
  return render::FormatValue(unit, s->scalar());
}

std::string Percentile(const Distribution& d, double q) {
  auto v = d.Percentile(q);
  return v ? FormatSeconds(*v) : "no data";
}

void DistributionTable(std::string& out, const MetricsSnapshot& snap, std::string_view metric,
                       const std::string& title, const std::string& label_key,
                       const std::string& label_header) {
  render::TextTable table(title, {{"Device"},
                                  {label_header},
                                  {"Count", Align::kRight},
                                  {"Mean", Align::kRight},
                                  {"P50", Align::kRight},
                                  {"P90", Align::kRight},
                                  {"P95", Align::kRight},
                                  {"P999", Align::kRight}});
  for (const Reading& r : snap.readings) {
    if (r.metric != metric || r.state != ReadingState::kOk) continue;
    for (const Sample& s : r.samples) {
      if (!s.is_distribution()) continue;
      const Distribution& d = s.distribution();
      // A transfer's kind (host_to_device, dcn, ...) keeps rows of equal buffer size apart.
      std::string label(s.labels.Get(label_key));
      if (s.labels.Has(labels::kType))
        label += " (" + std::string(s.labels.Get(labels::kType)) + ")";
      table.AddRow({r.device, label, std::to_string(d.count),
                    d.count ? FormatSeconds(d.Mean()) : "no data", Percentile(d, 0.5),
                    Percentile(d, 0.9), Percentile(d, 0.95), Percentile(d, 0.999)});
    }
  }
  if (!table.empty()) out += "\n" + table.Render();
}

// The "chips" table of tpu-info: what each device is, before its numbers.
void DeviceList(std::string& out, const MetricsSnapshot& snap) {
  render::TextTable table(fmt::format("Devices on {}", snap.host), {{"Device"},
                                                                    {"Backend"},
                                                                    {"Model"},
                                                                    {"Cores", Align::kRight},
                                                                    {"Threads", Align::kRight},
                                                                    {"Memory", Align::kRight}});
  for (const Device& d : snap.devices) {
    table.AddRow({render::DeviceColumn(d), d.backend, d.model, std::to_string(d.topology.cores),
                  std::to_string(d.topology.threads),
                  FormatBytes(static_cast<double>(d.memory_bytes))});
  }
  out += table.Render() + "\n";
}

void UtilizationTable(std::string& out, const MetricsSnapshot& snap) {
  render::TextTable table(
      fmt::format("Utilization and memory (rates over {:.2f} s)", snap.window_seconds),
      {{"Device"},
       {"Duty cycle", Align::kRight},
       {"Tensor/SIMD util", Align::kRight},
       {"Memory used", Align::kRight},
       {"Memory total", Align::kRight},
       {"Memory %", Align::kRight},
       {"Queue", Align::kRight}});
  for (const Device& d : snap.devices) {
    const Sample* used = FindSample(Find(snap.readings, m::kMemoryUsed, d.id));
    const Sample* total = FindSample(Find(snap.readings, m::kMemoryTotal, d.id));
    std::string share = "n/a";
    if (used && total && total->scalar() > 0)
      share = FormatPercent(100 * used->scalar() / total->scalar());
    const Reading* queue = Find(snap.readings, m::kQueueSize, d.id);
    const Sample* q = FindSample(queue);
    if (q == nullptr && queue && queue->state == ReadingState::kOk && !queue->samples.empty()) {
      q = &queue->samples.front();
    }
    table.AddRow(
        {render::DeviceColumn(d),
         Scalar(FindSample(Find(snap.readings, m::kDutyCycle, d.id)), "percent"),
         Scalar(FindSample(Find(snap.readings, m::kTensorCoreUtilization, d.id)), "percent"),
         Scalar(used, "bytes"), Scalar(total, "bytes"), share,
         q ? fmt::format("{:g}", q->scalar()) : "n/a"});
  }
  if (!table.empty()) out += table.Render();
}

void PerCoreTable(std::string& out, const MetricsSnapshot& snap) {
  render::TextTable table("Per-core", {{"Device"},
                                       {"Core", Align::kRight},
                                       {"Duty cycle", Align::kRight},
                                       {"Tensor/SIMD util", Align::kRight},
                                       {"Clock", Align::kRight}});
  for (const Device& d : snap.devices) {
    std::vector<std::string> cores;
    for (std::string_view metric : {m::kDutyCycle, m::kTensorCoreUtilization, m::kClock}) {
      const Reading* r = Find(snap.readings, metric, d.id);
      if (r == nullptr || r->state != ReadingState::kOk) continue;
      for (const Sample& s : r->samples) {
        std::string core(s.labels.Get(labels::kCore));
        if (s.labels.Has(labels::kCore) &&
            std::find(cores.begin(), cores.end(), core) == cores.end()) {
          cores.push_back(core);
        }
      }
    }
    std::sort(cores.begin(), cores.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;  // numeric order
    });
    for (const std::string& core : cores) {
      table.AddRow(
          {d.id, core,
           Scalar(FindSample(Find(snap.readings, m::kDutyCycle, d.id), labels::kCore, core),
                  "percent"),
           Scalar(FindSample(Find(snap.readings, m::kTensorCoreUtilization, d.id), labels::kCore,
                             core),
                  "percent"),
           Scalar(FindSample(Find(snap.readings, m::kClock, d.id), labels::kCore, core), "hertz")});
    }
  }
  if (!table.empty()) out += "\n" + table.Render();
}

// The overall sample, else the first (a GPU's board power is labelled domain="gpu").
const Sample* FirstSample(const Reading* r) {
  if (const Sample* s = FindSample(r)) return s;
  if (r == nullptr || r->state != ReadingState::kOk || r->samples.empty()) return nullptr;
  return &r->samples.front();
}

// The SM (NVIDIA) or gfx (AMD) clock, else the first one.
const Sample* CoreClock(const Reading* r) {
  if (const Sample* s = FindSample(r, labels::kType, "sm")) return s;
  if (const Sample* s = FindSample(r, labels::kType, "gfx")) return s;
  return FirstSample(r);
}

std::string PairText(const Sample* now, const Sample* limit, std::string_view unit) {
  if (now == nullptr && limit == nullptr) return "n/a";
  return Scalar(now, unit) + " / " + Scalar(limit, unit);
}

std::string ModeText(const Reading* r, std::string_view mode, std::string_view pending) {
  const Sample* now = FindSample(r, labels::kMode, mode);
  if (now == nullptr) return "n/a";
  std::string text = now->scalar() > 0 ? "on" : "off";
  if (const Sample* next = pending.empty() ? nullptr : FindSample(r, labels::kMode, pending);
      next != nullptr && (next->scalar() > 0) != (now->scalar() > 0))
    text += next->scalar() > 0 ? " (on after reset)" : " (off after reset)";
  return text;
}

std::string LinkText(const Reading* generation, const Reading* width) {
  const Sample* gen = FindSample(generation, labels::kType, "current");
  const Sample* gen_max = FindSample(generation, labels::kType, "max");
  const Sample* lanes = FindSample(width, labels::kType, "current");
  const Sample* lanes_max = FindSample(width, labels::kType, "max");
  if (gen == nullptr && lanes == nullptr) return "n/a";
  auto part = [](const Sample* g, const Sample* w) {
    return fmt::format("gen{} x{}", g ? fmt::format("{:g}", g->scalar()) : "?",
                       w ? fmt::format("{:g}", w->scalar()) : "?");
  };
  return part(gen, lanes) + " of " + part(gen_max, lanes_max);
}

// What nvidia-smi's first screen shows of each accelerator: clocks against their maximum, power
// against its limit, the performance state, the PCIe link, why clocks are held down, ECC and
// persistence mode.
void DeviceStateTable(std::string& out, const MetricsSnapshot& snap) {
  render::TextTable table("Clocks, power and link", {{"Device"},
                                                     {"Clock / max", Align::kRight},
                                                     {"Memory clock", Align::kRight},
                                                     {"Power / limit", Align::kRight},
                                                     {"Perf"},
                                                     {"PCIe"},
                                                     {"Clocks held by"},
                                                     {"ECC"},
                                                     {"Persistence"}});
  for (const Device& d : snap.devices) {
    if (d.backend == "cpu") continue;
    const Reading* clock = Find(snap.readings, m::kClock, d.id);
    const Reading* clock_max = Find(snap.readings, m::kClockMax, d.id);
    const Reading* power = Find(snap.readings, m::kPower, d.id);
    const Reading* limit = Find(snap.readings, m::kPowerLimit, d.id);
    const Reading* pstate = Find(snap.readings, m::kPerformanceState, d.id);
    const Reading* modes = Find(snap.readings, m::kDeviceMode, d.id);
    const Reading* reasons = Find(snap.readings, m::kClockEventActive, d.id);
    const Sample* enforced = FindSample(limit, labels::kType, "enforced");
    if (enforced == nullptr) enforced = FindSample(limit, labels::kType, "current");
    const Sample* state = FindSample(pstate);
    std::vector<std::string> row = {render::DeviceColumn(d),
                                    PairText(CoreClock(clock), CoreClock(clock_max), "hertz"),
                                    Scalar(FindSample(clock, labels::kType, "memory"), "hertz"),
                                    PairText(FirstSample(power), enforced, "watts"),
                                    state ? fmt::format("P{:g}", state->scalar()) : "n/a",
                                    LinkText(Find(snap.readings, m::kHostLinkGeneration, d.id),
                                             Find(snap.readings, m::kHostLinkWidth, d.id)),
                                    reasons != nullptr && reasons->state == ReadingState::kOk
                                        ? ActiveClockEventsText(*reasons)
                                        : "n/a",
                                    ModeText(modes, "ecc", "ecc_pending"),
                                    ModeText(modes, "persistence", "")};
    // A device with none of these (a TPU through its runtime) gets no row.
    if (std::all_of(row.begin() + 1, row.end(), [](const std::string& c) { return c == "n/a"; }))
      continue;
    table.AddRow(std::move(row));
  }
  if (!table.empty()) out += "\n" + table.Render();
}

void PowerThermalTable(std::string& out, const MetricsSnapshot& snap) {
  render::TextTable table("Power and thermal", {{"Device"},
                                                {"Domain / sensor"},
                                                {"Power", Align::kRight},
                                                {"Energy", Align::kRight},
                                                {"Temperature", Align::kRight}});
  for (const Device& d : snap.devices) {
    const Reading* power = Find(snap.readings, m::kPower, d.id);
    const Reading* energy = Find(snap.readings, m::kEnergy, d.id);
    std::vector<std::string> domains;
    for (const Reading* r : {power, energy}) {
      if (r == nullptr || r->state != ReadingState::kOk) continue;
      for (const Sample& s : r->samples) {
        std::string domain(s.labels.Get(labels::kDomain));
        if (std::find(domains.begin(), domains.end(), domain) == domains.end())
          domains.push_back(domain);
      }
    }
    for (const std::string& domain : domains) {
      table.AddRow({d.id, domain, Scalar(FindSample(power, labels::kDomain, domain), "watts"),
                    Scalar(FindSample(energy, labels::kDomain, domain), "joules"), ""});
    }
    const Reading* temp = Find(snap.readings, m::kTemperature, d.id);
    if (temp != nullptr && temp->state == ReadingState::kOk) {
      // The core sensor first, titled "GPU" (or "CPU package"), the others by name.
      std::vector<SensorTemperature> sensors;
      for (const Sample& s : temp->samples) {
        sensors.push_back({std::string(s.labels.Get(labels::kSensor)), s.scalar()});
      }
      SortTemperatures(sensors);
      for (const SensorTemperature& t : sensors) {
        table.AddRow({d.id, TemperatureSensorTitle(t.sensor), "", "",
                      render::FormatValue("celsius", t.celsius)});
      }
    }
  }
  if (!table.empty()) out += "\n" + table.Render();
}

void ProcessTable(std::string& out, const MetricsSnapshot& snap) {
  render::TextTable table("Processes", {{"Device"},
                                        {"PID", Align::kRight},
                                        {"Command"},
                                        {"CPU", Align::kRight},
                                        {"Memory", Align::kRight}});
  for (const Device& d : snap.devices) {
    const Reading* cpu = Find(snap.readings, m::kProcessCpu, d.id);
    const Reading* mem = Find(snap.readings, m::kProcessMemory, d.id);
    std::set<std::string> seen;
    for (const Reading* r : {cpu, mem}) {
      if (r == nullptr || r->state != ReadingState::kOk) continue;
      for (const Sample& s : r->samples) {
        std::string pid(s.labels.Get(labels::kPid));
        if (!seen.insert(pid).second) continue;
        table.AddRow({d.id, pid, std::string(s.labels.Get("command")),
                      Scalar(FindSample(cpu, labels::kPid, pid), "percent"),
                      Scalar(FindSample(mem, labels::kPid, pid), "bytes")});
      }
    }
  }
  if (!table.empty()) out += "\n" + table.Render();
}

bool InDashboard(std::string_view metric) {
  for (std::string_view shown : {m::kDutyCycle,
                                 m::kTensorCoreUtilization,
                                 m::kMemoryUsed,
                                 m::kMemoryTotal,
                                 m::kQueueSize,
                                 m::kClock,
                                 m::kPower,
                                 m::kEnergy,
                                 m::kTemperature,
                                 m::kTransferLatency,
                                 m::kOpExecutionTime,
                                 m::kProcessCpu,
                                 m::kProcessMemory,
                                 m::kClockMax,
                                 m::kPowerLimit,
                                 m::kPerformanceState,
                                 m::kHostLinkGeneration,
                                 m::kHostLinkWidth,
                                 m::kClockEventActive,
                                 m::kDeviceMode}) {
    if (metric == shown) return true;
  }
  return false;
}

void UnavailableTable(std::string& out, const std::vector<Reading>& readings) {
  render::TextTable table("Not available here", {{"Metric"}, {"Device"}, {"Reason"}});
  for (const Reading& r : readings) {
    if (r.state != ReadingState::kOk) table.AddRow({r.metric, r.device, r.reason});
  }
  if (!table.empty()) out += "\n" + table.Render(200);
}

std::string LabelText(const Labels& labels) {
  std::string out;
  for (const auto& [key, value] : labels.items()) {
    if (key == labels::kDevice) continue;
    if (!out.empty()) out += ',';
    out += key;
    out += '=';
    out += value;
  }
  return out.empty() ? "-" : out;
}

std::string SampleText(const Sample& s, std::string_view unit) {
  if (!s.is_distribution()) return render::FormatValue(unit, s.scalar());
  const Distribution& d = s.distribution();
  return fmt::format("count={} p50={} p90={} p95={} p999={}", d.count, Percentile(d, 0.5),
                     Percentile(d, 0.9), Percentile(d, 0.95), Percentile(d, 0.999));
}

}  // namespace

// A clock-event (throttle) reason in words, as nvidia-smi -q words them.
std::string ClockEventReasonWords(std::string_view reason) {
  static const std::pair<std::string_view, std::string_view> kWords[] = {
      {"gpu_idle", "idle"},
      {"applications_clocks_setting", "application clocks"},
      {"sw_power_cap", "power cap"},
      {"hw_slowdown", "HW slowdown"},
      {"sync_boost", "sync boost"},
      {"sw_thermal_slowdown", "thermal (SW)"},
      {"hw_thermal_slowdown", "thermal (HW)"},
      {"hw_power_brake_slowdown", "power brake"},
      {"display_clock_setting", "display clock"},
      {"board_limit", "board limit"},
      {"reliability", "reliability"},
  };
  for (const auto& [name, words] : kWords)
    if (name == reason) return std::string(words);
  std::string text(reason);
  std::replace(text.begin(), text.end(), '_', ' ');
  return text;
}

std::string ActiveClockEventsText(const Reading& reading) {
  std::vector<std::string> active;
  for (const Sample& s : reading.samples) {
    if (s.is_distribution() || s.scalar() <= 0) continue;
    active.push_back(ClockEventReasonWords(s.labels.Get(labels::kReason)));
  }
  return active.empty() ? "none" : fmt::format("{}", fmt::join(active, ", "));
}

std::string RenderReadings(const std::vector<Reading>& readings) {
  render::TextTable table("", {{"Metric"}, {"Device"}, {"Labels"}, {"Value"}});
  for (const Reading& r : readings) {
    const MetricInfo* info = FindMetric(r.metric);
    const std::string_view unit = info ? info->unit : "";
    if (r.state != ReadingState::kOk) {
      table.AddRow({r.metric, r.device, "-", r.reason});
      continue;
    }
    for (const Sample& s : r.samples)
      table.AddRow({r.metric, r.device, LabelText(s.labels), SampleText(s, unit)});
  }
  return table.Render(160);
}

std::string RenderDashboard(const MetricsSnapshot& snap) {
  std::string out;
  if (snap.devices.empty()) {
    out = "No devices available.\n";
    for (const BackendStatus& b : snap.backends) {
      if (!b.available) out += "  " + b.name + ": " + b.reason + "\n";
    }
    return out;
  }
  DeviceList(out, snap);
  UtilizationTable(out, snap);
  PerCoreTable(out, snap);
  DeviceStateTable(out, snap);
  PowerThermalTable(out, snap);
  DistributionTable(out, snap, m::kTransferLatency, "Buffer transfer latency",
                    std::string(labels::kBufferSize), "Buffer size");
  DistributionTable(out, snap, m::kOpExecutionTime, "Op execution time", std::string(labels::kOp),
                    "Op");
  ProcessTable(out, snap);
  std::vector<Reading> others;
  for (const Reading& r : snap.readings) {
    if (!InDashboard(r.metric) && r.state == ReadingState::kOk) others.push_back(r);
  }
  if (!others.empty()) out += "\nOther metrics\n" + RenderReadings(others);
  UnavailableTable(out, snap.readings);
  return out;
}

nlohmann::json MetricsJson(const MetricsSnapshot& snap) {
  nlohmann::json out = {{"json_schema_version", kJsonSchemaVersion},
                        {"xpuperf_version", kVersion},
                        {"host", snap.host},
                        {"timestamp_ns", snap.timestamp_ns},
                        {"window_seconds", snap.window_seconds}};
  nlohmann::json devices = nlohmann::json::array();
  for (const Device& d : snap.devices) devices.push_back(ToJson(d));
  out["devices"] = std::move(devices);
  nlohmann::json readings = nlohmann::json::array();
  for (const Reading& r : snap.readings) readings.push_back(ToJson(r));
  out["readings"] = std::move(readings);
  return out;
}

}  // namespace xpuperf::telemetry
