#include "runtime_values.h"

#include <gtest/gtest.h>

#include "fake_runtime_scenarios.h"
#include "runtime_client.h"

namespace xpuperf::tpu {
namespace {

using testing::ExplicitDistribution;
using testing::ExponentialDistribution;
using testing::LinearDistribution;

constexpr double kTolerance = 1e-9;

// Percentiles in microseconds of a distribution converted without a unit change.
void ExpectPercentiles(const Distribution& d, double p50, double p90, double p95, double p999) {
  EXPECT_NEAR(*d.Percentile(0.5), p50, kTolerance);
  EXPECT_NEAR(*d.Percentile(0.9), p90, kTolerance);
  EXPECT_NEAR(*d.Percentile(0.95), p95, kTolerance);
  EXPECT_NEAR(*d.Percentile(0.999), p999, kTolerance);
}

TEST(ToDistributionTest, ExponentialBucketsGiveTpuInfoPercentiles) {
  // Buckets [2^(i-1), 2^i): 10 in [128,256), 80 in [256,512), 10 in [512,1024).
  // tpu-info: rank floor(q * count), lower * (1 + within * (g - 1)); p50 = 256 * (1 + 40/80) =
  // 384; p999: rank 99 -> 512 * (1 + 9/10) = 972.8.
  auto d = ToDistribution(
      ExponentialDistribution(20, 2, 1, {0, 0, 0, 0, 0, 0, 0, 0, 10, 80, 10}, 400), 1);
  ASSERT_TRUE(d.ok()) << d.error().ToString();
  EXPECT_EQ(d->count, 100u);
  EXPECT_EQ(d->bounds.size(), 21u);  // scale * 2^0 .. scale * 2^20
  EXPECT_DOUBLE_EQ(d->Mean(), 400);
  ExpectPercentiles(*d, 384, 512, 768, 972.8);
}

TEST(ToDistributionTest, ConvertsMicrosecondsToSeconds) {
  auto d = ToDistribution(ExponentialDistribution(5, 10, 10, {0, 0, 60, 40}, 2000), 1e-6);
  ASSERT_TRUE(d.ok());
  // 50/60 into [100,1000) us -> 100 * (1 + 0.8333 * 9) = 850 us.
  EXPECT_NEAR(*d->Percentile(0.5), 850e-6, 1e-15);
  EXPECT_NEAR(*d->Percentile(0.9), 7750e-6, 1e-15);
  EXPECT_NEAR(*d->Percentile(0.999), 9775e-6, 1e-15);  // rank 99: 39/40
  EXPECT_NEAR(d->Mean(), 2000e-6, 1e-15);
}

TEST(ToDistributionTest, UnderflowAndOverflowBucketsContinueTheExponentialPattern) {
  // Bucket 0 spans [scale/g, scale) = [5, 10); the overflow bucket of N=2 spans [40, 80).
  auto under = ToDistribution(ExponentialDistribution(2, 2, 10, {4}, 7), 1);
  ASSERT_TRUE(under.ok());
  EXPECT_NEAR(*under->Percentile(0.5), 7.5, kTolerance);
  auto over = ToDistribution(ExponentialDistribution(2, 2, 10, {0, 0, 0, 4}, 60), 1);
  ASSERT_TRUE(over.ok());
  EXPECT_NEAR(*over->Percentile(0.5), 60, kTolerance);
}

TEST(ToDistributionTest, LinearBuckets) {
  // Width 50 from 0: 2 in [0,50), 6 in [50,100), 2 in [100,150).
  auto d = ToDistribution(LinearDistribution(4, 50, 0, {0, 2, 6, 2}, 80), 1);
  ASSERT_TRUE(d.ok());
  ExpectPercentiles(*d, 75, 125, 125, 125);  // ranks 5, 9, 9, 9
}

TEST(ToDistributionTest, ExplicitBuckets) {
  auto d = ToDistribution(ExplicitDistribution({100, 200, 400, 800}, {0, 5, 3, 2}, 290), 1);
  ASSERT_TRUE(d.ok());
  ExpectPercentiles(*d, 200, 600, 600, 600);  // ranks 5, 9, 9, 9 of 10
}

TEST(ToDistributionTest, ObservedExtremesAreReportedButDoNotBoundPercentiles) {
  // 10 in [128,256) and 10 in [256,512); the runtime saw 150..300.
  auto d = ToDistribution(
      testing::Observed(ExponentialDistribution(20, 2, 1, {0, 0, 0, 0, 0, 0, 0, 0, 10, 10}, 250),
                        150, 300),
      1e-6);
  ASSERT_TRUE(d.ok());
  EXPECT_NEAR(d->min, 150e-6, 1e-15);
  EXPECT_NEAR(d->max, 300e-6, 1e-15);
  // p90: rank 18 -> 256 * (1 + 8/10) = 460.8 us, above anything observed: tpu-info prints that
  // (its rule does not clamp), and so does xpuperf.
  EXPECT_NEAR(*d->Percentile(0.9), 460.8e-6, 1e-15);
  // p50: rank 10 -> the lower edge of [256,512).
  EXPECT_NEAR(*d->Percentile(0.5), 256e-6, 1e-15);
}

TEST(ToDistributionTest, ExtremesThatContradictTheCountsAreIgnored) {
  // Not sent (both 0): the edges of the outermost non-empty buckets.
  auto absent = ToDistribution(ExponentialDistribution(20, 2, 1, {0, 0, 0, 4}, 5), 1);
  ASSERT_TRUE(absent.ok());
  EXPECT_EQ(absent->min, 4);
  EXPECT_EQ(absent->max, 8);
  // A maximum beyond the last non-empty bucket cannot be true.
  auto wrong = ToDistribution(
      testing::Observed(ExponentialDistribution(20, 2, 1, {0, 0, 0, 4}, 5), 5, 90), 1);
  ASSERT_TRUE(wrong.ok());
  EXPECT_EQ(wrong->min, 4);
  EXPECT_EQ(wrong->max, 8);
}

TEST(ToDistributionTest, EmptyDistributionHasNoPercentile) {
  auto d = ToDistribution(ExponentialDistribution(10, 2, 1, {}, 0), 1);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->count, 0u);
  EXPECT_FALSE(d->Percentile(0.5).has_value());
}

TEST(ToDistributionTest, RejectsMalformedHistograms) {
  auto too_many = ToDistribution(ExponentialDistribution(1, 2, 1, {1, 1, 1, 1}, 1), 1);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.error().code, ErrorCode::kParse);
  EXPECT_FALSE(ToDistribution(ExponentialDistribution(3, 1, 1, {1}, 1), 1).ok());
  EXPECT_FALSE(ToDistribution(ExplicitDistribution({2, 1}, {1}, 1), 1).ok());
  EXPECT_FALSE(ToDistribution(ExponentialDistribution(3, 2, 1, {-1}, 1), 1).ok());
  EXPECT_EQ(ToDistribution(runtime::Distribution(), 1).error().code, ErrorCode::kParse);
  runtime::Distribution regular;
  // The deprecated layout is still on the wire from old runtimes; building one is the point here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  regular.mutable_bucket_options()->mutable_regular_buckets()->set_num_finite_buckets(1);
#pragma GCC diagnostic pop
  EXPECT_EQ(ToDistribution(regular, 1).error().code, ErrorCode::kUnsupported);
}

TEST(SeriesLabelsTest, DeviceOrdinalInEveryForm) {
  EXPECT_EQ(DeviceOrdinal(testing::GaugeForOrdinal(3, 1)), 3);
  EXPECT_EQ(DeviceOrdinal(testing::WithKvOrdinal(runtime::Metric(), 5, true)), 5);
  EXPECT_EQ(DeviceOrdinal(testing::WithKvOrdinal(runtime::Metric(), 6, false)), 6);
  EXPECT_FALSE(DeviceOrdinal(runtime::Metric()).has_value());
  EXPECT_EQ(BufferSizeLabel(testing::WithBufferSize(runtime::Metric(), "8MB+")), "8MB+");
  EXPECT_EQ(GaugeValue(testing::IntGaugeForOrdinal(0, 42)), 42);
}

TEST(RuntimePortsTest, ParsesTheEnvironmentList) {
  EXPECT_EQ(*ParseRuntimePorts(nullptr), std::vector<int>{8431});
  EXPECT_EQ(*ParseRuntimePorts(""), std::vector<int>{8431});
  EXPECT_EQ(*ParseRuntimePorts("8431, 8432,8433"), (std::vector<int>{8431, 8432, 8433}));
  auto bad = ParseRuntimePorts("8431,http");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.error().message.find("'http'"), std::string::npos);
  EXPECT_FALSE(ParseRuntimePorts("70000").ok());
}

}  // namespace
}  // namespace xpuperf::tpu
