#include "xpuperf/core/distribution.h"

#include <algorithm>
#include <cmath>

namespace xpuperf {

Distribution Distribution::WithBounds(std::vector<double> bounds) {
  Distribution d;
  d.counts.assign(bounds.size() + 1, 0);
  d.bounds = std::move(bounds);
  return d;
}

std::vector<double> Distribution::ExponentialBounds(double scale, double growth, int n) {
  std::vector<double> bounds;
  bounds.reserve(static_cast<size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i) bounds.push_back(scale * std::pow(growth, i));
  return bounds;
}

void Distribution::Add(double value, uint64_t times) {
  if (times == 0) return;
  if (counts.size() != bounds.size() + 1) counts.assign(bounds.size() + 1, 0);
  const size_t bucket =
      static_cast<size_t>(std::upper_bound(bounds.begin(), bounds.end(), value) - bounds.begin());
  counts[bucket] += times;
  if (count == 0) {
    min = max = value;
  } else {
    min = std::min(min, value);
    max = std::max(max, value);
  }
  count += times;
  sum += value * static_cast<double>(times);
}

bool Distribution::Merge(const Distribution& other) {
  if (other.bounds != bounds || other.counts.size() != counts.size()) return false;
  if (other.count == 0) return true;
  if (count == 0) {
    underflow_lower = other.underflow_lower;
    overflow_upper = other.overflow_upper;
  }
  for (size_t i = 0; i < counts.size(); ++i) counts[i] += other.counts[i];
  min = count == 0 ? other.min : std::min(min, other.min);
  max = count == 0 ? other.max : std::max(max, other.max);
  count += other.count;
  sum += other.sum;
  return true;
}

std::optional<double> Distribution::Percentile(double q) const {
  if (count == 0 || counts.empty()) return std::nullopt;
  q = std::clamp(q, 0.0, 1.0);
  const bool whole = rank != Rank::kContinuous;
  const double at =
      whole ? std::floor(q * static_cast<double>(count)) : q * static_cast<double>(count);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    const uint64_t next = cumulative + counts[i];
    // A whole rank that ends a bucket exactly belongs to the next non-empty one (its lower edge).
    const bool here = whole ? static_cast<double>(next) > at : static_cast<double>(next) >= at;
    if (here) {
      const double within = (at - static_cast<double>(cumulative)) / static_cast<double>(counts[i]);
      if (whole) {
        // The bucket's full edges, the open ones continued by the layout where it continues.
        const double lower =
            i > 0 ? bounds[i - 1] : (std::isnan(underflow_lower) ? min : underflow_lower);
        const double upper =
            i < bounds.size() ? bounds[i] : (std::isnan(overflow_upper) ? max : overflow_upper);
        const double value = lower + within * (std::max(upper, lower) - lower);
        return rank == Rank::kTpuInfo ? value : std::clamp(value, min, max);  // tpu-info: no clamp
      }
      // Bucket i spans [bounds[i-1], bounds[i]); the open ends take the observed min and max.
      const double lower = std::max(i == 0 ? min : bounds[i - 1], min);
      const double upper = std::max(std::min(i < bounds.size() ? bounds[i] : max, max), lower);
      return std::clamp(lower + within * (upper - lower), min, max);
    }
    cumulative = next;
  }
  return max;
}

}  // namespace xpuperf
