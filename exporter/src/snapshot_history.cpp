#include "xpuperf/exporter/snapshot_history.h"

#include <algorithm>
#include <map>

namespace xpuperf::exporter {

const MetricFamily* Snapshot::Find(std::string_view name) const {
  for (const MetricFamily& family : families) {
    if (family.name == name) return &family;
  }
  return nullptr;
}

SnapshotHistory::SnapshotHistory(size_t capacity) : capacity_(std::max<size_t>(capacity, 1)) {}

void SnapshotHistory::Append(std::shared_ptr<const Snapshot> snapshot) {
  if (snapshot == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  snapshots_.push_back(std::move(snapshot));
  while (snapshots_.size() > capacity_) snapshots_.pop_front();
}

size_t SnapshotHistory::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return snapshots_.size();
}

std::shared_ptr<const Snapshot> SnapshotHistory::Latest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return snapshots_.empty() ? nullptr : snapshots_.back();
}

std::vector<std::shared_ptr<const Snapshot>> SnapshotHistory::Since(int64_t since_ns) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<const Snapshot>> out;
  for (const auto& snapshot : snapshots_) {
    if (snapshot->timestamp_ns >= since_ns) out.push_back(snapshot);
  }
  return out;
}

std::vector<SeriesHistory> SnapshotHistory::Series(std::string_view name, int64_t since_ns) const {
  // Label sets as their string form keep the first-seen order stable and lookups cheap.
  std::map<std::string, size_t> index;
  std::vector<SeriesHistory> out;
  for (const auto& snapshot : Since(since_ns)) {
    const MetricFamily* family = snapshot->Find(name);
    if (family == nullptr) continue;
    for (const ScalarPoint& point : family->points) {
      auto [it, inserted] = index.emplace(point.labels.ToString(), out.size());
      if (inserted) out.push_back(SeriesHistory{std::string(name), point.labels, {}});
      out[it->second].values.push_back(TimedValue{snapshot->timestamp_ns, point.value});
    }
  }
  return out;
}

}  // namespace xpuperf::exporter
