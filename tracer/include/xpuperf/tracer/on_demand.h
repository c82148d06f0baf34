// On-demand tracing through `xpuperf agent` (or dynolog): the process registers over Kineto's IPC
// fabric exactly as a PyTorch process started with KINETO_USE_DAEMON=1 does (a `req` poll with its
// pid, its ancestors and SLURM_JOB_ID), so `xpuperf capture` finds it and can trace it without a
// restart. A config from the agent (ACTIVITIES_LOG_FILE, PROFILE_START_TIME,
// ACTIVITIES_DURATION_MSECS) runs one tracer session: Start at the start time, Stop after the
// duration, the file named as Kineto names it (pid before ".json"). Iteration-mode configs are
// answered with a duration of ACTIVITIES_DURATION_MSECS when present, else ignored (our tracer has
// no notion of steps).
//
//   int main() { xpuperf::tracer::StartOnDemandFromEnvironment(); ... }   // XPUPERF_TRACER_AGENT=1
//
// Costs nothing unless started: scopes stay one relaxed load and a branch; the poll is one
// datagram each poll interval on a background thread.
//
// Thread-safety: Start/Stop functions may be called from any thread, serialised internally.
#pragma once

#include <cstdint>
#include <string>

#include "xpuperf/core/status.h"

namespace xpuperf::tracer {

struct OnDemandOptions {
  std::string agent_endpoint = "dynolog";  // the daemon's IPC name
  std::string socket_dir;                  // KINETO_IPC_SOCKET_DIR ("" = abstract names)
  int poll_interval_ms = 1000;
  int64_t job_id = 0;  // SLURM_JOB_ID
  std::string process_name = "xpuperf";
};

// Starts the poll thread when XPUPERF_TRACER_AGENT is set (any value). Reads
// XPUPERF_TRACER_POLL_MS, KINETO_IPC_SOCKET_DIR and SLURM_JOB_ID. False when not enabled, or when
// the poller could not start (the reason goes to stderr once).
bool StartOnDemandFromEnvironment();
// Starts polling with explicit options; kInvalidArgument when already polling.
Status StartOnDemand(const OnDemandOptions& options);
// Stops polling (a session it started is stopped and written).
void StopOnDemand();
// Sessions the poller has written so far.
uint64_t OnDemandSessions();

}  // namespace xpuperf::tracer
