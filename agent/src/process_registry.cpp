#include "xpuperf/agent/process_registry.h"

#include <algorithm>
#include <utility>

namespace xpuperf::agent {

std::string ProcessRegistry::Poll(int64_t job_id, const std::vector<int32_t>& pids,
                                  const std::string& endpoint, bool profiler_busy,
                                  AgentClock::time_point now) {
  if (pids.empty()) return "";
  std::lock_guard lock(mutex_);
  const std::pair<int64_t, int32_t> key{job_id, pids.front()};
  if (processes_.size() >= kMaxRegisteredProcesses && !processes_.contains(key)) {
    std::erase_if(processes_,
                  [&](const auto& entry) { return now - entry.second.last_seen > silence_limit_; });
    if (processes_.size() >= kMaxRegisteredProcesses) {
      ++refused_;
      return "";
    }
  }
  auto [it, inserted] = processes_.try_emplace(key);
  ProcessRecord& record = it->second;
  if (inserted) {
    record.pid = pids.front();
    record.job_id = job_id;
    record.first_seen = now;
  }
  record.pids = pids;
  record.endpoint = endpoint;
  record.last_seen = now;
  record.profiler_busy = profiler_busy;
  ++record.polls;
  return std::exchange(record.pending_config, std::string());
}

TriggerResult ProcessRegistry::Trigger(int64_t job_id, const std::set<int32_t>& pids, int limit,
                                       const std::function<std::string(int32_t)>& config_for) {
  const bool every_pid = pids.empty() || (pids.size() == 1 && *pids.begin() == 0);
  TriggerResult result;
  std::lock_guard lock(mutex_);
  for (auto& [key, record] : processes_) {
    if (job_id != kAnyJob && key.first != job_id) continue;
    const bool match = every_pid || std::any_of(record.pids.begin(), record.pids.end(),
                                                [&](int32_t pid) { return pids.count(pid) > 0; });
    if (!match) continue;
    result.matched.push_back(record.pid);
    if (static_cast<int>(result.triggered.size()) >= limit) continue;
    if (!record.pending_config.empty()) {
      ++result.busy;
      continue;
    }
    record.pending_config = config_for(record.pid);
    result.triggered.push_back(record.pid);
  }
  return result;
}

size_t ProcessRegistry::DropSilent(AgentClock::time_point now) {
  std::lock_guard lock(mutex_);
  return std::erase_if(
      processes_, [&](const auto& entry) { return now - entry.second.last_seen > silence_limit_; });
}

std::vector<ProcessRecord> ProcessRegistry::Live() const {
  std::lock_guard lock(mutex_);
  std::vector<ProcessRecord> live;
  for (const auto& [key, record] : processes_) live.push_back(record);
  return live;
}

uint64_t ProcessRegistry::refused() const {
  std::lock_guard lock(mutex_);
  return refused_;
}

int ProcessRegistry::CountForJob(int64_t job_id) const {
  std::lock_guard lock(mutex_);
  int count = 0;
  for (const auto& [key, record] : processes_) count += key.first == job_id ? 1 : 0;
  return count;
}

}  // namespace xpuperf::agent
