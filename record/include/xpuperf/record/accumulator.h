// Streaming statistics of every series of a timeline, and the points kept for patterns and plots.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "xpuperf/record/timeline.h"

namespace xpuperf::record {

struct Point {
  double t_s = 0;  // seconds since the first tick
  double value = 0;
};

struct SeriesStats {
  int64_t count = 0;
  double min = 0, max = 0, sum = 0;
  double first = 0, last = 0;
  int64_t first_ns = 0, last_ns = 0;  // monotonic
  // Counters: Σ of the increases between consecutive samples; a decrease means the counter
  // restarted (driver reload, backend reopened) and the new value counts from zero.
  double increase = 0;
  int64_t resets = 0;
  // Σ value × time held (sample-and-hold: a value holds until the next tick of its series), in
  // value·seconds; for boolean series this is the time active.
  double held_integral = 0;
  double held_seconds = 0;
  // Σ value × the interval it ended (each reading counted over the interval before it): the
  // integral of readings that are averages over the time since the previous one (RAPL-derived
  // power, NVML's averaged power), which the energy-counter check compares with (energy_check.h).
  double trailing_integral = 0;
};

class TimelineAccumulator {
 public:
  // Points kept per series at most; past it, every other point is dropped (the kept points stay
  // real samples, at half the rate).
  explicit TimelineAccumulator(size_t max_points_per_series = 50000);

  void Add(const Tick& tick, const SeriesTable& table);

  const SeriesStats& stats(uint32_t series) const { return stats_[series]; }
  // Kept points of a series (empty for per-core series, which only get statistics).
  const std::vector<Point>& points(uint32_t series) const { return points_[series].points; }
  size_t series_count() const { return stats_.size(); }
  int64_t ticks() const { return ticks_; }
  int64_t first_wall_ns() const { return first_wall_ns_; }
  int64_t last_wall_ns() const { return last_wall_ns_; }
  double duration_s() const;

 private:
  struct Kept {
    std::vector<Point> points;
    int64_t stride = 1;      // keep every stride-th sample
    int64_t since_kept = 0;  // samples since the last kept one
  };
  size_t max_points_;
  std::vector<SeriesStats> stats_;
  std::vector<Kept> points_;
  std::vector<bool> keep_;  // per series
  int64_t ticks_ = 0;
  int64_t first_mono_ns_ = 0, last_mono_ns_ = 0;
  int64_t first_wall_ns_ = 0, last_wall_ns_ = 0;
};

}  // namespace xpuperf::record
