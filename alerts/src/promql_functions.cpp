#include "promql_functions.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace xpuperf::alerts::internal {

bool ExtrapolatedRate(std::span<const Point> points, int64_t range_start_ms, int64_t range_end_ms,
                      bool is_counter, bool is_rate, double& out) {
  if (points.size() < 2) return false;
  double result = points.back().value - points.front().value;
  if (is_counter) {
    double last = 0;
    for (const Point& p : points) {
      if (p.value < last) result += last;  // a counter reset: the counter restarted from 0
      last = p.value;
    }
  }
  double to_start = static_cast<double>(points.front().t_ms - range_start_ms) / 1000;
  const double to_end = static_cast<double>(range_end_ms - points.back().t_ms) / 1000;
  const double sampled = static_cast<double>(points.back().t_ms - points.front().t_ms) / 1000;
  const double average_step = sampled / static_cast<double>(points.size() - 1);
  if (is_counter && result > 0 && points.front().value >= 0) {
    // A counter cannot go below zero: do not extrapolate past where it would reach it.
    const double to_zero = sampled * (points.front().value / result);
    if (to_zero < to_start) to_start = to_zero;
  }
  const double threshold = average_step * 1.1;
  double interval = sampled;
  interval += to_start < threshold ? to_start : average_step / 2;
  interval += to_end < threshold ? to_end : average_step / 2;
  result = result * (interval / sampled);
  if (is_rate) result = result / (static_cast<double>(range_end_ms - range_start_ms) / 1000);
  out = result;
  return true;
}

bool OverTime(std::string_view function, std::span<const Point> points, double& out) {
  if (points.empty()) return false;
  if (function == "avg_over_time") {
    double mean = 0, count = 0;
    for (const Point& p : points) {
      count++;
      if (std::isinf(mean)) {
        if (std::isinf(p.value) && (mean > 0) == (p.value > 0)) continue;
        if (!std::isinf(p.value) && !std::isnan(p.value)) continue;
      }
      mean += p.value / count - mean / count;
    }
    out = mean;
  } else if (function == "min_over_time") {
    double min = points.front().value;
    for (const Point& p : points) {
      if (p.value < min || std::isnan(min)) min = p.value;
    }
    out = min;
  } else if (function == "max_over_time") {
    double max = points.front().value;
    for (const Point& p : points) {
      if (p.value > max || std::isnan(max)) max = p.value;
    }
    out = max;
  } else if (function == "sum_over_time") {
    double sum = 0;
    for (const Point& p : points) sum += p.value;
    out = sum;
  } else if (function == "count_over_time") {
    out = static_cast<double>(points.size());
  } else if (function == "last_over_time") {
    out = points.back().value;
  } else if (function == "present_over_time") {
    out = 1;
  } else {
    return false;
  }
  return true;
}

double Quantile(double q, std::vector<double> values) {
  if (values.empty() || std::isnan(q)) return std::numeric_limits<double>::quiet_NaN();
  if (q < 0) return -std::numeric_limits<double>::infinity();
  if (q > 1) return std::numeric_limits<double>::infinity();
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  const double rank = q * (n - 1);
  const double lower = std::max(0.0, std::floor(rank));
  const double upper = std::min(n - 1, lower + 1);
  const double weight = rank - std::floor(rank);
  return values[static_cast<size_t>(lower)] * (1 - weight) +
         values[static_cast<size_t>(upper)] * weight;
}

double BucketQuantile(double q, std::vector<Bucket> buckets) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(q)) return nan;
  if (q < 0) return -std::numeric_limits<double>::infinity();
  if (q > 1) return std::numeric_limits<double>::infinity();
  std::sort(buckets.begin(), buckets.end(),
            [](const Bucket& a, const Bucket& b) { return a.upper_bound < b.upper_bound; });
  if (buckets.empty() || !std::isinf(buckets.back().upper_bound) ||
      buckets.back().upper_bound < 0) {
    return nan;
  }
  // Buckets with the same bound (from series that differ only in the `le` spelling) add up.
  std::vector<Bucket> merged;
  for (const Bucket& b : buckets) {
    if (!merged.empty() && merged.back().upper_bound == b.upper_bound) {
      merged.back().count += b.count;
    } else {
      merged.push_back(b);
    }
  }
  buckets = std::move(merged);
  // Counts must not decrease with the bound (scrapes of buckets are not atomic).
  double max = std::nan("");
  for (Bucket& b : buckets) {
    if (std::isnan(max) || b.count > max) {
      max = b.count;
    } else if (b.count < max) {
      b.count = max;
    }
  }
  if (buckets.size() < 2) return nan;
  const double observations = buckets.back().count;
  if (observations == 0) return nan;
  double rank = q * observations;
  size_t b = 0;
  while (b < buckets.size() - 1 && buckets[b].count < rank) ++b;
  if (b == buckets.size() - 1) return buckets[buckets.size() - 2].upper_bound;
  if (b == 0 && buckets[0].upper_bound <= 0) return buckets[0].upper_bound;
  double bucket_start = 0;
  const double bucket_end = buckets[b].upper_bound;
  double count = buckets[b].count;
  if (b > 0) {
    bucket_start = buckets[b - 1].upper_bound;
    count -= buckets[b - 1].count;
    rank -= buckets[b - 1].count;
  }
  return bucket_start + (bucket_end - bucket_start) * (rank / count);
}

}  // namespace xpuperf::alerts::internal
