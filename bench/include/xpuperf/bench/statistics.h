// Summary statistics of benchmark samples (seconds per repetition), as every benchmark reports
// them.
#pragma once

#include <vector>

namespace xpuperf::bench {

struct SampleStatistics {
  int count = 0;
  double min = 0;
  double median = 0;
  double mean = 0;
  double p90 = 0;
  double p99 = 0;
  double max = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 for a single sample
  double cv = 0;      // stddev / mean, a fraction (0.01 = 1%)
  // 1.4826 x median absolute deviation / median: the CV of normal samples, but a few outliers (a
  // preempted sample) do not inflate it. Adaptive sampling and the stability judgement use it.
  double robust_cv = 0;
};

// Percentiles interpolate linearly between closest ranks (numpy's default). An empty input yields
// count 0 and all zeros.
SampleStatistics ComputeStatistics(std::vector<double> values);

// The p-th percentile (0 <= p <= 100) of sorted values, linear interpolation between closest ranks.
double PercentileOfSorted(const std::vector<double>& sorted, double p);

}  // namespace xpuperf::bench
