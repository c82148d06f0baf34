#include "xpuperf/bench/statistics.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "xpuperf/bench/sampler.h"

namespace xpuperf::bench {
namespace {

TEST(StatisticsTest, SummarisesUnsortedSamples) {
  const SampleStatistics s = ComputeStatistics({4, 1, 3, 2, 5});
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);  // rank 0.9 x 4 = 3.6: 4 + 0.6 x (5 - 4)
  EXPECT_DOUBLE_EQ(s.p99, 4.96);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.5));  // sum of squares 10 over n - 1 = 4
  EXPECT_DOUBLE_EQ(s.cv, std::sqrt(2.5) / 3);
}

// 1.4826 x MAD / median: one preempted sample among nine steady ones barely moves it, while it
// inflates the plain CV.
TEST(StatisticsTest, RobustCvIgnoresAnOutlier) {
  const SampleStatistics s =
      ComputeStatistics({1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 3.0});
  EXPECT_NEAR(s.robust_cv, 1.4826 * 0.01 / 1.0, 1e-9);  // deviations' median is 0.01
  EXPECT_GT(s.cv, 0.5);
  EXPECT_DOUBLE_EQ(ComputeStatistics({2, 2, 2}).robust_cv, 0);
}

TEST(StatisticsTest, EvenCountMedianInterpolates) {
  EXPECT_DOUBLE_EQ(ComputeStatistics({1, 2, 3, 10}).median, 2.5);
}

TEST(StatisticsTest, SingleAndEmpty) {
  const SampleStatistics one = ComputeStatistics({7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.stddev, 0);
  EXPECT_EQ(ComputeStatistics({}).count, 0);
}

// A queue whose "time" is the repetition count x 1 ms, so calibration is deterministic.
class CountingQueue final : public ExecutionQueue {
 public:
  std::string timing_source() const override { return "test"; }
  double TimeSeconds(const std::function<void()>& enqueue) override {
    repetitions_seen = 0;
    enqueue();
    ++calls;
    return repetitions_seen * 1e-3;
  }
  int64_t max_repetitions() const override { return limit; }
  int64_t repetitions_seen = 0;
  int calls = 0;
  int64_t limit = INT64_MAX;
};

TEST(SamplerTest, DoublesRepetitionsUntilSampleIsLongEnough) {
  CountingQueue queue;
  SamplingOptions options{.warmup_samples = 2, .samples = 3, .min_sample_seconds = 0.01};
  auto samples =
      CollectSamples(queue, options, [&](int64_t reps) { queue.repetitions_seen = reps; });
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(samples->repetitions, 16);  // 1, 2, 4, 8 ms are too short; 16 ms is enough
  ASSERT_EQ(samples->seconds_per_rep.size(), 3u);
  EXPECT_DOUBLE_EQ(samples->seconds_per_rep[0], 1e-3);
  EXPECT_EQ(queue.calls, 5 + 2 + 3);  // calibration, warm-up, kept samples
}

// A queue that takes only so many repetitions per sample (a GPU stream behind a spin kernel) caps
// calibration below the options' own limit; the samples are then shorter than min_sample_seconds.
TEST(SamplerTest, QueueLimitsRepetitions) {
  CountingQueue queue;
  queue.limit = 6;
  SamplingOptions options{.warmup_samples = 0, .samples = 2, .min_sample_seconds = 0.01};
  auto samples =
      CollectSamples(queue, options, [&](int64_t reps) { queue.repetitions_seen = reps; });
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(samples->repetitions, 6);  // 1, 2, 4, then 6 (not 8)
  EXPECT_EQ(queue.calls, 4 + 2);
  options.max_repetitions = 3;  // the smaller of the two limits wins
  samples = CollectSamples(queue, options, [&](int64_t reps) { queue.repetitions_seen = reps; });
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(samples->repetitions, 3);
}

// A queue whose samples cycle through 10, 15 and 20 ms (robust CV about 50%, far above any target)
// or are steady.
class AlternatingQueue final : public ExecutionQueue {
 public:
  std::string timing_source() const override { return "test"; }
  double TimeSeconds(const std::function<void()>& enqueue) override {
    enqueue();
    ++calls;
    if (steady) return 0.01;
    return 0.01 + 0.005 * (calls % 3);
  }
  int calls = 0;
  bool steady = false;
};

TEST(SamplerTest, AdaptiveSamplingStopsAtTheTargetOrTheCaps) {
  AlternatingQueue queue;
  queue.steady = true;
  SamplingOptions options{.warmup_samples = 0, .samples = 5, .min_sample_seconds = 0.001};
  options.max_samples = 40;
  auto samples = CollectSamples(queue, options, [](int64_t) {});
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(samples->seconds_per_rep.size(), 5u);  // steady: the target is met at once

  queue = AlternatingQueue{};
  samples = CollectSamples(queue, options, [](int64_t) {});
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(samples->seconds_per_rep.size(), 40u);  // never meets 3%: stops at max_samples

  queue = AlternatingQueue{};
  options.max_point_seconds = 0.1;  // ~0.015 s per sample: the time cap comes first
  samples = CollectSamples(queue, options, [](int64_t) {});
  ASSERT_TRUE(samples.ok());
  EXPECT_GE(samples->seconds_per_rep.size(), 5u);
  EXPECT_LE(samples->seconds_per_rep.size(), 8u);

  queue = AlternatingQueue{};
  options.max_point_seconds = 0;  // no adaptive part at all
  samples = CollectSamples(queue, options, [](int64_t) {});
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(samples->seconds_per_rep.size(), 5u);
}

// 16 ms per sample after calibration (1, 2, 4, 8, 16 ms): 2 warm-up and 3 kept samples would end
// at about 111 ms. A cap of 0.05 s gives the point up before they run; 0 is no cap.
TEST(SamplerTest, APointThatWouldRunPastItsTimeCapIsGivenUpBeforeItsSamples) {
  CountingQueue queue;
  SamplingOptions options{.warmup_samples = 2, .samples = 3, .min_sample_seconds = 0.01};
  options.time_cap_seconds = 0.05;
  auto samples =
      CollectSamples(queue, options, [&](int64_t reps) { queue.repetitions_seen = reps; });
  ASSERT_FALSE(samples.ok());
  EXPECT_TRUE(IsOverTimeCap(samples.error())) << samples.error().message;
  EXPECT_EQ(queue.calls, 5);  // calibration only
  EXPECT_NE(samples.error().message.find("over its time cap (0.05 s): one sample of 16 "
                                         "repetitions took 0.016 s"),
            std::string::npos)
      << samples.error().message;
  EXPECT_FALSE(IsOverTimeCap(MakeError(ErrorCode::kInternal, "over its time cap")));

  queue = CountingQueue{};
  options.time_cap_seconds = 0;
  ASSERT_TRUE(
      CollectSamples(queue, options, [&](int64_t reps) { queue.repetitions_seen = reps; }).ok());
}

// The adaptive part stops at the cap too (wall time: each sample sleeps 5 ms).
TEST(SamplerTest, AdaptiveSamplingStopsAtTheTimeCap) {
  AlternatingQueue queue;
  SamplingOptions options{.warmup_samples = 0, .samples = 2, .min_sample_seconds = 0.001};
  options.max_point_seconds = 600;
  options.max_samples = 100000;
  options.time_cap_seconds = 0.2;
  auto samples = CollectSamples(
      queue, options, [](int64_t) { std::this_thread::sleep_for(std::chrono::milliseconds(5)); });
  ASSERT_TRUE(samples.ok()) << samples.error().message;
  EXPECT_GE(samples->seconds_per_rep.size(), 2u);
  EXPECT_LT(samples->seconds_per_rep.size(), 100000u);  // never meets 3%: the cap ended it
}

TEST(SamplerTest, RejectsBadOptions) {
  CountingQueue queue;
  EXPECT_FALSE(CollectSamples(queue, SamplingOptions{.samples = 0}, [](int64_t) {}).ok());
  EXPECT_FALSE(
      CollectSamples(queue, SamplingOptions{.min_sample_seconds = 0}, [](int64_t) {}).ok());
  SamplingOptions no_target;
  no_target.target_cv = 0;
  EXPECT_FALSE(CollectSamples(queue, no_target, [](int64_t) {}).ok());
}

}  // namespace
}  // namespace xpuperf::bench
