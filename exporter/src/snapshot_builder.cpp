#include "snapshot_builder.h"

#include <charconv>
#include <map>
#include <optional>
#include <set>

#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/version.h"

namespace xpuperf::exporter {

namespace {

// The identity labels of a device's series (empty values are left out: in Prometheus an empty
// label is the same as an absent one).
Labels DeviceLabels(const Device& device, const std::string& hostname) {
  Labels labels;
  labels.Set("device", device.id);
  labels.Set("backend", device.backend);
  if (!device.model.empty()) labels.Set("model", device.model);
  if (!device.uuid.empty()) labels.Set("uuid", device.uuid);
  if (!device.bus_id.empty()) labels.Set("pci_bus_id", device.bus_id);
  if (device.is_partition()) {
    // dcgm-exporter's MIG labels, so MIG dashboards port; parent_uuid names the physical GPU
    // (dcgm-exporter's UUID label on MIG series).
    const Partition& p = device.partition;
    labels.Set("GPU_I_ID", std::to_string(p.gpu_instance_id));
    if (!p.profile.empty()) labels.Set("GPU_I_PROFILE", p.profile);
    if (!p.parent_uuid.empty()) labels.Set("parent_uuid", p.parent_uuid);
    labels.Set("parent_device", p.parent);
  }
  if (!hostname.empty()) labels.Set("hostname", hostname);
  return labels;
}

// Sample labels, then the device's identity, then one label set per consumer (pod).
// A device's series carry its consumer's labels when it has exactly one; a device shared by
// several (time-slicing, MPS) is not repeated per consumer: xpuperf_device_pod_info joins them.
// A process's series carry its own pod's labels where its pod is known (`process_pod`).
Labels SeriesLabels(const Labels& sample, const Labels& identity,
                    const std::vector<Labels>& consumers, const Labels& process_pod) {
  Labels labels = sample;
  for (const auto& [key, value] : identity.items()) labels.Set(key, value);
  const Labels* consumer = !process_pod.empty()    ? &process_pod
                           : consumers.size() == 1 ? &consumers.front()
                                                   : nullptr;
  if (consumer != nullptr) {
    for (const auto& [key, value] : consumer->items()) labels.Set(key, value);
  }
  return labels;
}

HistogramPoint ToHistogram(const Distribution& d, double divisor, Labels labels) {
  HistogramPoint h;
  h.labels = std::move(labels);
  uint64_t running = 0;
  for (size_t i = 0; i < d.bounds.size(); ++i) {
    running += i < d.counts.size() ? d.counts[i] : 0;
    h.upper_bounds.push_back(d.bounds[i] / divisor);
    h.cumulative.push_back(running);
  }
  h.count = d.count;
  h.sum = d.sum / divisor;
  return h;
}

struct DeviceInfo {
  const Device* device = nullptr;
  Labels identity;
  std::vector<Labels> consumers;
};

// The pid label's value as a number; nullopt for none or anything else.
std::optional<int> PidOf(std::string_view text) {
  int pid = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), pid);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || pid <= 0) {
    return std::nullopt;
  }
  return pid;
}

bool Wanted(const std::vector<std::string>& filter, std::string_view name) {
  if (filter.empty()) return true;
  for (const std::string& f : filter) {
    if (f == name) return true;
  }
  return false;
}

}  // namespace

bool IsValidMetricName(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string DeviceDownReason(const std::vector<Reading>& readings, std::string_view device_id) {
  std::string unsupported;
  std::string no_data;
  for (const Reading& r : readings) {
    if (r.device != device_id) continue;
    if (r.state == ReadingState::kOk && !r.samples.empty()) return "";
    if (r.state == ReadingState::kNoData && no_data.empty()) no_data = r.reason;
    if (r.state == ReadingState::kUnsupported && unsupported.empty()) unsupported = r.reason;
  }
  if (!no_data.empty()) return no_data;
  if (!unsupported.empty()) return unsupported;
  return "no value this collection";
}

BuildOutput BuildSnapshot(const BuildInput& input) {
  BuildOutput out;
  out.snapshot.timestamp_ns = input.now_ns;
  std::vector<MetricFamily>& families = out.snapshot.families;

  // Devices of the collectors that are up, with their identity and consumers.
  std::map<std::string, DeviceInfo> devices;
  for (const CollectorSnapshot& c : input.collectors) {
    if (c.latest == nullptr) continue;
    for (const Device& d : c.latest->devices) {
      DeviceInfo info{&d, DeviceLabels(d, input.hostname), {}};
      if (input.attribution != nullptr && *input.attribution)
        info.consumers = (*input.attribution)(d);
      devices.emplace(d.id, std::move(info));
    }
  }

  // xpuperf_job_info: the jobs on each device (a mapping) and of the processes using it.
  MetricFamily jobs{"xpuperf_job_info",
                    "Job using the device (value 1): Slurm job_id, user and partition where the "
                    "source says them, and the source: mapping_dir (prolog/epilog files), cgroup "
                    "or environment (of a process using the device)",
                    FamilyType::kInfo,
                    {},
                    {}};
  std::set<std::string> jobs_seen;
  const auto add_job = [&](const Labels& identity, const Labels& job) {
    Labels labels = identity;
    for (const auto& [key, value] : job.items()) labels.Set(key, value);
    if (jobs_seen.insert(labels.ToString()).second) {
      jobs.points.push_back(ScalarPoint{std::move(labels), 1});
    }
  };
  const bool device_jobs = input.jobs != nullptr && input.jobs->device_jobs;
  const bool process_jobs = input.jobs != nullptr && input.jobs->process_job;
  const bool process_labels = input.jobs != nullptr && input.jobs->process_labels;
  const bool process_pods = input.jobs != nullptr && input.jobs->process_pod;
  if (device_jobs) {
    for (const auto& [id, dev] : devices) {
      for (const Labels& job : input.jobs->device_jobs(*dev.device)) add_job(dev.identity, job);
    }
  }

  // Catalog metrics, in catalog order; readings without a value are not exported.
  for (const MetricInfo& info : MetricCatalog()) {
    if (!info.exported || !Wanted(input.metrics, info.name)) continue;
    const SeriesNaming naming = NamingFor(info);
    MetricFamily family;
    family.name = naming.name;
    family.help = std::string(info.description) + " (" +
                  (naming.divisor == 1 ? std::string(info.unit) : "ratio 0-1") + ")";
    family.type = naming.type;
    std::set<std::string> seen;  // guards against a backend repeating a label set
    for (const CollectorSnapshot& c : input.collectors) {
      if (c.latest == nullptr) continue;
      for (const Reading& r : c.latest->readings) {
        if (r.metric != info.name || r.state != ReadingState::kOk) continue;
        auto dev = devices.find(r.device);
        if (dev == devices.end()) continue;
        for (const Sample& sample : r.samples) {
          // A process's series carries its job's id (and the job is the device's too), and its
          // identity's labels.
          const Sample* with_job = &sample;
          Sample labelled;
          const std::optional<int> pid = process_jobs || process_labels || process_pods
                                             ? PidOf(sample.labels.Get(labels::kPid))
                                             : std::nullopt;
          if (pid && process_jobs) {
            if (std::optional<Labels> job = input.jobs->process_job(*pid)) {
              labelled = sample;
              labelled.labels.Set("job_id", std::string(job->Get("job_id")));
              with_job = &labelled;
              add_job(dev->second.identity, *job);
            }
          }
          if (pid && process_labels) {
            const Labels extra = input.jobs->process_labels(*pid);
            if (!extra.empty()) {
              if (with_job != &labelled) labelled = sample;
              for (const auto& [key, value] : extra.items()) {
                if (labelled.labels.Get(key).empty()) labelled.labels.Set(key, value);
              }
              with_job = &labelled;
            }
          }
          const Sample& s = *with_job;
          Labels process_pod;
          if (pid && process_pods) process_pod = input.jobs->process_pod(*pid);
          Labels labels =
              SeriesLabels(s.labels, dev->second.identity, dev->second.consumers, process_pod);
          if (!seen.insert(labels.ToString()).second) continue;
          if (s.is_distribution()) {
            if (naming.type != FamilyType::kHistogram) continue;
            family.histograms.push_back(
                ToHistogram(s.distribution(), naming.divisor, std::move(labels)));
          } else if (naming.type != FamilyType::kHistogram) {
            family.points.push_back(ScalarPoint{std::move(labels), s.scalar() / naming.divisor});
          }
        }
      }
    }
    if (!family.empty()) families.push_back(std::move(family));
  }

  if (!jobs.empty()) families.push_back(std::move(jobs));

  // xpuperf_device_pod_info: each consumer of each device, the join for devices shared by pods.
  MetricFamily pods{"xpuperf_device_pod_info",
                    "Pod holding the device (value 1): pod, namespace, container, one series per "
                    "consumer; a device shared by several pods carries no pod labels on its own "
                    "series, join them through this",
                    FamilyType::kInfo,
                    {},
                    {}};
  for (const auto& [id, dev] : devices) {
    for (const Labels& consumer : dev.consumers) {
      Labels labels = dev.identity;
      for (const auto& [key, value] : consumer.items()) labels.Set(key, value);
      if (input.jobs != nullptr && input.jobs->pod_labels) {
        const Labels extra = input.jobs->pod_labels(std::string(consumer.Get("namespace")),
                                                    std::string(consumer.Get("pod")));
        for (const auto& [key, value] : extra.items()) {
          if (labels.Get(key).empty()) labels.Set(key, value);
        }
      }
      pods.points.push_back(ScalarPoint{std::move(labels), 1});
    }
  }
  if (!pods.empty()) families.push_back(std::move(pods));

  // Device inventory and health.
  MetricFamily info{"xpuperf_device_info",
                    "Device identity (value 1): vendor and the labels of its series",
                    FamilyType::kInfo,
                    {},
                    {}};
  MetricFamily up{"xpuperf_device_up",
                  "1 when the device gave values in its backend's latest collection, 0 when it is "
                  "lost or its backend is down (reason in /health)",
                  FamilyType::kGauge,
                  {},
                  {}};
  for (const CollectorSnapshot& c : input.collectors) {
    if (c.latest == nullptr) continue;
    for (const Device& d : c.latest->devices) {
      const DeviceInfo& dev = devices.at(d.id);
      Labels labels = dev.identity;
      if (!d.vendor.empty()) labels.Set("vendor", d.vendor);
      info.points.push_back(ScalarPoint{labels, 1});
      const std::string reason = DeviceDownReason(c.latest->readings, d.id);
      up.points.push_back(ScalarPoint{dev.identity, reason.empty() ? 1.0 : 0.0});
      out.devices.push_back(DeviceState{d.id, d.backend, reason.empty(), reason});
    }
  }
  if (!info.empty()) families.push_back(std::move(info));
  if (!up.empty()) families.push_back(std::move(up));

  // Where each energy series' increments come from (energy_audit.h).
  MetricFamily energy_source{
      "xpuperf_energy_source_info",
      "Where xpuperf_energy_joules_total's latest increments come from (value 1): source "
      "\"counter\" (the device's energy counter) or \"power_integral\" (∫ power dt, where the "
      "counter stalled, restarted or disagreed with it); verdict of the check: ok, stalled, "
      "disagrees, unchecked",
      FamilyType::kInfo,
      {},
      {}};
  if (Wanted(input.metrics, metrics::kEnergy)) {
    for (const CollectorSnapshot& c : input.collectors) {
      if (c.latest == nullptr) continue;
      for (const EnergySource& e : c.latest->energy_sources) {
        auto dev = devices.find(e.device);
        if (dev == devices.end()) continue;
        Labels labels = dev->second.identity;
        for (const auto& [key, value] : e.labels.items()) labels.Set(key, value);
        labels.Set("source", e.source);
        labels.Set("verdict", e.verdict);
        energy_source.points.push_back(ScalarPoint{std::move(labels), 1});
        out.energy.push_back(
            EnergyState{e.device, e.labels.ToString(), e.source, e.verdict, e.detail});
      }
    }
  }
  if (!energy_source.empty()) families.push_back(std::move(energy_source));

  // Collectors.
  MetricFamily collector_up{"xpuperf_collector_up",
                            "1 when the backend's latest collection succeeded within its deadline",
                            FamilyType::kGauge,
                            {},
                            {}};
  MetricFamily duration{"xpuperf_collector_duration_seconds",
                        "Time the backend's latest complete collection took (seconds)",
                        FamilyType::kGauge,
                        {},
                        {}};
  MetricFamily last{"xpuperf_collector_last_success_timestamp_seconds",
                    "Wall-clock time of the backend's latest successful collection (seconds since "
                    "the Unix epoch)",
                    FamilyType::kGauge,
                    {},
                    {}};
  for (const CollectorSnapshot& c : input.collectors) {
    Labels labels{{"backend", c.backend}};
    if (!input.hostname.empty()) labels.Set("hostname", input.hostname);
    collector_up.points.push_back(ScalarPoint{labels, c.up ? 1.0 : 0.0});
    if (c.last_success_ns > 0) {
      duration.points.push_back(ScalarPoint{labels, c.last_duration_seconds});
      last.points.push_back(ScalarPoint{labels, static_cast<double>(c.last_success_ns) * 1e-9});
    }
  }
  for (MetricFamily* f : {&collector_up, &duration, &last}) {
    if (!f->empty()) families.push_back(std::move(*f));
  }

  Labels build{{"version", kVersion}};
  families.push_back(MetricFamily{"xpuperf_build_info",
                                  "xpuperf version (value 1)",
                                  FamilyType::kInfo,
                                  {ScalarPoint{build, 1}},
                                  {}});

  // Provider families last; a name that is taken or malformed is refused.
  std::set<std::string> names;
  for (const MetricFamily& f : families) names.insert(f.name);
  for (const MetricFamily& f : input.extra) {
    // Counter and info families carry their suffix, as OpenMetrics needs to declare them.
    const bool suffix_ok = (f.type != FamilyType::kCounter || f.name.ends_with("_total")) &&
                           (f.type != FamilyType::kInfo || f.name.ends_with("_info"));
    if (!f.name.starts_with(kPrefix) || !IsValidMetricName(f.name) || !suffix_ok ||
        !names.insert(f.name).second) {
      ++out.dropped_extra_families;
      continue;
    }
    if (!f.empty()) families.push_back(f);
  }
  return out;
}

}  // namespace xpuperf::exporter
