// Did my change help? Two result directories, measurement by measurement: medians, change in %,
// and whether the change is outside the noise of the samples.
//
// Measurements match on (benchmark, metric, parameters); those left unmatched on both sides then
// match ignoring parameters with fractional values (figures measured during the run, such as
// attention's fp32_gemm_gflops, rather than sweep settings). For each pair: the change of the
// median value in %, a two-sided Mann-Whitney U test on the raw sample times (alpha 0.05 by
// default), and whether the min-max ranges of the samples overlap. The change is outside the noise
// when the test rejects; when the sample counts are too small for the test ever to reach alpha (3
// against 3 samples), when the min-max ranges do not overlap instead, and the basis says so. In
// both cases the change must also exceed twice the larger robust CV of the two sides' samples
// (their own spread): a shift smaller than the samples' scatter is noise however many samples
// there are. A pair where either side is marked unstable is never improved or regressed: it is
// "unstable", with the reasons.
// Improved or regressed follows the unit: throughputs (".../s") are better higher, times ("s",
// "ms", "us", "ns") and metrics named *latency* lower.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/analysis/mann_whitney.h"
#include "xpuperf/bench/result_reader.h"

namespace xpuperf::analysis {

enum class ChangeVerdict {
  kImproved,
  kRegressed,
  kUnchanged,  // within the noise
  kChanged,    // outside the noise, but the unit does not say which direction is better
  kNoSamples,  // a side has no raw samples: nothing to test
  kUnstable,   // a side is marked unstable (busy machine, spread, inconsistent): not judged
};

std::string_view ChangeVerdictName(ChangeVerdict verdict);  // "improved", "unchanged (noise)", ...

// +1: higher is better (throughputs), -1: lower is better (times, latencies), 0: unknown.
int BetterDirection(std::string_view unit, std::string_view metric);

struct MetricComparison {  // NOLINT(bugprone-exception-escape): thrown in nlohmann::json's dtor
  std::string benchmark;
  std::string metric;
  nlohmann::json parameters;
  std::string unit;
  double old_value = 0;  // the record's value (from its median sample), in unit
  double new_value = 0;
  std::optional<double> change_percent;   // 100 (new - old) / old; nullopt when old is 0
  std::optional<MannWhitneyResult> test;  // on the raw sample times
  bool ranges_overlap = true;             // [min, max] of the old and new samples intersect
  bool outside_noise = false;
  std::string basis;  // "mann-whitney p=0.0079", "min-max ranges (3 vs 3 samples: the test cannot
                      // reach alpha)", "no samples"
  ChangeVerdict verdict = ChangeVerdict::kUnchanged;
  std::vector<std::string> unstable_reasons;  // "old: ...", "new: ..." for kUnstable
};

// A measurement present in one run only.
struct UnmatchedMeasurement {
  std::string benchmark;
  std::string metric;
  nlohmann::json parameters;
  std::string unit;
  double value = 0;
};

struct ComparisonReport {
  std::string old_path;
  std::string new_path;
  std::string old_device;
  std::string new_device;
  double alpha = 0.05;
  std::vector<MetricComparison> compared;  // in the new run's record order
  std::vector<UnmatchedMeasurement> only_old;
  std::vector<UnmatchedMeasurement> only_new;

  int Count(ChangeVerdict verdict) const;
  // Regressions outside the noise whose median change is larger than `percent` (in magnitude).
  std::vector<const MetricComparison*> RegressionsOver(double percent) const;
};

// The match key: "benchmark|metric|<parameters as compact JSON, keys sorted>". A key seen twice
// in one run gets "#2", "#3"... appended, so repeated points still pair in order.
std::string MeasurementKey(const bench::Measurement& measurement);

ComparisonReport CompareResults(const bench::ResultDirectory& old_run,
                                const bench::ResultDirectory& new_run, double alpha = 0.05);

nlohmann::json ToJson(const ComparisonReport& report);

}  // namespace xpuperf::analysis
