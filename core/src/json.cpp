#include "xpuperf/core/json.h"

namespace xpuperf {

using nlohmann::json;

json ToJson(const Device& device) {
  json caches = json::array();
  for (const CacheLevel& c : device.topology.caches) {
    caches.push_back({{"level", c.level},
                      {"type", c.type},
                      {"size_bytes", c.size_bytes},
                      {"instances", c.instances},
                      {"line_bytes", c.line_bytes}});
  }
  json out = {{"backend", device.backend},
              {"id", device.id},
              {"index", device.index},
              {"vendor", device.vendor},
              {"model", device.model},
              {"uuid", device.uuid},
              {"bus_id", device.bus_id},
              {"memory_bytes", device.memory_bytes},
              {"features", device.features},
              {"topology",
               {{"packages", device.topology.packages},
                {"numa_nodes", device.topology.numa_nodes},
                {"cores", device.topology.cores},
                {"threads", device.topology.threads},
                {"caches", caches},
                {"source", device.topology.source}}}};
  if (device.is_partition()) {
    const Partition& p = device.partition;
    out["partition"] = {{"parent", p.parent},
                        {"parent_uuid", p.parent_uuid},
                        {"gpu_instance_id", p.gpu_instance_id},
                        {"compute_instance_id", p.compute_instance_id},
                        {"profile", p.profile}};
  }
  return out;
}

json ToJson(const MetricInfo& info) {
  return {{"name", info.name},
          {"unit", info.unit},
          {"kind", MetricKindName(info.kind)},
          {"labels", info.labels},
          {"description", info.description}};
}

json ToJson(const Distribution& d) {
  json out = {{"count", d.count}, {"sum", d.sum}};
  auto optional = [](std::optional<double> v) { return v ? json(*v) : json(nullptr); };
  out["min"] = d.count ? json(d.min) : json(nullptr);
  out["max"] = d.count ? json(d.max) : json(nullptr);
  out["mean"] = d.count ? json(d.Mean()) : json(nullptr);
  out["p50"] = optional(d.Percentile(0.50));
  out["p90"] = optional(d.Percentile(0.90));
  out["p95"] = optional(d.Percentile(0.95));
  out["p999"] = optional(d.Percentile(0.999));
  json buckets = json::array();
  for (size_t i = 0; i < d.counts.size(); ++i) {
    if (d.counts[i] == 0) continue;
    buckets.push_back({i < d.bounds.size() ? json(d.bounds[i]) : json(nullptr), d.counts[i]});
  }
  out["buckets"] = std::move(buckets);
  return out;
}

json ToJson(const Sample& sample) {
  json labels = json::object();
  for (const auto& [key, value] : sample.labels.items()) labels[key] = value;
  json out = {{"labels", labels}, {"timestamp_ns", sample.timestamp_ns}};
  if (sample.is_distribution()) {
    out["distribution"] = ToJson(sample.distribution());
  } else {
    out["value"] = sample.scalar();
  }
  return out;
}

json ToJson(const Reading& reading) {
  json out = {{"metric", reading.metric},
              {"device", reading.device},
              {"state", ReadingStateName(reading.state)}};
  if (const MetricInfo* info = FindMetric(reading.metric)) {
    out["unit"] = info->unit;
    out["kind"] = MetricKindName(info->kind);
  }
  if (!reading.reason.empty()) out["reason"] = reading.reason;
  if (!reading.source.empty()) out["source"] = reading.source;
  json samples = json::array();
  for (const Sample& s : reading.samples) samples.push_back(ToJson(s));
  out["samples"] = std::move(samples);
  return out;
}

}  // namespace xpuperf
