// `xpuperf bench check RESULTS_DIR --spec FILE|auto`: the run's best figures against a spec sheet,
// one row per component, exit 1 when a threshold is missed.
#pragma once

#include <iosfwd>
#include <string>

#include "xpuperf/analysis/spec_check.h"
#include "xpuperf/bench/result_reader.h"
#include "xpuperf/core/status.h"
#include "xpuperf/spec/spec_sheet.h"

namespace xpuperf::analysis {

struct BenchCheckOptions {
  std::string results;         // result directory of `xpuperf bench run`
  std::string spec = "auto";   // a spec sheet .yaml, or auto: the shipped sheet of the run's device
                               // model, or the sheet computed for this machine's CPU
  CheckThresholds thresholds;  // percent per component
  bool json = false;
  // Also write the check as JSON (the --json document plus checked_at_unix_seconds) here, for
  // `serve --bench-check`; written atomically, also when the check fails.
  std::string export_path;
  std::string root = "/";  // where this machine's CPU is read for the computed sheet (tests)
};

// Exit code 0 when every measured component with a spec reaches its threshold, 1 when one misses
// it or an input is malformed, 2 for a usage error (missing directory, unknown sheet).
int RunBenchCheck(const BenchCheckOptions& options, std::ostream& out, std::ostream& err);

// The sheet `spec` names for `run`: a file, or with "auto" the shipped sheet whose device or alias
// is the run's device model, else for a CPU run the sheet computed for this machine (root), which
// must be the run's CPU. kNotFound naming the shipped sheets when none matches.
Result<spec::SpecSheet> ResolveSpecSheet(const bench::ResultDirectory& run, const std::string& spec,
                                         const std::string& root);

// The table and the sources of its figures, as printed by `bench check`.
std::string RenderCheckReport(const CheckReport& report, const std::string& results);

}  // namespace xpuperf::analysis
