// A bounded in-memory history of the exporter's recent snapshots, for consumers that evaluate
// rules over time (`serve --rules`): "duty cycle below 0.1 for 5 minutes" reads the last five
// minutes from here instead of asking Prometheus.
//
// Thread-safe: the exporter appends from its collection threads, any number of readers may call the
// const methods concurrently. Snapshots are immutable once appended and shared, so readers keep
// them as long as they like without copying and without holding a lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "xpuperf/exporter/metric_family.h"

namespace xpuperf::exporter {

// One value of one series at one time.
struct TimedValue {
  int64_t timestamp_ns = 0;
  double value = 0;
};

// A scalar series (gauge, counter or info sample) over time, with its full label set.
struct SeriesHistory {
  std::string name;  // sample name, e.g. xpuperf_duty_cycle_ratio
  Labels labels;
  std::vector<TimedValue> values;  // oldest first
};

class SnapshotHistory {
 public:
  // Keeps at most `capacity` snapshots (the oldest are dropped first); capacity >= 1.
  explicit SnapshotHistory(size_t capacity);

  void Append(std::shared_ptr<const Snapshot> snapshot);

  size_t capacity() const { return capacity_; }
  size_t size() const;
  // The newest snapshot, or null before the first collection.
  std::shared_ptr<const Snapshot> Latest() const;
  // Snapshots with timestamp_ns >= since_ns, oldest first.
  std::vector<std::shared_ptr<const Snapshot>> Since(int64_t since_ns) const;
  // Every scalar series of family `name` (gauge, counter or info; histograms are not flattened)
  // seen since `since_ns`, one entry per distinct label set, each with its values oldest first. A
  // series that vanished (a lost device) simply has no values after it vanished.
  std::vector<SeriesHistory> Series(std::string_view name, int64_t since_ns) const;

 private:
  size_t capacity_;
  mutable std::mutex mutex_;
  std::deque<std::shared_ptr<const Snapshot>> snapshots_;
};

}  // namespace xpuperf::exporter
