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
  double bound = scale;
  for (int i = 0; i < n; ++i) {
    bounds.push_back(bound);
    bound *= growth;
  }
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
  const bool whole = rank == Rank::kWholeSamples;
  const double at =
      whole ? std::floor(q * static_cast<double>(count)) : q * static_cast<double>(count);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    const uint64_t next = cumulative + counts[i];
    // A whole rank that ends a bucket exactly belongs to the next non-empty one (its lower edge).
    const bool here = whole ? static_cast<double>(next) > at : static_cast<double>(next) >= at;
    if (here) {
      // Bucket i spans [bounds[i-1], bounds[i]); the open ends take the observed min and max.
      double lower = i == 0 ? min : bounds[i - 1];
      double upper = i < bounds.size() ? bounds[i] : max;
      if (!whole) {
        lower = std::max(lower, min);
        upper = std::min(upper, max);
      }
      if (upper < lower) upper = lower;
      const double within = (at - static_cast<double>(cumulative)) / static_cast<double>(counts[i]);
      return std::clamp(lower + within * (upper - lower), min, max);
    }
    cumulative = next;
  }
  return max;
}

}  // namespace xpuperf
