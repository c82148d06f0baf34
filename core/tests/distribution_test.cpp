#include "xpuperf/core/distribution.h"

#include <gtest/gtest.h>

namespace xpuperf {
namespace {

TEST(DistributionTest, EmptyHasNoPercentiles) {
  Distribution d = Distribution::WithBounds({1, 2, 4});
  EXPECT_FALSE(d.Percentile(0.5).has_value());
  EXPECT_EQ(d.count, 0u);
}

TEST(DistributionTest, CountsLandInHalfOpenBuckets) {
  Distribution d = Distribution::WithBounds({1, 2, 4});
  for (double v : {0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 9.0}) d.Add(v);
  EXPECT_EQ(d.counts, (std::vector<uint64_t>{1, 2, 2, 2}));
  EXPECT_EQ(d.count, 7u);
  EXPECT_DOUBLE_EQ(d.sum, 21.0);
  EXPECT_DOUBLE_EQ(d.min, 0.5);
  EXPECT_DOUBLE_EQ(d.max, 9.0);
}

TEST(DistributionTest, PercentileInterpolatesInsideExponentialBucket) {
  // tpu-info's method: value = lower * (1 + (rank_within / count_in_bucket) * (g - 1)).
  Distribution d =
      Distribution::WithBounds(Distribution::ExponentialBounds(1.0, 2.0, 4));  // 1,2,4,8
  d.Add(4.5, 10);                                                              // bucket [4, 8)
  d.Add(0.9, 0);                                                               // ignored
  d.Add(7.5, 0);
  d.min = 4.0;  // make the whole bucket span visible to interpolation
  d.max = 8.0;
  // p50: rank 5 of 10 inside [4, 8): 4 * (1 + 0.5 * 1) = 6.
  EXPECT_DOUBLE_EQ(*d.Percentile(0.5), 6.0);
  EXPECT_DOUBLE_EQ(*d.Percentile(0.9), 4.0 * (1 + 0.9));
}

TEST(DistributionTest, PercentileClampsToObservedRange) {
  Distribution d = Distribution::WithBounds({10, 100});
  d.Add(42);
  EXPECT_DOUBLE_EQ(*d.Percentile(0.0), 42.0);
  EXPECT_DOUBLE_EQ(*d.Percentile(0.999), 42.0);
}

TEST(DistributionTest, WholeSampleRankIsTpuInfosRule) {
  // 10 in [2, 4), 10 in [8, 16) (bucket [4, 8) empty); observed 2.5 .. 15.
  Distribution d = Distribution::WithBounds({1, 2, 4, 8, 16});
  d.Add(2.5, 10);
  d.Add(15, 10);
  d.rank = Distribution::Rank::kTpuInfo;
  // p50: rank 10 ends [2, 4) exactly, so it is the lower edge of the next non-empty bucket (8);
  // the continuous rule stays at the end of the first bucket (4, narrowed to nothing by min).
  EXPECT_DOUBLE_EQ(*d.Percentile(0.5), 8.0);
  // p999: rank floor(19.98) = 19 -> 9/10 into [8, 16) = 15.2 over the full edges (tpu-info does
  // not clamp to the observed maximum, so neither does this rule).
  EXPECT_DOUBLE_EQ(*d.Percentile(0.999), 15.2);
  // p90: rank 18 -> 8/10 into [8, 16) = 14.4.
  EXPECT_DOUBLE_EQ(*d.Percentile(0.9), 14.4);
  d.rank = Distribution::Rank::kWholeSamples;  // the same rank, clamped to the observed 15
  EXPECT_DOUBLE_EQ(*d.Percentile(0.999), 15.0);
  d.rank = Distribution::Rank::kContinuous;
  EXPECT_DOUBLE_EQ(*d.Percentile(0.5), 4.0);
}

TEST(DistributionTest, MergeRequiresSameBounds) {
  Distribution a = Distribution::WithBounds({1, 2});
  Distribution b = Distribution::WithBounds({1, 2});
  Distribution c = Distribution::WithBounds({1, 3});
  a.Add(0.5);
  b.Add(1.5);
  b.Add(2.5);
  ASSERT_TRUE(a.Merge(b));
  EXPECT_EQ(a.count, 3u);
  EXPECT_DOUBLE_EQ(a.min, 0.5);
  EXPECT_DOUBLE_EQ(a.max, 2.5);
  EXPECT_FALSE(a.Merge(c));
  EXPECT_EQ(a.count, 3u);
}

}  // namespace
}  // namespace xpuperf
