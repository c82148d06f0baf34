// Distributions (histograms) with percentiles, as the TPU runtime and tpu-info report them.
#pragma once

#include <cstdint>
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

  // How Percentile() ranks. kContinuous: rank q*count, interpolated between the bucket's edges
  // narrowed to [min, max]. kWholeSamples: rank floor(q*count), in the first bucket whose
  // cumulative count exceeds it, interpolated between the bucket's full edges and then clamped to
  // [min, max]: the rule tpu-info applies to the TPU runtime's histograms, so xpuperf prints the
  // same P50/P90/P95/P999 for them.
  enum class Rank { kContinuous, kWholeSamples };
  Rank rank = Rank::kContinuous;

  // Empty histogram with the given finite upper bounds (must be strictly increasing).
  static Distribution WithBounds(std::vector<double> bounds);
  // Bounds scale * growth^i for i in [0, n): the exponential buckets of the TPU runtime.
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
