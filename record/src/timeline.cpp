#include "xpuperf/record/timeline.h"

#include "xpuperf/core/concat.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::record {
namespace {

std::string UnitOf(std::string_view metric) {
  if (const MetricInfo* info = FindMetric(metric)) return std::string(info->unit);
  if (metric == kJobMemory) return "bytes";
  if (metric == kJobProcesses) return "count";
  return "";
}

}  // namespace

std::string SeriesKey(std::string_view metric, std::string_view device, const Labels& labels) {
  std::string key(metric);
  key += "{device=\"";
  key += device;
  key += '"';
  for (const auto& [k, v] : labels.items()) {
    if (k == labels::kDevice) continue;
    key += Concat(",", k, "=\"", v, "\"");
  }
  return key + "}";
}

uint32_t SeriesTable::Intern(std::string_view metric, std::string_view device,
                             const Labels& labels) {
  std::string key = SeriesKey(metric, device, labels);
  if (auto it = index_.find(key); it != index_.end()) return it->second;
  Series series;
  series.metric = std::string(metric);
  series.device = std::string(device);
  for (const auto& [k, v] : labels.items()) {
    if (k == labels::kDevice) continue;
    series.labels.Set(k, v);
    if (series.detail.empty()) series.detail = v;
  }
  series.unit = UnitOf(metric);
  series.key = key;
  const auto index = static_cast<uint32_t>(series_.size());
  series_.push_back(std::move(series));
  index_.emplace(std::move(key), index);
  return index;
}

int64_t SeriesTable::Find(std::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? -1 : static_cast<int64_t>(it->second);
}

}  // namespace xpuperf::record
