// Distributions (histograms) with percentiles, as the TPU runtime and tpu-info report them.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace xpuperf {

// A histogram with explicit finite upper bounds. counts has bounds.size() + 1 entries: bucket i
// holds values in [bounds[i-1], bounds[i]) (bucket 0 starts at -inf, the last one is the overflow
// bucket). Values are in the unit of the metric that carries the distribution (seconds for
// latencies).
struct Distribution {
  uint64_t count = 0;
  double sum = 0;
  double min = 0;  // meaningful only when count > 0
  double max = 0;
  std::vector<double> bounds;
  std::vector<uint64_t> counts;

  // How Percentile() ranks.
  //  - kContinuous: rank q*count, interpolated between the bucket's edges narrowed to [min, max],
  //    clamped to [min, max].
  //  - kWholeSamples: rank floor(q*count), in the first bucket whose cumulative count exceeds it,
  //    interpolated between the bucket's full edges, clamped to [min, max].
  //  - kTpuInfo: kWholeSamples without the clamp, the open buckets' edges from underflow_lower /
  //    overflow_upper: tpu-info's rule for the TPU runtime's exponential histograms, so xpuperf
  //    prints the same P50/P90/P95/P999 (tpu_vendor_percentiles). One deliberate difference: a
  //    percentile in the underflow bucket, where tpu-info prints its fallback 1 whatever the
  //    data, is interpolated here.
  enum class Rank { kContinuous, kWholeSamples, kTpuInfo };
  Rank rank = Rank::kContinuous;
  // The outer edges of the open buckets where the layout continues (exponential: bounds[0] /
  // growth and bounds.back() * growth). NaN: the observed min and max.
  double underflow_lower = std::numeric_limits<double>::quiet_NaN();
  double overflow_upper = std::numeric_limits<double>::quiet_NaN();

  // Empty histogram with the given finite upper bounds (must be strictly increasing).
  static Distribution WithBounds(std::vector<double> bounds);
  // Bounds scale * growth^i for i in [0, n) (std::pow, as tpu-info computes them): the exponential
  // buckets of the TPU runtime.
  static std::vector<double> ExponentialBounds(double scale, double growth, int n);

  void Add(double value, uint64_t times = 1);
  // Adds another distribution with identical bounds; returns false (and changes nothing) otherwise.
  bool Merge(const Distribution& other);

  double Mean() const { return count == 0 ? 0 : sum / static_cast<double>(count); }
  // q in [0, 1]. Walks buckets to the one where the cumulative count passes the rank (see Rank)
  // and interpolates linearly inside it; the result is clamped to [min, max]. nullopt when
  // count == 0 (no data).
  std::optional<double> Percentile(double q) const;
};

}  // namespace xpuperf
