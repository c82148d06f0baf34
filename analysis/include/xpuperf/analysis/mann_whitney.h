// The two-sided Mann-Whitney U test (Wilcoxon rank-sum test): do two samples come from the same
// distribution? Rank-based, so it needs no normality and is unchanged by any monotone transform of
// the data (sample times or the throughputs derived from them give the same p-value).
#pragma once

#include <span>

#include "xpuperf/core/status.h"

namespace xpuperf::analysis {

struct MannWhitneyResult {
  double u1 = 0;       // U of x: pairs (x_i, y_j) with x_i > y_j, ties counting 1/2
  double u2 = 0;       // U of y; u1 + u2 = n1 * n2
  double p_value = 1;  // two-sided
  bool exact = false;  // true: exact distribution of U; false: normal approximation
  double z = 0;        // normal approximation only: (max(u1, u2) - n1 n2 / 2 - 1/2) / sigma
  // The smallest two-sided p-value any data of these sizes could give (completely separated
  // samples without ties): a test of 3 against 3 samples never gets below 0.1.
  double min_p_value = 1;
};

// As scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method="auto"): exact when either
// sample has at most 8 values and there are no ties, else the normal approximation with the tie
// correction sigma^2 = n1 n2 / 12 ((n + 1) - sum(t^3 - t) / (n (n - 1))) and a continuity
// correction of 1/2. All values equal: p = 1. kInvalidArgument when a sample is empty or holds a
// value that is not finite.
Result<MannWhitneyResult> MannWhitneyU(std::span<const double> x, std::span<const double> y);

// P(U >= u) under the null hypothesis for samples of n1 and n2 values without ties (u may be
// fractional; it is rounded up). Exact counts from the Gaussian binomial coefficient.
double MannWhitneyExactSurvival(double u, int n1, int n2);

}  // namespace xpuperf::analysis
