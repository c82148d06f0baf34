#include "sdk_readings.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "chip_sample.h"
#include "sdk_values.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::tpu {
namespace {

namespace m = metrics;

constexpr std::string_view kSource = "sdk";
constexpr std::string_view kFramework =
    "not a device metric: the framework's own (Orbax checkpointing, Grain input pipeline), shown "
    "as libtpu gives it";

// The SDK's latency summaries: their `type` label (the runtime histograms' types where the two
// mean the same transfers) and the label their first field goes to.
struct SummarySource {
  std::string_view sdk;
  std::string_view type;
  std::string_view key_label;  // empty: no key field
};
const std::vector<SummarySource>& SummarySources() {
  static const std::vector<SummarySource> sources = {
      {"buffer_transfer_latency", "dcn", labels::kBufferSize},
      {"inbound_buffer_transfer_latency", "dcn_inbound", labels::kBufferSize},
      {"collective_e2e_latency", "collective_e2e", labels::kBufferSize},
      {"host_to_device_transfer_latency", "host_to_device", labels::kBufferSize},
      {"device_to_host_transfer_latency", "device_to_host", labels::kBufferSize},
      {"host_compute_latency", "host_compute", labels::kBufferSize},
      {"hlo_execution_timing", "hlo_execution", labels::kCore},
      {"hlo_exec_timing", "hlo_execution", labels::kCore},  // its name in other libtpu versions
      {"tcp_min_rtt", "tcp_min_rtt", ""},
  };
  return sources;
}

Reading Missing(std::string_view catalog, const Device& device, const std::string& why,
                bool no_data) {
  Reading r = no_data ? Reading::NoData(catalog, device.id, why)
                      : Reading::Unsupported(catalog, device.id, why);
  r.source = kSource;
  return r;
}

std::vector<Reading> AllMissing(std::string_view catalog, const std::vector<Device>& devices,
                                const std::string& why, bool no_data) {
  std::vector<Reading> out;
  out.reserve(devices.size());
  for (const Device& d : devices) out.push_back(Missing(catalog, d, why, no_data));
  return out;
}

Reading Filled(std::string_view catalog, const Device& device, std::vector<Sample> samples) {
  Reading r;
  r.metric = std::string(catalog);
  r.device = device.id;
  r.source = kSource;
  r.samples = std::move(samples);
  return r;
}

// Per chip: the values of chip 0, 1, ... (`items`: how many libtpu gave, for the reason).
std::vector<Reading> PerChip(std::string_view catalog, const std::vector<IndexedValue>& chips,
                             size_t items, std::string_view sdk, const std::vector<Device>& devices,
                             int64_t wall_ns) {
  std::map<size_t, double> values;
  for (const IndexedValue& v : chips) values[v.index] = v.value;
  std::vector<Reading> out;
  out.reserve(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    auto it = values.find(i);
    if (it == values.end()) {
      out.push_back(Missing(
          catalog, devices[i],
          fmt::format("libtpu's {} has no value for chip {} ({} items)", sdk, i, items), true));
      continue;
    }
    out.push_back(Filled(catalog, devices[i], {MakeSample(devices[i], it->second, wall_ns)}));
  }
  return out;
}

// Per core: core c of the host is core c % cores_per_chip of chip c / cores_per_chip; the chip's
// overall value is the mean of its cores, and multi-core chips also get one sample per core.
std::vector<Reading> PerCore(std::string_view catalog, const std::map<int, double>& by_core,
                             std::string_view sdk, size_t items, const std::vector<Device>& devices,
                             int cores_per_chip, bool sum, int64_t wall_ns) {
  std::vector<std::map<int, double>> cores(devices.size());
  for (const auto& [core, value] : by_core) {
    const size_t chip = static_cast<size_t>(core / cores_per_chip);
    if (chip < devices.size()) cores[chip][core % cores_per_chip] = value;
  }
  std::vector<Reading> out;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (cores[i].empty()) {
      out.push_back(Missing(
          catalog, devices[i],
          fmt::format("libtpu's {} has no value for chip {} ({} items)", sdk, i, items), true));
      continue;
    }
    double total = 0;
    for (const auto& [core, value] : cores[i]) total += value;
    std::vector<Sample> samples = {MakeSample(
        devices[i], sum ? total : total / static_cast<double>(cores[i].size()), wall_ns)};
    if (cores_per_chip > 1) {
      for (const auto& [core, value] : cores[i]) {
        Sample s = MakeSample(devices[i], value, wall_ns);
        s.labels.Set(labels::kCore, std::to_string(core));
        samples.push_back(std::move(s));
      }
    }
    out.push_back(Filled(catalog, devices[i], std::move(samples)));
  }
  return out;
}

// Host-level series (links, latency statistics) on the first device; the others say where.
std::vector<Reading> OnFirstDevice(std::string_view catalog, std::vector<Sample> samples,
                                   const std::vector<Device>& devices, const std::string& empty) {
  std::vector<Reading> out;
  if (devices.empty()) return out;
  out.reserve(devices.size());
  if (samples.empty()) {
    out.push_back(Missing(catalog, devices[0], empty, true));
  } else {
    for (Sample& s : samples) s.labels.Set(labels::kDevice, devices[0].id);
    out.push_back(Filled(catalog, devices[0], std::move(samples)));
  }
  for (size_t i = 1; i < devices.size(); ++i) {
    out.push_back(Missing(catalog, devices[i],
                          fmt::format("libtpu reports it for the host: see {}", devices[0].id),
                          false));
  }
  return out;
}

void AddStatistics(const SummaryRow& row, double scale, const Labels& base, int64_t wall_ns,
                   std::vector<Sample>& out) {
  const std::pair<std::string_view, double> stats[] = {
      {"mean", row.mean}, {"p50", row.p50}, {"p90", row.p90}, {"p95", row.p95}, {"p999", row.p999}};
  for (const auto& [name, value] : stats) {
    Sample s;
    s.labels = base;
    s.labels.Set(labels::kStatistic, name);
    s.timestamp_ns = wall_ns;
    s.value = value * scale;
    out.push_back(std::move(s));
  }
}

// "2MB+-ALL_REDUCE" -> buffer size "2MB+", collective "ALL_REDUCE".
void SetSummaryKey(const SummarySource& source, const std::string& key, Labels& labels) {
  if (source.key_label == labels::kCore) {
    const std::optional<int> core = CoreNumber(key);
    labels.Set(labels::kCore, core ? std::to_string(*core) : key);
    return;
  }
  const size_t dash = key.find("+-");
  if (source.sdk == "collective_e2e_latency" && dash != std::string::npos) {
    labels.Set(labels::kBufferSize, key.substr(0, dash + 1));
    labels.Set(labels::kCollective, key.substr(dash + 2));
    return;
  }
  labels.Set(source.key_label, key);
}

std::vector<Reading> LatencySummaries(const SdkView& view, const std::vector<Device>& devices,
                                      int64_t wall_ns) {
  if (view.snapshot == nullptr)
    return AllMissing(m::kLatencyStatistic, devices, view.reason, false);
  std::vector<Sample> samples;
  std::set<std::string_view> filled;  // a type two names give (hlo_exec_timing) counts once
  for (const SummarySource& source : SummarySources()) {
    if (filled.contains(source.type)) continue;
    std::string why;
    bool no_data = false;
    const SdkMetric* metric = view.Find(source.sdk, &why, &no_data);
    if (metric == nullptr) continue;
    for (const SummaryRow& row : ParseSummaryRows(metric->data, !source.key_label.empty())) {
      Labels base;
      base.Set(labels::kType, source.type);
      if (!source.key_label.empty()) SetSummaryKey(source, row.key, base);
      AddStatistics(row, 1e-6, base, wall_ns, samples);  // µs -> s
      filled.insert(source.type);
    }
  }
  return OnFirstDevice(m::kLatencyStatistic, std::move(samples), devices,
                       "libtpu's SDK gave no latency summary yet (no transfer, collective or HLO "
                       "recorded)");
}

}  // namespace

const SdkMetric* SdkView::Find(std::string_view name, std::string* why, bool* no_data) const {
  *no_data = false;
  if (snapshot == nullptr) {
    *why = reason;
    return nullptr;
  }
  const auto listed = std::find(snapshot->supported.begin(), snapshot->supported.end(), name);
  const auto it = snapshot->values.find(name);
  if (listed == snapshot->supported.end() || it == snapshot->values.end()) {
    *why = fmt::format("libtpu {} does not list {}", snapshot->libtpu_version, name);
    return nullptr;
  }
  if (!it->second.error.empty()) {
    *why = fmt::format("libtpu's {}: {}", name, it->second.error);
    return nullptr;
  }
  if (it->second.data.empty()) {
    *no_data = true;
    *why = fmt::format("libtpu {} returned no {} values", snapshot->libtpu_version, name);
    if (!snapshot->messages.empty())
      *why += fmt::format(" (libtpu: {})", snapshot->messages.back());
    return nullptr;
  }
  return &it->second;
}

const std::vector<SdkMapping>& SdkMappings() {
  static const std::vector<SdkMapping> mappings = {
      {"tensorcore_util", m::kTensorCoreUtilization, "percent per core"},
      {"duty_cycle_pct", m::kDutyCycle, "percent per chip"},
      {"hbm_capacity_total", m::kMemoryTotal, "bytes per chip"},
      {"hbm_capacity_usage", m::kMemoryUsed, "bytes per chip"},
      {"runtime_hbm_utilization", m::kMemoryBandwidthUtilization, "percent per chip"},
      {"hbm_util", m::kMemoryBandwidthUtilization,
       "percent per chip, when runtime_hbm_utilization has none"},
      {"idle_duration", m::kIdleDuration, "seconds per chip"},
      {"hlo_queue_size", m::kQueueSize, "programs per core; the chip's is their sum"},
      {"tpu_throttle_score", m::kThrottleScore, "0-10 per chip"},
      {"ici_link_health", m::kIciLinkHealth, "0-10 per link, on the first chip"},
      {"buffer_transfer_latency", m::kLatencyStatistic, "type=dcn, µs -> s"},
      {"inbound_buffer_transfer_latency", m::kLatencyStatistic, "type=dcn_inbound, µs -> s"},
      {"collective_e2e_latency", m::kLatencyStatistic, "type=collective_e2e, µs -> s"},
      {"host_to_device_transfer_latency", m::kLatencyStatistic, "type=host_to_device, µs -> s"},
      {"device_to_host_transfer_latency", m::kLatencyStatistic, "type=device_to_host, µs -> s"},
      {"host_compute_latency", m::kLatencyStatistic, "type=host_compute, µs -> s"},
      {"hlo_execution_timing", m::kLatencyStatistic, "type=hlo_execution per core, µs -> s"},
      {"hlo_exec_timing", m::kLatencyStatistic, "type=hlo_execution per core, µs -> s"},
      {"tcp_min_rtt", m::kLatencyStatistic, "type=tcp_min_rtt, µs -> s"},
      {"tcp_delivery_rate", m::kTcpDeliveryRate, "Mbps -> bytes/s"},
  };
  return mappings;
}

const SdkMapping* FindSdkMapping(std::string_view sdk_name) {
  for (const SdkMapping& mapping : SdkMappings()) {
    if (mapping.sdk == sdk_name) return &mapping;
  }
  static const SdkMapping framework{"", "", kFramework};
  static const SdkMapping zeros{
      "", "",
      "not mapped: the older name, which gives only zeros on v5p and v6e; tensorcore_util is read "
      "instead"};
  if (sdk_name == "tensorcore_utilization") return &zeros;
  if (sdk_name.starts_with("orbax_") || sdk_name.starts_with("pygrain_") ||
      sdk_name.starts_with("checkpoint_")) {
    return &framework;
  }
  return nullptr;
}

std::optional<std::vector<Reading>> SdkReadings(std::string_view catalog, const SdkView& view,
                                                const std::vector<Device>& devices,
                                                int cores_per_chip, int64_t wall_ns) {
  if (cores_per_chip < 1) cores_per_chip = 1;
  if (devices.empty()) return std::vector<Reading>{};
  if (catalog == m::kLatencyStatistic) return LatencySummaries(view, devices, wall_ns);
  // The first SDK metric of this catalog metric that has values, else the first one's reason.
  std::string first_why;
  bool first_no_data = false;
  for (const SdkMapping& mapping : SdkMappings()) {
    if (mapping.catalog != catalog) continue;
    std::string why;
    bool no_data = false;
    const SdkMetric* metric = view.Find(mapping.sdk, &why, &no_data);
    if (metric == nullptr) {
      if (first_why.empty()) {
        first_why = why;
        first_no_data = no_data;
      }
      continue;
    }
    const std::string_view sdk = mapping.sdk;
    if (sdk == "tensorcore_util") {
      std::map<int, double> by_core;
      for (const IndexedValue& v : ParseIndexedNumbers(metric->data)) {
        by_core[static_cast<int>(v.index)] = v.value;
      }
      return PerCore(catalog, by_core, sdk, metric->data.size(), devices, cores_per_chip, false,
                     wall_ns);
    }
    if (sdk == "hlo_queue_size") {
      std::map<int, double> by_core;
      for (const NamedValue& v : ParseNamedNumbers(metric->data)) {
        if (const std::optional<int> core = CoreNumber(v.name)) by_core[*core] = v.value;
      }
      return PerCore(catalog, by_core, sdk, metric->data.size(), devices, cores_per_chip, true,
                     wall_ns);
    }
    if (sdk == "tpu_throttle_score") {  // "chip-score"
      return PerChip(catalog, ParseIdScores(metric->data), metric->data.size(), sdk, devices,
                     wall_ns);
    }
    if (sdk == "ici_link_health") {
      std::vector<Sample> samples;
      for (const NamedValue& v : ParseNamedNumbers(metric->data)) {
        Sample s = MakeSample(devices.front(), v.value, wall_ns);
        s.labels.Set(labels::kLink, v.name);
        samples.push_back(std::move(s));
      }
      return OnFirstDevice(catalog, std::move(samples), devices,
                           fmt::format("libtpu's ici_link_health has no readable link ({} items)",
                                       metric->data.size()));
    }
    if (sdk == "tcp_delivery_rate") {
      std::vector<Sample> samples;
      for (const SummaryRow& row : ParseSummaryRows(metric->data, false)) {
        AddStatistics(row, 1e6 / 8, Labels{}, wall_ns, samples);  // Mbps -> bytes/s
      }
      return OnFirstDevice(catalog, std::move(samples), devices,
                           "libtpu's tcp_delivery_rate has no readable summary");
    }
    return PerChip(catalog, ParseIndexedNumbers(metric->data), metric->data.size(), sdk, devices,
                   wall_ns);
  }
  if (first_why.empty()) return std::nullopt;
  return AllMissing(catalog, devices, first_why, first_no_data);
}

}  // namespace xpuperf::tpu
