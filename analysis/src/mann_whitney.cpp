#include "xpuperf/analysis/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace xpuperf::analysis {
namespace {

// scipy's rule: the exact distribution unless both samples are large or there are ties.
constexpr int kExactMaxSize = 8;

double NormalSurvival(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// Coefficients c[u] = number of orderings of n1 + n2 distinct values that give U = u: the Gaussian
// binomial coefficient [n1 + n2 choose m]_q with m = min(n1, n2), built as the product over
// i = 1..m of (1 - q^(M + i)) / (1 - q^i), M = max(n1, n2). Every partial product is itself a
// Gaussian binomial, so each step stays a polynomial with non-negative integer coefficients.
std::vector<double> ExactCounts(int n1, int n2) {
  const int m = std::min(n1, n2);
  const int big = std::max(n1, n2);
  std::vector<double> poly(static_cast<size_t>(m) * big + 1, 0.0);
  poly[0] = 1;
  for (int i = 1; i <= m; ++i) {
    const size_t shift = static_cast<size_t>(big) + static_cast<size_t>(i);
    for (size_t k = poly.size(); k-- > shift;) poly[k] -= poly[k - shift];  // x (1 - q^(M+i))
    for (size_t k = static_cast<size_t>(i); k < poly.size(); ++k) {
      poly[k] += poly[k - i];  // / (1 - q^i)
    }
  }
  return poly;
}

double AsymptoticTwoSided(double u_max, int n1, int n2, double tie_term) {
  const double n = n1 + n2;
  const double mu = n1 * static_cast<double>(n2) / 2;
  const double variance = n1 * static_cast<double>(n2) / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (!(variance > 0)) return 1;
  const double z = (u_max - mu - 0.5) / std::sqrt(variance);
  return std::min(1.0, 2 * NormalSurvival(z));
}

}  // namespace

double MannWhitneyExactSurvival(double u, int n1, int n2) {
  if (n1 < 1 || n2 < 1) return 1;
  const std::vector<double> counts = ExactCounts(n1, n2);
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const double start = std::ceil(u - 1e-9);
  if (start <= 0) return 1;
  double tail = 0;
  for (size_t k = static_cast<size_t>(start); k < counts.size(); ++k) tail += counts[k];
  return tail / total;
}

Result<MannWhitneyResult> MannWhitneyU(std::span<const double> x, std::span<const double> y) {
  if (x.empty() || y.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "Mann-Whitney U test of an empty sample");
  }
  struct Value {
    double value;
    bool first;
  };
  std::vector<Value> all;
  for (double v : x) all.push_back({v, true});
  for (double v : y) all.push_back({v, false});
  for (const Value& v : all) {
    if (!std::isfinite(v.value)) {
      return MakeError(ErrorCode::kInvalidArgument, "Mann-Whitney U test of a non-finite value");
    }
  }
  std::sort(all.begin(), all.end(),
            [](const Value& a, const Value& b) { return a.value < b.value; });
  // Mid-ranks for ties; sum of t^3 - t over tie groups for the variance correction.
  double rank_sum_x = 0;
  double tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].value == all[i].value) ++j;
    const double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k) {
      if (all[k].first) rank_sum_x += mid_rank;
    }
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const int n1 = static_cast<int>(x.size());
  const int n2 = static_cast<int>(y.size());
  MannWhitneyResult result;
  result.u1 = rank_sum_x - n1 * (n1 + 1.0) / 2;
  result.u2 = static_cast<double>(n1) * n2 - result.u1;
  const double u_max = std::max(result.u1, result.u2);
  const bool small = n1 <= kExactMaxSize || n2 <= kExactMaxSize;
  const bool exact_possible = small;
  if (exact_possible) {
    result.min_p_value = std::min(1.0, 2 * MannWhitneyExactSurvival(n1 * double(n2), n1, n2));
  } else {
    result.min_p_value = AsymptoticTwoSided(n1 * double(n2), n1, n2, 0);
  }
  if (small && tie_term == 0) {
    result.exact = true;
    result.p_value = std::min(1.0, 2 * MannWhitneyExactSurvival(u_max, n1, n2));
    return result;
  }
  const double n = n1 + n2;
  const double variance = n1 * static_cast<double>(n2) / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance > 0) {
    result.z = (u_max - n1 * static_cast<double>(n2) / 2 - 0.5) / std::sqrt(variance);
  }
  result.p_value = AsymptoticTwoSided(u_max, n1, n2, tie_term);
  return result;
}

}  // namespace xpuperf::analysis
