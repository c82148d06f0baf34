// `xpuperf record`: a job's energy, power, memory and utilisation over time.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/telemetry/commands.h"

namespace xpuperf::record {

struct RecordCommandOptions {
  telemetry::CommonOptions common;
  double rate_hz = 10;
  std::string out;                   // output directory; empty = xpuperf-record-<time>
  std::vector<std::string> command;  // the job (after --)
  std::optional<int64_t> pid;        // attach to this process instead
  std::optional<double> duration_s;  // stop after this long (attach or system-wide)
  bool json = false;                 // the summary as JSON on out (the table goes to err always)
  bool html = true;
  bool ipmi = true;          // the BMC's power reading through ipmitool
  double ipmi_period_s = 1;  // between two ipmitool calls (at least 1 s)
  // --progress S: a progress line on err every S seconds (0 = none); unset = 10 s when err is a
  // terminal, 60 s otherwise.
  std::optional<double> progress_s;
};

// Exit code: the job's (128 + signal when a signal killed it; 127/126 when it could not be
// started), 0 when attached or system-wide, 1 on failure, 2 on a usage error.
int RunRecord(const RecordCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace xpuperf::record
