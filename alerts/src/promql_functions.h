// Range-vector functions and histogram_quantile with Prometheus 2.42's arithmetic (promql/
// functions.go and quantile.go of that release), so the two engines agree to the last bit.
#pragma once

#include <span>
#include <vector>

#include "xpuperf/alerts/series.h"

namespace xpuperf::alerts::internal {

// rate/increase/delta over the points of [t - range, t]: the extrapolation of Prometheus 2.x
// (extrapolatedRate). Returns false when it has no value (fewer than two points).
bool ExtrapolatedRate(std::span<const Point> points, int64_t range_start_ms, int64_t range_end_ms,
                      bool is_counter, bool is_rate, double& out);

// avg/min/max/sum/count/last/present _over_time by name; false for an unknown name.
bool OverTime(std::string_view function, std::span<const Point> points, double& out);

// quantile(q) of `values` as Prometheus' quantile() does (linear between closest ranks).
double Quantile(double q, std::vector<double> values);

struct Bucket {
  double upper_bound = 0;
  double count = 0;
};
// Prometheus' bucketQuantile: sorts, merges equal bounds, forces monotonic counts.
double BucketQuantile(double q, std::vector<Bucket> buckets);

}  // namespace xpuperf::alerts::internal
