#include "tpu_readings.h"

#include <fmt/format.h>

#include "runtime_values.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::tpu {
namespace {

namespace m = metrics;

// Why a device has no value for `runtime_name`: NoData when some port serves the metric (it has no
// series for the device yet), otherwise the first port's error.
Reading Missing(std::string_view catalog, const Device& device, std::string_view runtime_name,
                const std::vector<RuntimeFetch::Answer>& answers, RuntimeFetch& fetch) {
  if (!fetch.AnyReachable())
    return Reading::Unsupported(catalog, device.id, fetch.UnreachableReason());
  for (const RuntimeFetch::Answer& answer : answers) {
    if (answer.metric->ok()) {
      return Reading::NoData(catalog, device.id,
                             fmt::format("no data: the TPU runtime at {} has no {} series for {} "
                                         "yet (no XLA program has run on it)",
                                         answer.client->target(), runtime_name, device.id));
    }
  }
  for (const RuntimeFetch::Answer& answer : answers) {
    if (answer.metric->error().code != ErrorCode::kUnsupported) {
      return Reading::Unsupported(catalog, device.id, answer.metric->error().message);
    }
  }
  return Reading::Unsupported(catalog, device.id, answers.front().metric->error().message);
}

Sample MakeSample(const Device& device, double value, int64_t wall_ns) {
  Sample s;
  s.labels.Set(labels::kDevice, device.id);
  s.timestamp_ns = wall_ns;
  s.value = value;
  return s;
}

}  // namespace

void CoreMap::AddRuntimeStatus(const runtime::GetTpuRuntimeStatusResponse& status) {
  for (const auto& [ordinal, state] : status.core_states()) {
    if (!state.has_core_id() || !state.core_id().has_chip_id()) continue;
    const int chip = state.core_id().chip_id();
    if (chip < 0 || static_cast<size_t>(chip) >= device_count_) continue;
    const int global =
        state.core_id().has_global_core_id() ? state.core_id().global_core_id() : ordinal;
    known_[global] =
        CoreLocation{static_cast<size_t>(chip), state.core_id().core_on_chip().index()};
  }
}

std::optional<CoreLocation> CoreMap::Locate(int ordinal) const {
  if (auto it = known_.find(ordinal); it != known_.end()) return it->second;
  if (ordinal < 0) return std::nullopt;
  const size_t device = static_cast<size_t>(ordinal / cores_per_chip_);
  if (device >= device_count_) return std::nullopt;
  return CoreLocation{device, ordinal % cores_per_chip_};
}

int CoreMap::CoresOn(size_t device) const {
  int from_status = 0;
  for (const auto& [ordinal, location] : known_) from_status += location.device == device ? 1 : 0;
  return from_status > 0 ? from_status : cores_per_chip_;
}

std::vector<Reading> GaugeReadings(const GaugeMapping& mapping, ReadingContext& context) {
  const auto answers = context.fetch.Get(mapping.runtime_name);
  // device -> core -> value
  std::vector<std::map<int, double>> values(context.devices.size());
  for (const RuntimeFetch::Answer& answer : answers) {
    if (!answer.metric->ok()) continue;
    for (const runtime::Metric& series : answer.metric->value().metrics()) {
      auto ordinal = DeviceOrdinal(series);
      auto value = GaugeValue(series);
      if (!ordinal || !value) continue;
      if (auto where = context.cores.Locate(*ordinal)) values[where->device][where->core] = *value;
    }
  }
  std::vector<Reading> out;
  for (size_t i = 0; i < context.devices.size(); ++i) {
    const Device& device = context.devices[i];
    if (values[i].empty()) {
      out.push_back(Missing(mapping.catalog, device, mapping.runtime_name, answers, context.fetch));
      continue;
    }
    Reading r;
    r.metric = std::string(mapping.catalog);
    r.device = device.id;
    double total = 0;
    for (const auto& [core, value] : values[i]) total += value;
    if (mapping.combine == Combine::kMean) total /= static_cast<double>(values[i].size());
    r.samples.push_back(MakeSample(device, total, context.wall_ns));
    if (mapping.per_core_samples && context.cores.CoresOn(i) > 1) {
      for (const auto& [core, value] : values[i]) {
        Sample s = MakeSample(device, value, context.wall_ns);
        s.labels.Set(labels::kCore, std::to_string(core));
        r.samples.push_back(std::move(s));
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<Reading> HloExecutionReadings(ReadingContext& context) {
  const auto answers = context.fetch.Get(kHloExecutionTiming);
  std::vector<std::optional<Distribution>> merged(context.devices.size());
  std::vector<std::string> problems(context.devices.size());
  for (const RuntimeFetch::Answer& answer : answers) {
    if (!answer.metric->ok()) continue;
    for (const runtime::Metric& series : answer.metric->value().metrics()) {
      auto ordinal = DeviceOrdinal(series);
      if (!ordinal || !series.has_distribution()) continue;
      auto where = context.cores.Locate(*ordinal);
      if (!where) continue;
      auto d = ToDistribution(series.distribution(), kMicrosecondsToSeconds);
      if (!d.ok()) {
        problems[where->device] = fmt::format("{} from {}: {}", kHloExecutionTiming,
                                              answer.client->target(), d.error().message);
        continue;
      }
      auto& slot = merged[where->device];
      if (!slot) {
        slot = std::move(d).value();
      } else if (!slot->Merge(*d)) {
        problems[where->device] =
            fmt::format("{}: cores of {} use different buckets", kHloExecutionTiming,
                        context.devices[where->device].id);
      }
    }
  }
  std::vector<Reading> out;
  for (size_t i = 0; i < context.devices.size(); ++i) {
    const Device& device = context.devices[i];
    if (!problems[i].empty()) {
      out.push_back(Reading::Unsupported(m::kOpExecutionTime, device.id, problems[i]));
    } else if (!merged[i]) {
      out.push_back(
          Missing(m::kOpExecutionTime, device, kHloExecutionTiming, answers, context.fetch));
    } else {
      Reading r;
      r.metric = std::string(m::kOpExecutionTime);
      r.device = device.id;
      Sample s;
      s.labels =
          Labels{{std::string(labels::kDevice), device.id}, {std::string(labels::kOp), "hlo"}};
      s.timestamp_ns = context.wall_ns;
      s.value = std::move(*merged[i]);
      r.samples.push_back(std::move(s));
      out.push_back(std::move(r));
    }
  }
  return out;
}

std::vector<Reading> TransferLatencyReadings(ReadingContext& context) {
  std::vector<Reading> out;
  if (context.devices.empty()) return out;
  const Device& first = context.devices.front();
  Reading r;
  r.metric = std::string(m::kTransferLatency);
  r.device = first.id;
  std::vector<std::string> problems;
  std::vector<RuntimeFetch::Answer> last_answers;
  for (const LatencyMapping& mapping : TransferLatencyMappings()) {
    auto answers = context.fetch.Get(mapping.runtime_name);
    // tpu-info sums the series of one buffer size over the whole runtime before taking
    // percentiles; keyed by buffer size, in order of first appearance.
    std::vector<std::pair<std::string, Distribution>> by_size;
    for (const RuntimeFetch::Answer& answer : answers) {
      if (!answer.metric->ok()) continue;
      for (const runtime::Metric& series : answer.metric->value().metrics()) {
        if (!series.has_distribution()) continue;
        auto d = ToDistribution(series.distribution(), kMicrosecondsToSeconds);
        if (!d.ok()) {
          problems.push_back(fmt::format("{}: {}", mapping.runtime_name, d.error().message));
          continue;
        }
        const std::string size = BufferSizeLabel(series);
        auto it = std::find_if(by_size.begin(), by_size.end(),
                               [&](const auto& entry) { return entry.first == size; });
        if (it == by_size.end()) {
          by_size.emplace_back(size, std::move(d).value());
        } else if (!it->second.Merge(*d)) {
          problems.push_back(fmt::format("{}: series of buffer size {} use different buckets",
                                         mapping.runtime_name, size));
        }
      }
    }
    for (auto& [size, distribution] : by_size) {
      Sample s;
      s.labels = Labels{{std::string(labels::kDevice), first.id},
                        {std::string(labels::kType), std::string(mapping.type)},
                        {std::string(labels::kBufferSize), size}};
      s.timestamp_ns = context.wall_ns;
      s.value = std::move(distribution);
      r.samples.push_back(std::move(s));
    }
    if (last_answers.empty() || context.fetch.Serves(mapping.runtime_name)) last_answers = answers;
  }
  if (!r.samples.empty()) {
    out.push_back(std::move(r));
  } else if (!problems.empty()) {
    out.push_back(Reading::Unsupported(m::kTransferLatency, first.id, problems.front()));
  } else {
    out.push_back(Missing(m::kTransferLatency, first, "megascale transfer latency", last_answers,
                          context.fetch));
  }
  for (size_t i = 1; i < context.devices.size(); ++i) {
    out.push_back(Reading::NoData(
        m::kTransferLatency, context.devices[i].id,
        fmt::format("transfer latencies are measured per runtime process; see {}", first.id)));
  }
  return out;
}

std::vector<Reading> QueueReadingsFromStatus(
    const std::vector<runtime::GetTpuRuntimeStatusResponse>& statuses, ReadingContext& context) {
  std::vector<std::map<int, double>> queued(context.devices.size());
  for (const auto& status : statuses) {
    for (const auto& [ordinal, state] : status.core_states()) {
      const int global =
          state.core_id().has_global_core_id() ? state.core_id().global_core_id() : ordinal;
      if (auto where = context.cores.Locate(global)) {
        queued[where->device][where->core] = static_cast<double>(state.queued_program_info_size());
      }
    }
  }
  std::vector<Reading> out;
  for (size_t i = 0; i < context.devices.size(); ++i) {
    const Device& device = context.devices[i];
    if (queued[i].empty()) {
      out.push_back(Reading::Unsupported(
          m::kQueueSize, device.id,
          "the TPU runtime serves neither hlo.queue.size.gauge nor a runtime status for it"));
      continue;
    }
    Reading r;
    r.metric = std::string(m::kQueueSize);
    r.device = device.id;
    double total = 0;
    for (const auto& [core, n] : queued[i]) total += n;
    r.samples.push_back(MakeSample(device, total, context.wall_ns));
    if (context.cores.CoresOn(i) > 1) {
      for (const auto& [core, n] : queued[i]) {
        Sample s = MakeSample(device, n, context.wall_ns);
        s.labels.Set(labels::kCore, std::to_string(core));
        r.samples.push_back(std::move(s));
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace xpuperf::tpu
