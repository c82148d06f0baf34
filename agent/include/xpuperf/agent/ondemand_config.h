// Kineto's on-demand config text (one KEY=VALUE per line), as `dyno gputrace` builds it and as
// the agent hands it to processes. The agent only forwards keys Kineto documents for on-demand
// traces, and always rewrites ACTIVITIES_LOG_FILE into its capture directory, so a request can
// never make a process write elsewhere.
//
// Thread-safety: all functions are reentrant.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "xpuperf/core/kineto_ipc.h"
#include "xpuperf/core/status.h"

namespace xpuperf::agent {

// One capture's settings, the way xpuperf's capture asks for it.
struct CaptureRequest {
  std::string log_file;       // absolute path inside a capture folder
  int64_t start_time_ms = 0;  // epoch ms of the synchronised start (duration mode); 0 = now
  int64_t duration_ms = 500;  // duration mode when iterations <= 0
  int64_t iterations = 0;     // > 0: iteration mode
  int64_t iteration_roundup = 1;
};

// `dyno gputrace`'s text for `request` (same keys and order).
std::string BuildOnDemandConfig(const CaptureRequest& request);

// Parses a client's config: kInvalidArgument naming the line for a line without exactly one '=',
// an unknown key, a negative or non-numeric integer, or a value with control characters.
Result<std::map<std::string, std::string>> ParseOnDemandConfig(std::string_view text);

// The config with ACTIVITIES_LOG_FILE replaced by <folder>/<basename of the requested file>
// (default libkineto_activities.json); `log_file` receives the new path.
Result<std::string> ConfineOnDemandConfig(std::string_view text, const std::string& folder,
                                          std::string& log_file);

// The file a process writes for ACTIVITIES_LOG_FILE (Kineto's naming rule).
using kineto::KinetoOutputPath;

}  // namespace xpuperf::agent
