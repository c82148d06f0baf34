#include "xpuperf/capture/alert_trigger.h"

#include <charconv>

#include "xpuperf/agent/rpc_client.h"

namespace xpuperf::capture {

namespace {

// The host of an `instance` label ("node1:10877", "[fd00::1]:10877", "node1").
std::string HostOfInstance(const std::string& instance) {
  if (!instance.empty() && instance.front() == '[') {
    const size_t close = instance.find(']');
    return close == std::string::npos ? instance : instance.substr(0, close + 1);
  }
  const size_t colon = instance.find(':');
  if (colon != std::string::npos && instance.find(':', colon + 1) == std::string::npos) {
    return instance.substr(0, colon);
  }
  return instance;  // a bare name, or an IPv6 address without brackets (checked below)
}

std::string WithPort(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos && host.front() != '[';
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace

Result<std::string> AgentForAlert(const ReceivedAlert& alert, int agent_port) {
  std::string text;
  std::string from;
  if (auto it = alert.labels.find(kAgentLabel); it != alert.labels.end()) {
    text = it->second;
    from = kAgentLabel;
  } else {
    for (const char* label : {"instance", "hostname", "node"}) {
      auto found = alert.labels.find(label);
      if (found == alert.labels.end() || found->second.empty()) continue;
      const std::string host =
          std::string(label) == "instance" ? HostOfInstance(found->second) : found->second;
      text = WithPort(host, agent_port);
      from = label;
      break;
    }
  }
  if (text.empty()) {
    return MakeError(ErrorCode::kNotFound,
                     "no xpuperf_agent, instance, hostname or node label names the node");
  }
  auto endpoint = agent::ParseAgentEndpoint(text);
  if (!endpoint.ok()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "label " + from + ": " + endpoint.error().message);
  }
  return endpoint->ToString();
}

TriggerDecision AlertTrigger::Decide(const ReceivedAlert& alert, Clock::time_point now) {
  TriggerDecision d;
  if (auto it = alert.labels.find("alertname"); it != alert.labels.end()) d.alertname = it->second;
  auto skip = [&](std::string why) {
    d.action = TriggerAction::kSkip;
    d.reason = std::move(why);
    return d;
  };
  auto opt_in = alert.labels.find(kOptInLabel);
  if (opt_in == alert.labels.end()) return skip("not opted in (no xpuperf_capture label)");
  if (opt_in->second != kOptInValue) {
    return skip("not opted in (xpuperf_capture=\"" + opt_in->second.substr(0, 32) + "\")");
  }
  if (!alert.firing()) return skip("resolved");
  auto agent = AgentForAlert(alert, policy_.agent_port);
  if (!agent.ok()) return skip(agent.error().message);
  d.agent = *agent;
  if (!policy_.allowed_hosts.empty()) {
    auto endpoint = agent::ParseAgentEndpoint(d.agent);
    const bool allowed = endpoint.ok() && (policy_.allowed_hosts.count(endpoint->host) > 0 ||
                                           policy_.allowed_hosts.count(d.agent) > 0);
    if (!allowed) return skip("agent " + d.agent + " is not in the allowed hosts");
  }
  d.duration_ms = policy_.default_duration_ms;
  if (auto it = alert.annotations.find(kDurationAnnotation); it != alert.annotations.end()) {
    const std::string& text = it->second;
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 1) {
      return skip("annotation xpuperf_capture_duration_ms='" + text.substr(0, 32) +
                  "' is not a positive integer");
    }
    if (value > policy_.max_duration_ms) {
      return skip("annotation xpuperf_capture_duration_ms=" + text + " is over the maximum " +
                  std::to_string(policy_.max_duration_ms));
    }
    d.duration_ms = value;
  }
  d.key = d.alertname + "@" + d.agent;
  std::lock_guard lock(mutex_);
  if (auto last = last_started_.find(d.key); last != last_started_.end()) {
    const auto since = now - last->second;
    if (since < policy_.cooldown) {
      const auto left_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(policy_.cooldown - since).count();
      return skip("cooldown: " + d.key + " was captured " +
                  std::to_string(std::chrono::duration_cast<std::chrono::seconds>(since).count()) +
                  " s ago (" + std::to_string((left_ms + 999) / 1000) + " s left)");
    }
  }
  if (running_ >= policy_.max_concurrent) {
    return skip(std::to_string(running_) + " captures running (at most " +
                std::to_string(policy_.max_concurrent) + " at once)");
  }
  ++running_;
  last_started_[d.key] = now;
  // Forget cooldowns long past, so the map stays as small as the set of recent triggers.
  for (auto it = last_started_.begin(); it != last_started_.end();) {
    it = now - it->second > policy_.cooldown ? last_started_.erase(it) : std::next(it);
  }
  d.action = TriggerAction::kCapture;
  return d;
}

void AlertTrigger::Finished(const TriggerDecision& decision) {
  if (decision.action != TriggerAction::kCapture) return;
  std::lock_guard lock(mutex_);
  if (running_ > 0) --running_;
}

int AlertTrigger::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

}  // namespace xpuperf::capture
