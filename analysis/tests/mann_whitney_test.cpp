// Expected values come from an independent Python implementation of the textbook definitions
// (U by counting pairs, the exact p-value by enumerating every assignment of ranks, the normal
// approximation with tie and continuity corrections), which is also what
// scipy.stats.mannwhitneyu(x, y, alternative="two-sided") computes.
#include "xpuperf/analysis/mann_whitney.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace xpuperf::analysis {
namespace {

MannWhitneyResult RunTest(const std::vector<double>& x, const std::vector<double>& y) {
  auto result = MannWhitneyU(x, y);
  EXPECT_TRUE(result.ok()) << result.error().ToString();
  return result.ok() ? *result : MannWhitneyResult{};
}

TEST(MannWhitneyTest, CompletelySeparatedFiveAgainstFive) {
  // Exact: only 1 of C(10, 5) = 252 orderings gives U = 25, two-sided p = 2 / 252.
  const MannWhitneyResult r = RunTest({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u1, 0);
  EXPECT_DOUBLE_EQ(r.u2, 25);
  EXPECT_NEAR(r.p_value, 2.0 / 252, 1e-12);
  EXPECT_NEAR(r.min_p_value, 2.0 / 252, 1e-12);
  // The direction does not change a two-sided test.
  EXPECT_NEAR(RunTest({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}).p_value, 2.0 / 252, 1e-12);
}

TEST(MannWhitneyTest, ThreeAgainstThreeCanNeverReachFivePercent) {
  // C(6, 3) = 20 orderings: the most extreme one has p = 2 / 20.
  const MannWhitneyResult r = RunTest({1.1, 2.2, 3.3}, {4.4, 5.5, 6.6});
  EXPECT_NEAR(r.p_value, 0.1, 1e-12);
  EXPECT_NEAR(r.min_p_value, 0.1, 1e-12);
}

TEST(MannWhitneyTest, ExactWithUnequalSizes) {
  // U1 = 17 pairs (19 > 11, 12, 17; 22 > all 4; 16 > 11, 12; 29 > 4; 24 > 4); P(U >= 17) = 7/126.
  MannWhitneyResult r = RunTest({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u1, 17);
  EXPECT_DOUBLE_EQ(r.u2, 3);
  EXPECT_NEAR(r.p_value, 0.1111111111111111, 1e-12);

  r = RunTest({2.1, 2.3, 2.2, 2.5, 2.4, 2.0, 2.6}, {2.45, 2.15, 2.35, 2.05, 2.55, 2.25, 2.65, 2.7});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u1, 21);
  EXPECT_NEAR(r.p_value, 0.4634032634032634, 1e-12);
}

TEST(MannWhitneyTest, TiesUseTheNormalApproximationWithTieCorrection) {
  // Ties (2, 2 / 5, 5 / 6, 6): mid-ranks, sum(t^3 - t) = 18, sigma^2 = 36/12 (13 - 18/132).
  const MannWhitneyResult r = RunTest({3, 4, 2, 6, 2, 5}, {9, 7, 5, 10, 6, 8});
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u1, 2);
  EXPECT_DOUBLE_EQ(r.u2, 34);
  EXPECT_NEAR(r.z, 2.4951071082707506, 1e-12);
  EXPECT_NEAR(r.p_value, 0.012591911490379715, 1e-12);
}

TEST(MannWhitneyTest, LargeSamplesUseTheNormalApproximation) {
  std::vector<double> x, y;
  for (int i = 1; i <= 10; ++i) {
    x.push_back(i);
    y.push_back(i + 3.5);
  }
  const MannWhitneyResult r = RunTest(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u1, 21);
  EXPECT_NEAR(r.z, 2.1543974961525953, 1e-12);
  EXPECT_NEAR(r.p_value, 0.031209012771740242, 1e-12);
}

TEST(MannWhitneyTest, ExactSurvivalMatchesCountedOrderings) {
  // P(U >= 10) for 4 against 5 values: 69 of C(9, 4) = 126 orderings.
  EXPECT_NEAR(MannWhitneyExactSurvival(10, 4, 5), 0.5476190476190477, 1e-12);
  EXPECT_NEAR(MannWhitneyExactSurvival(10, 5, 4), 0.5476190476190477, 1e-12);
  // 8 against 50 values, counted by the recursion f(n1, n2, u) = f(n1-1, n2, u-n2) + f(n1, n2-1,
  // u).
  EXPECT_NEAR(MannWhitneyExactSurvival(300, 8, 50), 0.011391180942657323, 1e-12);
  EXPECT_DOUBLE_EQ(MannWhitneyExactSurvival(0, 3, 3), 1);
  EXPECT_NEAR(MannWhitneyExactSurvival(9, 3, 3), 1.0 / 20, 1e-15);
}

TEST(MannWhitneyTest, IdenticalSamplesAreNoEvidence) {
  const MannWhitneyResult r = RunTest({1, 1, 1}, {1, 1, 1, 1});
  EXPECT_DOUBLE_EQ(r.p_value, 1);
  EXPECT_DOUBLE_EQ(r.u1, 6);
}

TEST(MannWhitneyTest, RejectsEmptyAndNonFiniteSamples) {
  const std::vector<double> empty;
  const std::vector<double> one = {1};
  const std::vector<double> nan = {std::numeric_limits<double>::quiet_NaN()};
  EXPECT_EQ(MannWhitneyU(empty, one).error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(MannWhitneyU(one, nan).error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace xpuperf::analysis
