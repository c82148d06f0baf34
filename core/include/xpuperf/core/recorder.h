// In-process metrics: a workload records operation durations, transfer latencies and queue depth;
// they feed op_execution_time_seconds, transfer_latency_seconds and queue_size.
//
// Hot path: Record*() writes to a per-thread shard with relaxed atomics (no locks, no allocation
// after the first record of a thread on a handle). Snapshot() sums the shards under a mutex and may
// run concurrently with recording. The class is thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/sample.h"

namespace xpuperf {

// Fixed log-linear latency buckets shared by all recorded distributions: exact below 8 ns, then 8
// sub-buckets per power of two (<= 12.5% wide) up to 2^41 ns (~2199 s), then one overflow bucket.
// The exported Distribution has its bounds in seconds.
inline constexpr int kRecorderFiniteBuckets = 8 * 39;
inline constexpr int kRecorderBuckets = kRecorderFiniteBuckets + 1;
// Bucket index of a duration in ns, and the lower bound (ns) of a bucket index.
int RecorderBucketIndex(uint64_t ns);
uint64_t RecorderBucketLowerNs(int index);

class Recorder;

namespace detail {
struct Shard;  // per (series, thread) counters
struct Series;
}  // namespace detail

// The longest op or transfer the recorder accepts: a day. Longer is a unit or clock mistake
// (INT64_MAX ns is 292 years) and would poison the distribution; it is dropped.
inline constexpr int64_t kMaxRecordedDurationNs = int64_t{86400} * 1'000'000'000;
inline constexpr bool IsPlausibleDuration(int64_t ns) {
  return ns >= 0 && ns <= kMaxRecordedDurationNs;
}

// A handle to one recorded series (an op name on a device, or a transfer-size bucket). Cheap to
// copy; valid as long as its Recorder.
class OpSeries {
 public:
  // Records one duration in nanoseconds (negative ones and ones over kMaxRecordedDurationNs, a
  // clock or unit mistake, are ignored).
  void RecordNs(int64_t duration_ns) const;

 private:
  friend class Recorder;
  explicit OpSeries(detail::Series* series) : series_(series) {}
  detail::Series* series_ = nullptr;
};

class Recorder {
 public:
  Recorder();
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // The process-wide recorder the C ABI and the tracer use.
  static Recorder& Global();

  // Looks up (or creates) the series of an operation on a device. Takes a lock: keep the handle.
  OpSeries Op(std::string_view op_name, std::string_view device = "cpu0");
  // Transfer series for a buffer of `bytes`; the label buffer_size is the power-of-two bucket
  // ("4KiB", "1MiB", ...) that holds it, as the TPU runtime groups transfers.
  OpSeries Transfer(uint64_t bytes, std::string_view device = "cpu0");

  // Convenience: lookup + record (a thread-local cache makes the lookup cheap after the first
  // call).
  void RecordOp(std::string_view op_name, int64_t duration_ns, std::string_view device = "cpu0");
  void RecordTransfer(uint64_t bytes, int64_t latency_ns, std::string_view device = "cpu0");
  // Current depth of a queue on a device (last value wins).
  void SetQueueDepth(int64_t depth, std::string_view device = "cpu0");

  // Readings for op_execution_time_seconds, transfer_latency_seconds and queue_size on `device`
  // (kNoData when nothing was recorded). timestamp_ns stamps the samples.
  std::vector<Reading> Snapshot(std::string_view device, int64_t timestamp_ns) const;
  // Devices that have recorded data.
  std::vector<std::string> Devices() const;
  // Forgets all data (handles stay valid).
  void Reset();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Bucket label for a transfer size: the smallest power of two >= bytes, as "512B", "4KiB", "1MiB".
std::string TransferSizeBucket(uint64_t bytes);

}  // namespace xpuperf
