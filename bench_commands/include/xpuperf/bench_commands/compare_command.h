// `xpuperf compare OLD NEW`: two result directories measurement by measurement (medians, change
// in %, Mann-Whitney U test on the raw samples, min-max overlap), improved / regressed /
// unchanged (noise). What OLD and NEW are decides the comparison: result directories today;
// files (traces) get their own comparison in CompareInputs' dispatch.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "xpuperf/analysis/result_compare.h"

namespace xpuperf::bench_commands {

struct CompareOptions {
  std::string old_path;
  std::string new_path;
  // Exit 1 when a regression outside the noise is larger than this many percent.
  std::optional<double> fail_on_regression_percent;
  double alpha = 0.05;  // significance level of the Mann-Whitney test
  bool json = false;
};

enum class CompareInputs {
  kResultDirectories,  // both are directories
  kFiles,              // both are regular files (traces)
  kMixed,              // one of each
};

// Exit code 0 ok, 1 a regression over --fail-on-regression or malformed input, 2 usage error
// (missing path, OLD/NEW of the wrong kind, bad option value).
int RunCompare(const CompareOptions& options, std::ostream& out, std::ostream& err);

// The table, the measurements present on one side only and the summary line.
std::string RenderComparison(const analysis::ComparisonReport& report);

}  // namespace xpuperf::bench_commands
