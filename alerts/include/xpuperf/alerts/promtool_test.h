// Runs `promtool test rules` test files with the built-in engine (the format of Prometheus 2.42's
// cmd/promtool/unittest.go: rule_files, evaluation_interval, tests with input_series in the
// expanding notation `a+bxc`, `_`, `stale`, and alert_rule_test), and writes an engine's whole
// alert timeline back as such a test file, so promtool itself can check that both engines agree
// at every evaluation step.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::alerts {

// Values of one input series, one per interval; nullopt = `_` (no sample).
Result<std::vector<std::optional<double>>> ParseSeriesValues(std::string_view notation);

struct PromtoolTestReport {
  int tests = 0;
  std::vector<std::string> failures;  // one line each, empty when everything matched
  std::string timeline_yaml;          // the emitted test file when asked for
};

struct PromtoolTestOptions {
  bool emit_timeline = false;  // fill timeline_yaml
  // Rule files named in the emitted file (relative to where it is written); default: as read.
  std::vector<std::string> timeline_rule_files;
};

Result<PromtoolTestReport> RunPromtoolTestFile(const std::string& path,
                                               const PromtoolTestOptions& options = {});

}  // namespace xpuperf::alerts
