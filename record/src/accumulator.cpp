#include "xpuperf/record/accumulator.h"

#include <algorithm>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::record {
namespace {
constexpr double kNsPerSecond = 1e9;
}

TimelineAccumulator::TimelineAccumulator(size_t max_points_per_series)
    : max_points_(std::max<size_t>(max_points_per_series, 16)) {}

double TimelineAccumulator::duration_s() const {
  return ticks_ > 1 ? static_cast<double>(last_mono_ns_ - first_mono_ns_) / kNsPerSecond : 0;
}

void TimelineAccumulator::Add(const Tick& tick, const SeriesTable& table) {
  if (ticks_ == 0) {
    first_mono_ns_ = tick.mono_ns;
    first_wall_ns_ = tick.wall_ns;
  }
  ++ticks_;
  last_mono_ns_ = tick.mono_ns;
  last_wall_ns_ = tick.wall_ns;
  if (stats_.size() < table.size()) {
    for (size_t i = stats_.size(); i < table.size(); ++i) {
      keep_.push_back(!table[static_cast<uint32_t>(i)].labels.Has(labels::kCore));
    }
    stats_.resize(table.size());
    points_.resize(table.size());
  }
  const double t_s = static_cast<double>(tick.mono_ns - first_mono_ns_) / kNsPerSecond;
  for (const TickValue& v : tick.values) {
    SeriesStats& s = stats_[v.series];
    if (s.count == 0) {
      s.min = s.max = s.first = v.value;
      s.first_ns = tick.mono_ns;
    } else {
      const double held_s = static_cast<double>(tick.mono_ns - s.last_ns) / kNsPerSecond;
      s.held_integral += s.last * held_s;
      s.trailing_integral += v.value * held_s;
      s.held_seconds += held_s;
      if (v.value >= s.last) {
        s.increase += v.value - s.last;
      } else {
        s.increase += v.value;
        ++s.resets;
      }
    }
    s.min = std::min(s.min, v.value);
    s.max = std::max(s.max, v.value);
    s.sum += v.value;
    s.last = v.value;
    s.last_ns = tick.mono_ns;
    ++s.count;
    if (!keep_[v.series]) continue;
    Kept& kept = points_[v.series];
    if (kept.points.empty() || ++kept.since_kept >= kept.stride) {
      kept.points.push_back({t_s, v.value});
      kept.since_kept = 0;
    }
    if (kept.points.size() >= max_points_) {
      // Halve: keep the even-indexed points; from then on every 2*stride-th value.
      const bool last_dropped = kept.points.size() % 2 == 0;
      size_t out = 0;
      for (size_t i = 0; i < kept.points.size(); i += 2) kept.points[out++] = kept.points[i];
      kept.points.resize(out);
      kept.since_kept = last_dropped ? kept.stride : 0;
      kept.stride *= 2;
    }
  }
}

}  // namespace xpuperf::record
