#include "xpuperf/core/recorder.h"

#include <algorithm>
#include <bit>
#include <deque>
#include <limits>
#include <map>
#include <unordered_map>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf {

int RecorderBucketIndex(uint64_t ns) {
  if (ns < 8) return static_cast<int>(ns);
  const int e = 63 - std::countl_zero(ns);  // floor(log2(ns)) >= 3
  const int index = 8 * (e - 2) + static_cast<int>((ns >> (e - 3)) & 7);
  return std::min(index, kRecorderFiniteBuckets);
}

uint64_t RecorderBucketLowerNs(int index) {
  if (index < 8) return static_cast<uint64_t>(index);
  const int e = index / 8 + 2;
  return (uint64_t{1} << e) + static_cast<uint64_t>(index % 8) * (uint64_t{1} << (e - 3));
}

namespace detail {

// Written by exactly one thread (its owner) and read by Snapshot(); single-writer, so plain
// load/store with relaxed order is enough and avoids locked read-modify-write instructions.
struct Shard {
  std::atomic<uint64_t> count{0};
  std::atomic<uint64_t> sum_ns{0};
  std::atomic<uint64_t> min_ns{std::numeric_limits<uint64_t>::max()};
  std::atomic<uint64_t> max_ns{0};
  std::atomic<uint64_t> buckets[kRecorderBuckets] = {};

  static void Bump(std::atomic<uint64_t>& a, uint64_t by) {
    a.store(a.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  }
  void Record(uint64_t ns) {
    Bump(count, 1);
    Bump(sum_ns, ns);
    Bump(buckets[RecorderBucketIndex(ns)], 1);
    if (ns < min_ns.load(std::memory_order_relaxed)) min_ns.store(ns, std::memory_order_relaxed);
    if (ns > max_ns.load(std::memory_order_relaxed)) max_ns.store(ns, std::memory_order_relaxed);
  }
  void Clear() {
    count.store(0, std::memory_order_relaxed);
    sum_ns.store(0, std::memory_order_relaxed);
    min_ns.store(std::numeric_limits<uint64_t>::max(), std::memory_order_relaxed);
    max_ns.store(0, std::memory_order_relaxed);
    for (auto& b : buckets) b.store(0, std::memory_order_relaxed);
  }
};

struct Series {
  uint64_t id = 0;  // process-wide unique, indexes the per-thread shard table
  std::string metric;
  std::string device;
  std::string label_key;
  std::string label_value;
  std::mutex mutex;  // guards shards (the list, not the counters)
  std::deque<Shard> shards;

  Shard* NewShard() {
    std::lock_guard lock(mutex);
    return &shards.emplace_back();
  }
};

}  // namespace detail

namespace {

std::atomic<uint64_t> next_series_id{0};
std::atomic<uint64_t> next_recorder_id{1};

// Per thread: series id -> this thread's shard. Ids are never reused, so an entry of a destroyed
// recorder is never looked up again.
thread_local std::vector<detail::Shard*> tls_shards;

detail::Shard* ShardFor(detail::Series* series) {
  const uint64_t id = series->id;
  if (id < tls_shards.size()) {
    if (detail::Shard* shard = tls_shards[id]) return shard;
  } else {
    tls_shards.resize(std::max<size_t>(id + 1, tls_shards.size() * 2), nullptr);
  }
  detail::Shard* shard = series->NewShard();
  tls_shards[id] = shard;
  return shard;
}

std::string SeriesKey(std::string_view metric, std::string_view device, std::string_view value) {
  std::string key;
  key.reserve(metric.size() + device.size() + value.size() + 2);
  key.append(metric).append(1, '\0').append(device).append(1, '\0').append(value);
  return key;
}

// (recorder id, series key) -> series, per thread, for the convenience Record* calls.
struct TlsLookup {
  uint64_t recorder_id = 0;
  std::unordered_map<std::string, detail::Series*> series;
};
thread_local TlsLookup tls_lookup;

}  // namespace

void OpSeries::RecordNs(int64_t duration_ns) const {
  if (series_ == nullptr || duration_ns < 0) return;
  ShardFor(series_)->Record(static_cast<uint64_t>(duration_ns));
}

struct Recorder::Impl {
  uint64_t id = next_recorder_id.fetch_add(1);
  mutable std::mutex mutex;
  std::map<std::string, std::unique_ptr<detail::Series>> series;  // by SeriesKey
  std::map<std::string, int64_t, std::less<>> queue_depth;        // by device

  detail::Series* Find(std::string_view metric, std::string_view device, std::string_view key,
                       std::string_view value) {
    std::string k = SeriesKey(metric, device, value);
    std::lock_guard lock(mutex);
    auto& slot = series[k];
    if (!slot) {
      slot = std::make_unique<detail::Series>();
      slot->id = next_series_id.fetch_add(1);
      slot->metric = std::string(metric);
      slot->device = std::string(device);
      slot->label_key = std::string(key);
      slot->label_value = std::string(value);
    }
    return slot.get();
  }

  detail::Series* CachedFind(std::string_view metric, std::string_view device, std::string_view key,
                             std::string_view value) {
    if (tls_lookup.recorder_id != id) {
      tls_lookup.series.clear();
      tls_lookup.recorder_id = id;
    }
    std::string k = SeriesKey(metric, device, value);
    auto it = tls_lookup.series.find(k);
    if (it != tls_lookup.series.end()) return it->second;
    detail::Series* s = Find(metric, device, key, value);
    tls_lookup.series.emplace(std::move(k), s);
    return s;
  }
};

Recorder::Recorder() : impl_(std::make_unique<Impl>()) {}
Recorder::~Recorder() = default;

Recorder& Recorder::Global() {
  static Recorder* recorder = new Recorder();  // never destroyed: threads may record at exit
  return *recorder;
}

OpSeries Recorder::Op(std::string_view op_name, std::string_view device) {
  return OpSeries(impl_->Find(metrics::kOpExecutionTime, device, labels::kOp, op_name));
}

OpSeries Recorder::Transfer(uint64_t bytes, std::string_view device) {
  return OpSeries(impl_->Find(metrics::kTransferLatency, device, labels::kBufferSize,
                              TransferSizeBucket(bytes)));
}

void Recorder::RecordOp(std::string_view op_name, int64_t duration_ns, std::string_view device) {
  OpSeries(impl_->CachedFind(metrics::kOpExecutionTime, device, labels::kOp, op_name))
      .RecordNs(duration_ns);
}

void Recorder::RecordTransfer(uint64_t bytes, int64_t latency_ns, std::string_view device) {
  OpSeries(impl_->CachedFind(metrics::kTransferLatency, device, labels::kBufferSize,
                             TransferSizeBucket(bytes)))
      .RecordNs(latency_ns);
}

void Recorder::SetQueueDepth(int64_t depth, std::string_view device) {
  std::lock_guard lock(impl_->mutex);
  auto it = impl_->queue_depth.find(device);
  if (it == impl_->queue_depth.end()) {
    impl_->queue_depth.emplace(std::string(device), depth);
  } else {
    it->second = depth;
  }
}

namespace {
Distribution ToDistribution(const std::deque<detail::Shard>& shards) {
  static const std::vector<double> kBounds = [] {
    std::vector<double> bounds;
    for (int i = 1; i <= kRecorderFiniteBuckets; ++i) {
      bounds.push_back(static_cast<double>(RecorderBucketLowerNs(i)) * 1e-9);
    }
    return bounds;
  }();
  Distribution d = Distribution::WithBounds(kBounds);
  uint64_t min_ns = std::numeric_limits<uint64_t>::max(), max_ns = 0, sum_ns = 0;
  for (const detail::Shard& shard : shards) {
    const uint64_t n = shard.count.load(std::memory_order_relaxed);
    if (n == 0) continue;
    uint64_t bucket_total = 0;
    for (int i = 0; i < kRecorderBuckets; ++i) {
      const uint64_t c = shard.buckets[i].load(std::memory_order_relaxed);
      d.counts[static_cast<size_t>(i)] += c;
      bucket_total += c;
    }
    d.count += bucket_total;  // the bucket counts are the truth if a record is in flight
    sum_ns += shard.sum_ns.load(std::memory_order_relaxed);
    min_ns = std::min(min_ns, shard.min_ns.load(std::memory_order_relaxed));
    max_ns = std::max(max_ns, shard.max_ns.load(std::memory_order_relaxed));
  }
  if (d.count > 0) {
    d.sum = static_cast<double>(sum_ns) * 1e-9;
    d.min = static_cast<double>(min_ns) * 1e-9;
    d.max = static_cast<double>(max_ns) * 1e-9;
  }
  return d;
}
}  // namespace

std::vector<Reading> Recorder::Snapshot(std::string_view device, int64_t timestamp_ns) const {
  Reading ops;
  ops.metric = std::string(metrics::kOpExecutionTime);
  Reading transfers;
  transfers.metric = std::string(metrics::kTransferLatency);
  Reading queue;
  queue.metric = std::string(metrics::kQueueSize);
  ops.device = transfers.device = queue.device = std::string(device);

  std::lock_guard lock(impl_->mutex);
  for (const auto& [key, series] : impl_->series) {
    if (series->device != device) continue;
    Distribution d;
    {
      std::lock_guard shard_lock(series->mutex);
      d = ToDistribution(series->shards);
    }
    if (d.count == 0) continue;
    Sample sample;
    sample.labels.Set(labels::kDevice, device);
    sample.labels.Set(series->label_key, series->label_value);
    sample.timestamp_ns = timestamp_ns;
    sample.value = std::move(d);
    (series->metric == metrics::kOpExecutionTime ? ops : transfers).samples.push_back(std::move(sample));
  }
  if (auto it = impl_->queue_depth.find(device); it != impl_->queue_depth.end()) {
    Sample sample;
    sample.labels.Set(labels::kDevice, device);
    sample.labels.Set("source", "sdk");
    sample.timestamp_ns = timestamp_ns;
    sample.value = static_cast<double>(it->second);
    queue.samples.push_back(std::move(sample));
  }
  for (Reading* r : {&ops, &transfers, &queue}) {
    if (r->samples.empty()) {
      r->state = ReadingState::kNoData;
      r->reason = "no data: nothing recorded through the xpuperf SDK in this process";
    }
  }
  return {std::move(ops), std::move(transfers), std::move(queue)};
}

std::vector<std::string> Recorder::Devices() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<std::string> devices;
  auto add = [&](const std::string& d) {
    if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
  };
  for (const auto& [key, series] : impl_->series) add(series->device);
  for (const auto& [device, depth] : impl_->queue_depth) add(device);
  return devices;
}

void Recorder::Reset() {
  std::lock_guard lock(impl_->mutex);
  for (auto& [key, series] : impl_->series) {
    std::lock_guard shard_lock(series->mutex);
    for (detail::Shard& shard : series->shards) shard.Clear();
  }
  impl_->queue_depth.clear();
}

std::string TransferSizeBucket(uint64_t bytes) {
  const uint64_t rounded = bytes <= 1 ? 1 : bytes > (uint64_t{1} << 62) ? uint64_t{1} << 63 : std::bit_ceil(bytes);
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  uint64_t value = rounded;
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    ++unit;
  }
  return std::to_string(value) + kUnits[unit];
}

}  // namespace xpuperf
