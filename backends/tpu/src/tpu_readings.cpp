#include "tpu_readings.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "chip_sample.h"
#include "runtime_values.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/pci_link.h"
#include "xpuperf/core/sysfs_file.h"

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

// Which runtime process a per-process distribution came from.
void LabelRuntime(const RuntimeChips* runtime, Labels& labels) {
  if (runtime == nullptr) return;
  labels.Set(kRuntimeLabel, runtime->target);
  if (runtime->pid) labels.Set(labels::kPid, std::to_string(*runtime->pid));
}

}  // namespace

std::optional<CoreLocation> CoreMap::Locate(size_t runtime, int ordinal) const {
  if (runtime >= runtimes_.size() || ordinal < 0) return std::nullopt;
  const RuntimeChips& r = runtimes_[runtime];
  int chip = ordinal / cores_per_chip_;
  int core = ordinal % cores_per_chip_;
  if (auto it = r.known.find(ordinal); it != r.known.end()) std::tie(chip, core) = it->second;
  if (chip < 0 || static_cast<size_t>(chip) >= r.devices.size()) return std::nullopt;
  return CoreLocation{r.devices[static_cast<size_t>(chip)], core};
}

const RuntimeChips* CoreMap::RuntimeOf(size_t device) const {
  for (const RuntimeChips& r : runtimes_) {
    if (std::find(r.devices.begin(), r.devices.end(), device) != r.devices.end()) return &r;
  }
  return nullptr;
}

int CoreMap::CoresOn(size_t device) const {
  int from_status = 0;
  for (const RuntimeChips& r : runtimes_) {
    for (const auto& [ordinal, where] : r.known) {
      const size_t chip = static_cast<size_t>(where.first);
      from_status += chip < r.devices.size() && r.devices[chip] == device ? 1 : 0;
    }
  }
  return from_status > 0 ? from_status : cores_per_chip_;
}

namespace {

// ordinal -> (chip, core) from one runtime's status.
std::map<int, std::pair<int, int>> KnownCores(const runtime::GetTpuRuntimeStatusResponse& status) {
  std::map<int, std::pair<int, int>> known;
  for (const auto& [ordinal, state] : status.core_states()) {
    if (!state.has_core_id() || !state.core_id().has_chip_id()) continue;
    const int global =
        state.core_id().has_global_core_id() ? state.core_id().global_core_id() : ordinal;
    known[global] = {state.core_id().chip_id(), state.core_id().core_on_chip().index()};
  }
  return known;
}

}  // namespace

std::vector<int> RuntimeChipCounts(RuntimeFetch& fetch, int cores_per_chip) {
  cores_per_chip = std::max(cores_per_chip, 1);
  std::vector<int> counts(fetch.port_count(), 0);
  const auto& statuses = fetch.RuntimeStatuses();
  for (size_t port = 0; port < counts.size(); ++port) {
    if (!statuses[port]) continue;
    for (const auto& [ordinal, where] : KnownCores(*statuses[port]))
      counts[port] = std::max(counts[port], where.first + 1);
  }
  // Without a status, the runtime's HBM series name its devices.
  for (const RuntimeFetch::Answer& answer : fetch.Get(kHbmTotal)) {
    if (!answer.metric->ok() || counts[answer.port] > 0) continue;
    int chips = 0;
    for (const runtime::Metric& series : answer.metric->value().metrics()) {
      if (auto ordinal = DeviceOrdinal(series); ordinal && *ordinal >= 0)
        chips = std::max(chips, *ordinal / cores_per_chip + 1);
    }
    counts[answer.port] = chips;
  }
  return counts;
}

CoreMap MapRuntimes(RuntimeFetch& fetch, const std::vector<Device>& devices, int cores_per_chip,
                    const std::vector<std::optional<int>>& pids) {
  const auto& statuses = fetch.RuntimeStatuses();
  std::vector<RuntimeChips> runtimes(fetch.port_count());
  for (size_t port = 0; port < runtimes.size(); ++port) {
    runtimes[port].target = fetch.client(port).target();
    if (port < pids.size()) runtimes[port].pid = pids[port];
    if (statuses[port]) runtimes[port].known = KnownCores(*statuses[port]);
  }
  if (runtimes.size() == 1) {
    for (size_t i = 0; i < devices.size(); ++i) runtimes[0].devices.push_back(i);
    return CoreMap(cores_per_chip, std::move(runtimes));
  }
  std::vector<bool> taken(devices.size(), false);
  // The chips a runtime's process holds open are its chips.
  for (RuntimeChips& r : runtimes) {
    if (!r.pid) continue;
    const std::string feature = "pid:" + std::to_string(*r.pid);
    for (size_t i = 0; i < devices.size(); ++i) {
      const auto& f = devices[i].features;
      if (!taken[i] && std::find(f.begin(), f.end(), feature) != f.end()) {
        r.devices.push_back(i);
        taken[i] = true;
      }
    }
  }
  // The others take the next free chips in port order, as many as they report.
  const std::vector<int> counts = RuntimeChipCounts(fetch, cores_per_chip);
  size_t next = 0;
  for (size_t port = 0; port < runtimes.size(); ++port) {
    if (!runtimes[port].devices.empty()) continue;
    for (int chip = 0; chip < counts[port]; ++chip) {
      while (next < devices.size() && taken[next]) ++next;
      if (next == devices.size()) break;
      runtimes[port].devices.push_back(next);
      taken[next] = true;
    }
  }
  return CoreMap(cores_per_chip, std::move(runtimes));
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
      if (auto where = context.cores.Locate(answer.port, *ordinal))
        values[where->device][where->core] = *value;
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
      auto where = context.cores.Locate(answer.port, *ordinal);
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
      LabelRuntime(context.cores.RuntimeOf(i), s.labels);
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
  const auto& runtimes = context.cores.runtimes();
  // Each runtime's latencies go on its first chip (the first device for a runtime without
  // chips); device -> the runtimes reported there.
  std::map<size_t, std::vector<size_t>> home;
  for (size_t port = 0; port < runtimes.size(); ++port) {
    home[runtimes[port].devices.empty() ? 0 : runtimes[port].devices.front()].push_back(port);
  }
  for (auto& [device_index, ports] : home) {
    const Device& device = context.devices[device_index];
    Reading r;
    r.metric = std::string(m::kTransferLatency);
    r.device = device.id;
    std::vector<std::string> problems;
    std::vector<RuntimeFetch::Answer> last_answers;
    for (const LatencyMapping& mapping : TransferLatencyMappings()) {
      auto all = context.fetch.Get(mapping.runtime_name);
      std::vector<RuntimeFetch::Answer> answers;
      for (const auto& answer : all) {
        if (std::find(ports.begin(), ports.end(), answer.port) != ports.end())
          answers.push_back(answer);
      }
      for (const RuntimeFetch::Answer& answer : answers) {
        if (!answer.metric->ok()) continue;
        // tpu-info sums the series of one buffer size over the whole runtime before taking
        // percentiles; keyed by buffer size, in order of first appearance. Runtimes (processes)
        // are never summed together.
        std::vector<std::pair<std::string, Distribution>> by_size;
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
        for (auto& [size, distribution] : by_size) {
          Sample s;
          s.labels = Labels{{std::string(labels::kDevice), device.id},
                            {std::string(labels::kType), std::string(mapping.type)},
                            {std::string(labels::kBufferSize), size}};
          LabelRuntime(&runtimes[answer.port], s.labels);
          s.timestamp_ns = context.wall_ns;
          s.value = std::move(distribution);
          r.samples.push_back(std::move(s));
        }
      }
      if (last_answers.empty() || context.fetch.Serves(mapping.runtime_name)) {
        last_answers = answers;
      }
    }
    if (!r.samples.empty()) {
      out.push_back(std::move(r));
    } else if (!problems.empty()) {
      out.push_back(Reading::Unsupported(m::kTransferLatency, device.id, problems.front()));
    } else {
      out.push_back(Missing(m::kTransferLatency, device, "megascale transfer latency",
                            last_answers.empty() ? context.fetch.Get(kHbmTotal) : last_answers,
                            context.fetch));
    }
  }
  for (size_t i = 0; i < context.devices.size(); ++i) {
    if (home.contains(i)) continue;
    const RuntimeChips* owner = context.cores.RuntimeOf(i);
    size_t where = 0;
    if (owner != nullptr && !owner->devices.empty()) where = owner->devices.front();
    out.push_back(
        Reading::NoData(m::kTransferLatency, context.devices[i].id,
                        fmt::format("transfer latencies are measured per runtime process; see {}",
                                    context.devices[where].id)));
  }
  return out;
}

std::vector<Reading> QueueReadingsFromStatus(ReadingContext& context) {
  std::vector<std::map<int, double>> queued(context.devices.size());
  ForEachCoreState(context, [&queued](size_t device, int core, int, const auto& state) {
    queued[device][core] = static_cast<double>(state.queued_program_info_size());
  });
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

namespace {

// An error message as one bounded label value: the first line, at most 160 bytes.
std::string OneLine(const std::string& message) {
  std::string line = message.substr(0, message.find('\n'));
  if (line.size() > 160) line = line.substr(0, 157) + "...";
  return line;
}

}  // namespace

std::vector<Reading> CoreErrorReadings(ReadingContext& context) {
  // device → core → error message ("" for a core without error).
  std::vector<std::map<int, std::string>> errors(context.devices.size());
  ForEachCoreState(context, [&errors](size_t device, int core, int, const auto& state) {
    errors[device][core] = OneLine(state.error_message());
  });
  std::vector<Reading> out;
  for (size_t i = 0; i < context.devices.size(); ++i) {
    const Device& device = context.devices[i];
    if (errors[i].empty()) {
      out.push_back(Reading::Unsupported(
          m::kCoreErrorActive, device.id,
          context.fetch.AnyReachable()
              ? std::string("unsupported: the TPU runtime answers no runtime status (core states) "
                            "for it")
              : context.fetch.UnreachableReason()));
      continue;
    }
    Reading r;
    r.metric = std::string(m::kCoreErrorActive);
    r.device = device.id;
    for (const auto& [core, message] : errors[i]) {
      Sample s = MakeSample(device, message.empty() ? 0.0 : 1.0, context.wall_ns);
      s.labels.Set(labels::kCore, std::to_string(core));
      if (!message.empty()) s.labels.Set(labels::kError, message);
      r.samples.push_back(std::move(s));
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<Reading> PciLinkReadings(std::string_view metric, ReadingContext& context) {
  const bool generation = metric == m::kHostLinkGeneration;
  std::vector<Reading> out;
  for (const Device& device : context.devices) {
    if (device.bus_id.empty()) {
      out.push_back(Reading::Unsupported(
          metric, device.id,
          "unsupported: the chip is known from the TPU runtime only (not in PCI sysfs)"));
      continue;
    }
    const std::string dir = JoinRoot(context.root, "/sys/bus/pci/devices/" + device.bus_id);
    auto link = ReadPciLink(dir);
    if (!link.ok()) {
      out.push_back(
          Reading::Unsupported(metric, device.id, "unsupported: " + link.error().message));
      continue;
    }
    Reading r;
    r.metric = std::string(metric);
    r.device = device.id;
    const int now = generation ? link->generation : link->width;
    const int max = generation ? link->max_generation : link->max_width;
    for (const auto& [value, type] : {std::pair{now, "current"}, std::pair{max, "max"}}) {
      if (value <= 0) continue;
      Sample s = MakeSample(device, value, context.wall_ns);
      s.labels.Set(labels::kType, type);
      r.samples.push_back(std::move(s));
    }
    if (r.samples.empty()) {
      out.push_back(Reading::Unsupported(
          metric, device.id,
          "unsupported: a link speed that is no PCIe generation: " + link->speed));
      continue;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace xpuperf::tpu
