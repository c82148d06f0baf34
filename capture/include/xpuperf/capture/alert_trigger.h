// Automatic capture's decisions: which received alert triggers a capture on which agent, for how
// long, and which is skipped and why (not opted in, resolved, no agent, not allowed, cooling down,
// too many captures running). The capture itself and the findings are alert_receiver.h's.
//
// An alert opts in with the label `xpuperf_capture="true"` (a label, so Alertmanager can route
// exactly these alerts to the receiver); `xpuperf_capture_duration_ms` (annotation) sets the trace
// length, bounded by the receiver's maximum. The node's agent is the first of these labels
// present: `xpuperf_agent` (HOST[:PORT]), `instance` (Prometheus' target: its host, with the
// agent port), `hostname`, `node` (the exporter's and Kubernetes' node names).
//
// Thread-safety: every member may be called from any thread (one mutex).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "xpuperf/capture/alert_payload.h"

namespace xpuperf::capture {

inline constexpr const char* kOptInLabel = "xpuperf_capture";
inline constexpr const char* kOptInValue = "true";
// The findings alert carries the opt-in label with this value: it is never routed back as a
// trigger, yet groups with the alert it explains under the usual group_by (alertname, instance).
inline constexpr const char* kFindingsValue = "findings";
inline constexpr const char* kDurationAnnotation = "xpuperf_capture_duration_ms";
inline constexpr const char* kAgentLabel = "xpuperf_agent";

struct TriggerPolicy {
  int agent_port = 1778;                // added to hosts from `instance`, `hostname`, `node`
  std::set<std::string> allowed_hosts;  // empty = any; else the agent's host must be one of these
  int64_t default_duration_ms = 2000;
  int64_t max_duration_ms = 60'000;
  std::chrono::milliseconds cooldown = std::chrono::minutes(10);  // per (alertname, agent)
  int max_concurrent = 2;                                         // captures at once, all alerts
};

enum class TriggerAction { kCapture, kSkip };

struct TriggerDecision {
  TriggerAction action = TriggerAction::kSkip;
  std::string reason;     // why skipped ("" when captured)
  std::string alertname;  // labels["alertname"]
  std::string agent;      // HOST:PORT of the node's agent ("" when none was found)
  int64_t duration_ms = 0;
  std::string key;  // alertname + agent: the cooldown's key
};

// The agent address an alert's labels name, or kNotFound / kInvalidArgument with the reason.
Result<std::string> AgentForAlert(const ReceivedAlert& alert, int agent_port);

class AlertTrigger {
 public:
  using Clock = std::chrono::steady_clock;
  explicit AlertTrigger(TriggerPolicy policy) : policy_(std::move(policy)) {}

  // Decides for one alert at `now`; a kCapture decision has reserved a slot and started the
  // cooldown, and the caller must call Finished(decision) when the capture ends.
  TriggerDecision Decide(const ReceivedAlert& alert, Clock::time_point now);
  void Finished(const TriggerDecision& decision);
  int running() const;
  const TriggerPolicy& policy() const { return policy_; }

 private:
  TriggerPolicy policy_;
  mutable std::mutex mutex_;
  std::map<std::string, Clock::time_point> last_started_;  // by key
  int running_ = 0;
};

}  // namespace xpuperf::capture
