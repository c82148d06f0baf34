#include "xpuperf/core/recorder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf {
namespace {

// By value: callers pass the temporary result of Snapshot().
Reading Find(const std::vector<Reading>& readings, std::string_view metric) {
  auto it = std::find_if(readings.begin(), readings.end(),
                         [&](const Reading& r) { return r.metric == metric; });
  if (it == readings.end()) std::abort();  // every Snapshot has all three metrics
  return *it;
}

// The op_execution_time_seconds distribution of one op, or an empty one.
Distribution OpDistribution(const Recorder& recorder, std::string_view op,
                            std::string_view device = "cpu0") {
  for (const Sample& s : Find(recorder.Snapshot(device, 0), metrics::kOpExecutionTime).samples) {
    if (s.labels.Get(labels::kOp) == op) return s.distribution();
  }
  return {};
}

TEST(RecorderBucketTest, LowerBoundsRoundTrip) {
  for (int i = 0; i <= kRecorderFiniteBuckets; ++i) {
    EXPECT_EQ(RecorderBucketIndex(RecorderBucketLowerNs(i)), i) << "bucket " << i;
  }
  for (int i = 0; i < kRecorderFiniteBuckets; ++i) {
    const uint64_t lower = RecorderBucketLowerNs(i);
    const uint64_t next = RecorderBucketLowerNs(i + 1);
    ASSERT_LT(lower, next) << "bucket " << i;
    EXPECT_EQ(RecorderBucketIndex(next - 1), i) << "last value of bucket " << i;
  }
}

TEST(RecorderBucketTest, ExactBelowEightThenAtMostOneEighthWide) {
  for (uint64_t ns = 0; ns < 8; ++ns) EXPECT_EQ(RecorderBucketLowerNs(RecorderBucketIndex(ns)), ns);
  for (int i = 8; i < kRecorderFiniteBuckets; ++i) {
    const uint64_t lower = RecorderBucketLowerNs(i);
    EXPECT_LE(RecorderBucketLowerNs(i + 1) - lower, lower / 8) << "bucket " << i;
  }
}

TEST(RecorderBucketTest, LargeValuesLandInOverflowBucket) {
  EXPECT_EQ(RecorderBucketLowerNs(kRecorderFiniteBuckets), uint64_t{1} << 41);
  EXPECT_EQ(RecorderBucketIndex((uint64_t{1} << 41) - 1), kRecorderFiniteBuckets - 1);
  EXPECT_EQ(RecorderBucketIndex(uint64_t{1} << 41), kRecorderFiniteBuckets);
  EXPECT_EQ(RecorderBucketIndex(std::numeric_limits<uint64_t>::max()), kRecorderFiniteBuckets);
}

TEST(RecorderTest, EmptyRecorderReportsNoDataWithReason) {
  Recorder recorder;
  const std::vector<Reading> readings = recorder.Snapshot("cpu0", 5);
  ASSERT_EQ(readings.size(), 3u);
  for (std::string_view metric :
       {metrics::kOpExecutionTime, metrics::kTransferLatency, metrics::kQueueSize}) {
    const Reading r = Find(readings, metric);
    EXPECT_EQ(r.device, "cpu0");
    EXPECT_EQ(r.state, ReadingState::kNoData) << metric;
    EXPECT_FALSE(r.reason.empty()) << metric;
    EXPECT_TRUE(r.samples.empty()) << metric;
  }
  EXPECT_TRUE(recorder.Devices().empty());
}

TEST(RecorderTest, ExactCountSumMinMax) {
  Recorder recorder;
  for (int64_t ns : {100, 200, 300, 1'000'000}) recorder.RecordOp("matmul", ns, "dev0");
  recorder.RecordOp("matmul", -5, "dev0");         // ignored
  recorder.RecordOp("matmul", INT64_MAX, "dev0");  // 292 years: a unit mistake, ignored
  recorder.RecordOp("matmul", kMaxRecordedDurationNs + 1, "dev0");  // over a day: ignored
  recorder.Op("matmul", "dev0").RecordNs(INT64_MAX);                // through a handle too

  const Reading ops = Find(recorder.Snapshot("dev0", 1234), metrics::kOpExecutionTime);
  ASSERT_EQ(ops.state, ReadingState::kOk);
  ASSERT_EQ(ops.samples.size(), 1u);
  const Sample& s = ops.samples[0];
  EXPECT_EQ(s.labels, (Labels{{"device", "dev0"}, {"op", "matmul"}}));
  EXPECT_EQ(s.timestamp_ns, 1234);
  ASSERT_TRUE(s.is_distribution());
  const Distribution& d = s.distribution();
  EXPECT_EQ(d.count, 4u);
  EXPECT_DOUBLE_EQ(d.sum, 1'000'600e-9);
  EXPECT_DOUBLE_EQ(d.min, 100e-9);
  EXPECT_DOUBLE_EQ(d.max, 1e-3);
  EXPECT_EQ(d.counts.size(), static_cast<size_t>(kRecorderBuckets));
  EXPECT_EQ(d.counts[static_cast<size_t>(RecorderBucketIndex(300))], 1u);
}

TEST(RecorderTest, PercentilesWithinOneBucketWidthOfExact) {
  Recorder recorder;
  OpSeries series = recorder.Op("uniform");
  constexpr int kValues = 100'000;
  for (int64_t i = 1; i <= kValues; ++i) series.RecordNs(i * 10);  // 10 ns .. 1 ms
  const Distribution d = OpDistribution(recorder, "uniform");
  ASSERT_EQ(d.count, static_cast<uint64_t>(kValues));
  for (double q : {0.01, 0.5, 0.9, 0.95, 0.99, 0.999}) {
    const double exact_s = q * kValues * 10 * 1e-9;
    const double width_s = exact_s / 8;  // buckets are at most 1/8 of their lower bound wide
    ASSERT_TRUE(d.Percentile(q).has_value());
    EXPECT_NEAR(*d.Percentile(q), exact_s, width_s) << "q=" << q;
  }
}

TEST(RecorderTest, HandleAndNameRecordIntoTheSameSeries) {
  Recorder recorder;
  recorder.Op("softmax").RecordNs(10);
  recorder.RecordOp("softmax", 20);
  recorder.RecordOp("softmax", 30, "cpu1");
  EXPECT_EQ(OpDistribution(recorder, "softmax").count, 2u);
  EXPECT_EQ(OpDistribution(recorder, "softmax", "cpu1").count, 1u);
}

// More keys than the per-thread lookup cache has entries, interleaved, so entries are evicted and
// refilled: every record must still land in its own series.
TEST(RecorderTest, ManyOpNamesFromOneThreadStaySeparate) {
  Recorder recorder;
  constexpr int kNames = 1000;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kNames; ++i) recorder.RecordOp("op" + std::to_string(i), i + 1);
  }
  const Reading ops = Find(recorder.Snapshot("cpu0", 0), metrics::kOpExecutionTime);
  ASSERT_EQ(ops.samples.size(), static_cast<size_t>(kNames));
  for (const Sample& s : ops.samples) {
    const int i = std::stoi(std::string(s.labels.Get(labels::kOp).substr(2)));
    EXPECT_EQ(s.distribution().count, 3u) << s.labels.ToString();
    EXPECT_DOUBLE_EQ(s.distribution().min, (i + 1) * 1e-9) << s.labels.ToString();
  }
}

TEST(RecorderTest, RecordersAreIndependent) {
  Recorder a;
  a.RecordOp("op", 1);
  {
    Recorder b;
    b.RecordOp("op", 2);
    b.RecordOp("op", 2);
    EXPECT_EQ(OpDistribution(b, "op").count, 2u);
  }
  // A recorder created after another was destroyed may reuse its memory; it must start empty and
  // record into its own series.
  Recorder c;
  EXPECT_EQ(OpDistribution(c, "op").count, 0u);
  c.RecordOp("op", 3);
  EXPECT_EQ(OpDistribution(c, "op").count, 1u);
  EXPECT_EQ(OpDistribution(a, "op").count, 1u);
}

TEST(TransferSizeBucketTest, RoundsUpToAPowerOfTwoWithBinaryUnits) {
  EXPECT_EQ(TransferSizeBucket(0), "1B");
  EXPECT_EQ(TransferSizeBucket(1), "1B");
  EXPECT_EQ(TransferSizeBucket(3), "4B");
  EXPECT_EQ(TransferSizeBucket(512), "512B");
  EXPECT_EQ(TransferSizeBucket(513), "1KiB");
  EXPECT_EQ(TransferSizeBucket(1024), "1KiB");
  EXPECT_EQ(TransferSizeBucket(4096), "4KiB");
  EXPECT_EQ(TransferSizeBucket(3000), "4KiB");
  EXPECT_EQ(TransferSizeBucket(4097), "8KiB");
  EXPECT_EQ(TransferSizeBucket(uint64_t{1} << 20), "1MiB");
  EXPECT_EQ(TransferSizeBucket(3'000'000), "4MiB");
  EXPECT_EQ(TransferSizeBucket(uint64_t{1} << 30), "1GiB");
  EXPECT_EQ(TransferSizeBucket(uint64_t{1} << 63), "8EiB");
  EXPECT_EQ(TransferSizeBucket(std::numeric_limits<uint64_t>::max()), "8EiB");
}

TEST(RecorderTest, TransfersAreLabelledByTheirSizeBucket) {
  Recorder recorder;
  // Both sides of every power of two: the recorder's own bucket arithmetic must agree with the
  // labels of TransferSizeBucket.
  std::map<std::string, uint64_t> expected;
  auto record = [&](uint64_t bytes) {
    recorder.RecordTransfer(bytes, 100, "dev0");
    ++expected[TransferSizeBucket(bytes)];
  };
  record(0);
  for (int k = 0; k < 64; ++k) {
    const uint64_t p = uint64_t{1} << k;
    record(p - 1);
    record(p);
    record(p + 1);
  }
  record(std::numeric_limits<uint64_t>::max());

  const Reading transfers = Find(recorder.Snapshot("dev0", 0), metrics::kTransferLatency);
  ASSERT_EQ(transfers.state, ReadingState::kOk);
  std::map<std::string, uint64_t> actual;
  for (const Sample& s : transfers.samples) {
    actual[std::string(s.labels.Get(labels::kBufferSize))] += s.distribution().count;
  }
  EXPECT_EQ(actual, expected);
}

TEST(RecorderTest, QueueDepthLastValueWinsPerDevice) {
  Recorder recorder;
  recorder.SetQueueDepth(5);
  recorder.SetQueueDepth(7);
  recorder.SetQueueDepth(2, "dev1");
  const Reading queue = Find(recorder.Snapshot("cpu0", 9), metrics::kQueueSize);
  ASSERT_EQ(queue.state, ReadingState::kOk);
  ASSERT_EQ(queue.samples.size(), 1u);
  EXPECT_EQ(queue.samples[0].scalar(), 7.0);
  EXPECT_EQ(queue.samples[0].labels.Get(labels::kDevice), "cpu0");
  EXPECT_EQ(queue.samples[0].timestamp_ns, 9);
  EXPECT_EQ(Find(recorder.Snapshot("dev1", 0), metrics::kQueueSize).samples.at(0).scalar(), 2.0);
  // Only the queue was recorded: the distributions still say there is no data.
  EXPECT_EQ(Find(recorder.Snapshot("cpu0", 0), metrics::kOpExecutionTime).state,
            ReadingState::kNoData);
  std::vector<std::string> devices = recorder.Devices();
  std::sort(devices.begin(), devices.end());
  EXPECT_EQ(devices, (std::vector<std::string>{"cpu0", "dev1"}));
}

// The recorder marks "no depth yet" with INT64_MIN internally; a caller passing it still gets a
// reading (one above it).
TEST(RecorderTest, QueueDepthOfInt64MinIsStillAValue) {
  Recorder recorder;
  recorder.SetQueueDepth(std::numeric_limits<int64_t>::min(), "edge");
  const Reading queue = Find(recorder.Snapshot("edge", 0), metrics::kQueueSize);
  ASSERT_EQ(queue.state, ReadingState::kOk);
  EXPECT_LT(queue.samples.at(0).scalar(), -9e18);
  EXPECT_EQ(recorder.Devices(), std::vector<std::string>{"edge"});
}

TEST(RecorderTest, ResetForgetsDataButKeepsHandles) {
  Recorder recorder;
  OpSeries series = recorder.Op("matmul");
  series.RecordNs(10);
  recorder.RecordTransfer(4096, 10);
  recorder.SetQueueDepth(3);
  recorder.Reset();
  for (const Reading& r : recorder.Snapshot("cpu0", 0)) {
    EXPECT_EQ(r.state, ReadingState::kNoData) << r.metric;
  }
  EXPECT_TRUE(recorder.Devices().empty());

  series.RecordNs(20);
  recorder.SetQueueDepth(4);
  const Distribution d = OpDistribution(recorder, "matmul");
  EXPECT_EQ(d.count, 1u);
  EXPECT_DOUBLE_EQ(d.min, 20e-9);
  EXPECT_EQ(Find(recorder.Snapshot("cpu0", 0), metrics::kQueueSize).samples.at(0).scalar(), 4.0);
}

TEST(RecorderTest, HandleWithoutRecordsIsNotADevice) {
  Recorder recorder;
  (void)recorder.Op("never", "dev7");
  EXPECT_TRUE(recorder.Devices().empty());
  recorder.RecordOp("once", 1, "dev7");
  EXPECT_EQ(recorder.Devices(), std::vector<std::string>{"dev7"});
}

// Records from a thread_local destructor that runs after the recorder's own per-thread state was
// freed (it was constructed first, so it is destroyed last) still count.
TEST(RecorderTest, RecordingDuringThreadExitCounts) {
  static Recorder* recorder = new Recorder();  // outlives the thread
  struct RecordsOnExit {
    ~RecordsOnExit() {
      recorder->RecordOp("at_exit", 5);
      recorder->SetQueueDepth(9);
    }
  };
  std::thread([] {
    thread_local RecordsOnExit on_exit;  // constructed before the recorder's state
    (void)on_exit;
    recorder->RecordOp("at_exit", 5);
  }).join();
  EXPECT_EQ(OpDistribution(*recorder, "at_exit").count, 2u);
  EXPECT_EQ(Find(recorder->Snapshot("cpu0", 0), metrics::kQueueSize).samples.at(0).scalar(), 9.0);
}

TEST(RecorderTest, ConcurrentRecordingCountsEveryRecord) {
  Recorder recorder;
  constexpr int kThreads = 4;
  constexpr int kPerThread = 100'000;
  const OpSeries handle = recorder.Op("by_handle");
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        recorder.RecordOp("by_name", i % 1000 + t);
        handle.RecordNs(i % 1000 + t);
      }
    });
  }
  for (std::thread& t : threads) t.join();

  // Sum over threads t of sum_i (i % 1000 + t), in ns: each thread runs 0..999 kPerThread / 1000
  // times (499500 ns each time) plus t per record.
  static_assert(kPerThread % 1000 == 0);
  const double expected_sum_ns =
      kThreads * (kPerThread / 1000) * 499'500.0 + kPerThread * (0 + 1 + 2 + 3.0);
  for (std::string_view op : {"by_name", "by_handle"}) {
    const Distribution d = OpDistribution(recorder, op);
    EXPECT_EQ(d.count, uint64_t{kThreads} * kPerThread) << op;
    EXPECT_NEAR(d.sum, expected_sum_ns * 1e-9, 1e-12) << op;
    EXPECT_DOUBLE_EQ(d.min, 0.0) << op;
    EXPECT_DOUBLE_EQ(d.max, (999 + kThreads - 1) * 1e-9) << op;
  }
}

// Snapshot() sums shards while their owners write them: it must see a non-decreasing count and,
// once the writers are done, every record. Run under TSan to check the synchronisation.
TEST(RecorderTest, SnapshotWhileRecording) {
  Recorder recorder;
  constexpr int kThreads = 2;
  constexpr int kPerThread = 200'000;
  std::atomic<int> running{kThreads};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        recorder.RecordOp("op", i);
        recorder.RecordTransfer(static_cast<uint64_t>(i), i);
        recorder.SetQueueDepth(i);
      }
      running.fetch_sub(1);
    });
  }
  uint64_t last = 0;
  int snapshots = 0;
  while (running.load() > 0 || snapshots == 0) {
    const uint64_t count = OpDistribution(recorder, "op").count;
    EXPECT_GE(count, last);
    last = count;
    ++snapshots;
    if (snapshots % 16 == 0) recorder.Devices();
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(OpDistribution(recorder, "op").count, uint64_t{kThreads} * kPerThread);
  EXPECT_EQ(Find(recorder.Snapshot("cpu0", 0), metrics::kQueueSize).samples.at(0).scalar(),
            kPerThread - 1);
}

}  // namespace
}  // namespace xpuperf
