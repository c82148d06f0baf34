#include "xpuperf/bench/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace xpuperf::bench {

double PercentileOfSorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lower = static_cast<size_t>(std::floor(rank));
  const size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = rank - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

SampleStatistics ComputeStatistics(std::vector<double> values) {
  SampleStatistics stats;
  if (values.empty()) return stats;
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  stats.count = static_cast<int>(values.size());
  stats.min = values.front();
  stats.max = values.back();
  stats.median = PercentileOfSorted(values, 50);
  stats.p90 = PercentileOfSorted(values, 90);
  stats.p99 = PercentileOfSorted(values, 99);
  stats.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  if (values.size() > 1) {
    double squares = 0;
    for (double v : values) squares += (v - stats.mean) * (v - stats.mean);
    stats.stddev = std::sqrt(squares / (n - 1));
  }
  stats.cv = stats.mean > 0 ? stats.stddev / stats.mean : 0;
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::abs(v - stats.median));
  std::sort(deviations.begin(), deviations.end());
  const double mad = PercentileOfSorted(deviations, 50);
  stats.robust_cv = stats.median > 0 ? 1.4826 * mad / stats.median : 0;
  return stats;
}

}  // namespace xpuperf::bench
