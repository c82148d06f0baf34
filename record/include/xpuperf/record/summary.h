// The summary of a recording: energy, power, duty cycle, memory, temperature, clock events,
// errors, what could not be measured and why, and the findings; as JSON (summary.json) and as a
// table.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/record/accumulator.h"
#include "xpuperf/record/patterns.h"
#include "xpuperf/record/sampler.h"
#include "xpuperf/record/timeline.h"

namespace xpuperf::record {

struct JobExit {
  bool exited = false;  // normal exit: code
  int code = 0;
  bool signaled = false;  // killed by a signal
  int signal = 0;
};

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json() noexcept has an unreachable throw
struct SummaryInput {
  const SeriesTable* table = nullptr;
  const TimelineAccumulator* stats = nullptr;
  std::vector<std::string> command;  // the job (empty when attached or system-wide)
  int pid = 0;                       // the job's pid (0 = none)
  double rate_hz = 0;
  bool partial = true;  // false once the recording ended
  std::optional<JobExit> exit;
  std::vector<Unavailable> unavailable;
  std::map<std::string, uint64_t> capacity_bytes;  // device -> memory capacity
  int64_t peak_job_processes = 0;
  // The recorder's own cost: CPU time (user + system, all its threads, not the job's) over the
  // wall time it recorded; negative when not measured.
  int64_t polls = 0;  // sampling wake-ups (a tick where no source was due writes nothing)
  double recorder_cpu_seconds = -1;
  double recorder_wall_seconds = -1;
  // The BMC power source (summary.json "bmc": method, poll period, the BMC's own sampling period,
  // readings, failed calls, the last problem); null when it was not asked for.
  nlohmann::json bmc;
};

nlohmann::json BuildSummary(const SummaryInput& input);
// The table printed at exit (from the JSON, so both always agree).
std::string RenderSummaryText(const nlohmann::json& summary);

}  // namespace xpuperf::record
