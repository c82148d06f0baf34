// The agent's registry of live profiled processes, as dynolog's LibkinetoConfigManager keeps it:
// keyed by job id, each process known by its leaf pid and its ancestors; a process is registered
// by its first poll (`req`), refreshed by every later one and dropped after `silence_limit` without
// a poll. An on-demand request matches a process when any of its pids is in the request's pid set
// (or the set is empty / {0}); up to `limit` matched processes without a pending config get one,
// the others count as busy; the pending config is handed out (and cleared) on the process's next
// poll.
//
// Thread-safety: every member is safe to call from any thread (one mutex).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace xpuperf::agent {

using AgentClock = std::chrono::steady_clock;

struct ProcessRecord {
  int32_t pid = 0;  // leaf pid, as the process sees it
  int64_t job_id = 0;
  std::vector<int32_t> pids;  // leaf first, then ancestors
  std::string endpoint;       // the process's IPC endpoint name (replies go there)
  AgentClock::time_point first_seen;
  AgentClock::time_point last_seen;
  uint64_t polls = 0;
  std::string pending_config;  // handed out on the next poll
  bool profiler_busy = false;  // its last poll said the activity profiler is running
};

struct TriggerResult {
  std::vector<int32_t> matched;    // processesMatched
  std::vector<int32_t> triggered;  // activityProfilersTriggered
  int busy = 0;                    // activityProfilersBusy
};

// Job ids in requests: an exact id, or any job (xpuperf's own requests without --job-id).
inline constexpr int64_t kAnyJob = -1;

// Registered processes at most: a local client cannot grow the agent (or a listing) without
// bound. At the cap, silent processes are dropped first; then a new process is refused (counted).
inline constexpr size_t kMaxRegisteredProcesses = 4096;

class ProcessRegistry {
 public:
  explicit ProcessRegistry(std::chrono::milliseconds silence_limit = std::chrono::seconds(60))
      : silence_limit_(silence_limit) {}

  // Records a poll from `endpoint` and returns the config pending for that process ("" = none),
  // clearing it. `profiler_busy` is the poll's view of its own profiler.
  std::string Poll(int64_t job_id, const std::vector<int32_t>& pids, const std::string& endpoint,
                   bool profiler_busy, AgentClock::time_point now);
  // Hands `config` to matching processes. `config_for(pid)` turns it into the text for one
  // process (the agent appends a trace id).
  TriggerResult Trigger(int64_t job_id, const std::set<int32_t>& pids, int limit,
                        const std::function<std::string(int32_t)>& config_for);
  // Drops processes silent longer than the limit; returns how many.
  size_t DropSilent(AgentClock::time_point now);
  std::vector<ProcessRecord> Live() const;  // by job, then pid
  // Processes registered for a job (the `ctxt` reply of older Kineto).
  int CountForJob(int64_t job_id) const;
  // New processes refused at kMaxRegisteredProcesses.
  uint64_t refused() const;

 private:
  const std::chrono::milliseconds silence_limit_;
  mutable std::mutex mutex_;
  std::map<std::pair<int64_t, int32_t>, ProcessRecord> processes_;  // (job, leaf pid)
  uint64_t refused_ = 0;
};

}  // namespace xpuperf::agent
