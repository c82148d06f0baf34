// A whole recording: optionally start the job, sample every backend of the session at the rate
// until the job exits (or the attached pid exits, the duration ends, or a stop is asked), write the
// files, and summarise.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/core/session.h"
#include "xpuperf/record/bmc_power_source.h"
#include "xpuperf/record/summary.h"

namespace xpuperf::record {

struct RecordOptions {
  double rate_hz = 10;
  std::string out_dir;               // must exist
  std::string root = "/";            // procfs root for the process tree
  std::vector<std::string> command;  // the job; empty = attach or system-wide
  int attach_pid = 0;                // --pid
  double duration_s = 0;             // --duration; 0 = until the job/pid ends or a stop
  double flush_period_s = 0.5;       // timeline files are written at least this often
  double summary_period_s = 10;      // summary.json is refreshed this often while recording
  // A progress line on `log` this often (time so far, of --duration and what is left, samples
  // kept, the job's state); 0 = none. The command uses 10 s on a terminal, 60 s otherwise.
  double progress_period_s = 0;
  bool html = true;  // write report.html at the end
  // The BMC's power reading through ipmitool, in a thread of its own; nullopt: not read.
  std::optional<BmcPowerOptions> bmc = BmcPowerOptions{};
};

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json() noexcept has an unreachable throw
struct RecordOutcome {
  nlohmann::json summary;
  std::optional<JobExit> exit;  // the job's, when record started it
};

// Installs SIGINT/SIGTERM/SIGCHLD handlers for its duration (restored after). With a command,
// SIGINT/SIGTERM sent to xpuperf are forwarded to the job (signals from the terminal already reach
// it through the process group) and recording goes on until the job exits; otherwise they stop the
// recording. `log` gets progress lines. Not reentrant.
Result<RecordOutcome> Record(Session& session, const RecordOptions& options, std::ostream& log);

}  // namespace xpuperf::record
