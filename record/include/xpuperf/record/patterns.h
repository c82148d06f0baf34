// Patterns in a job's timeline, as findings with evidence and advice (the style of the trace
// findings): idle phases, power-capped and thermally throttled phases, memory growth, near-OOM,
// a low-utilisation steady state, and the step period of the duty-cycle signal.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/record/accumulator.h"
#include "xpuperf/record/timeline.h"

namespace xpuperf::record {

struct Finding {
  std::string rule;      // "idle_phases", "memory_growth", ...
  std::string title;     // one line
  std::string severity;  // "info", "warning", "critical"
  std::string device;
  double value = 0;      // the measured quantity the rule compares
  double threshold = 0;  // the rule's threshold for it
  std::string unit;      // of value and threshold
  double start_s = -1;   // where the pattern starts, seconds since the first tick (-1: n/a)
  double end_s = -1;
  std::string evidence;
  std::string advice;
};

struct Phase {
  double start_s = 0;
  double end_s = 0;
  double mean = 0;  // of the signal inside the phase
};

// Runs of points below `threshold` (inclusive of their last sample's hold time) lasting at least
// `min_seconds`.
std::vector<Phase> PhasesBelow(const std::vector<Point>& points, double threshold,
                               double min_seconds);
// Runs where a boolean series is 1.
std::vector<Phase> ActivePhases(const std::vector<Point>& points);

struct MemoryGrowth {
  double slope_bytes_per_s = 0;
  double start_s = 0;  // where the monotone growth starts
  double growth_bytes = 0;
  double r2 = 0;            // of the least-squares line from start_s to the end
  double rising_share = 0;  // share of steps (between bucket means) that go up
};
// A leak-like monotone slope: over the latest stretch covering ≥ 30% of the recording (and ≥ 5
// buckets of 1/50 of it), a least-squares line with R² ≥ 0.8, ≥ 70% of steps rising and net growth
// ≥ max(min_growth_bytes, 5% of the starting value). Of the starts that qualify, the one where a
// flat-then-line fit of the whole signal has the least squared error is reported.
std::optional<MemoryGrowth> FitMemoryGrowth(const std::vector<Point>& points,
                                            double min_growth_bytes);

struct StepPeriod {
  double period_s = 0;
  double autocorrelation = 0;
  int periods = 0;  // full periods inside the signal
};
// The strongest repeating period of a signal sampled at (about) regular intervals: the smallest lag
// whose autocorrelation is a local maximum, ≥ 0.3 and within 90% of the best one, with at least 3
// periods in the signal and 2 samples per period.
std::optional<StepPeriod> FindStepPeriod(const std::vector<Point>& points);

struct PatternContext {
  const SeriesTable* table = nullptr;
  const TimelineAccumulator* stats = nullptr;
  std::map<std::string, uint64_t> capacity_bytes;  // device -> memory capacity
};
std::vector<Finding> DetectPatterns(const PatternContext& context);

}  // namespace xpuperf::record
