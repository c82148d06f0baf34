// The built-in rule engine: evaluates rule groups over a SeriesSource with Prometheus 2.42's alert
// state machine (rules/alerting.go): pending while the expression holds for less than `for`,
// firing after, kept firing for `keep_firing_for`, inactive (resolved) otherwise; resolved alerts
// are kept 15 minutes so receivers learn of the resolution. Recording rules write their output
// back so later rules (and later evaluations) read it. Not thread-safe: one evaluating thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "xpuperf/alerts/rule_file.h"
#include "xpuperf/alerts/series.h"

namespace xpuperf::alerts {

enum class AlertState { kInactive, kPending, kFiring };
std::string_view AlertStateName(AlertState state);

struct Alert {
  std::string rule;  // alert name
  Labels labels;     // sample labels (no __name__) + rule labels + alertname
  std::vector<std::pair<std::string, std::string>> annotations;
  double value = 0;
  AlertState state = AlertState::kPending;
  int64_t active_at_ms = 0;
  int64_t fired_at_ms = 0;
  int64_t resolved_at_ms = 0;        // 0 while active
  int64_t keep_firing_since_ms = 0;  // 0 unless the expression stopped holding while firing
  int64_t last_sent_ms = 0;          // by the notifier
  int64_t valid_until_ms = 0;        // endsAt announced to receivers while firing
};

struct RuleEvalError {
  std::string rule;
  std::string message;
};

class RuleEngine {
 public:
  explicit RuleEngine(std::vector<RuleFile> files, Labels external_labels = {});

  // Evaluates every rule of every group at `t_ms`, in file and group order.
  std::vector<RuleEvalError> EvaluateAll(const SeriesSource& source, int64_t t_ms);
  // Evaluates one group (index into groups()) at `t_ms`.
  std::vector<RuleEvalError> EvaluateGroup(size_t group, const SeriesSource& source, int64_t t_ms);

  struct GroupRef {
    const RuleFile* file;
    const RuleGroup* group;
  };
  const std::vector<GroupRef>& groups() const { return groups_; }
  size_t rule_count() const;

  // Active and recently resolved alerts of every alerting rule, by rule, then labels.
  std::vector<const Alert*> Alerts() const;
  std::vector<Alert*> MutableAlerts();
  // Replaces the state of alerts (a restart restoring its state file); alerts of rules that no
  // longer exist are dropped.
  void RestoreAlerts(std::vector<Alert> alerts);

  // Series written by recording rules (read together with the caller's source).
  const MemorySeriesSource& recorded() const { return recorded_; }

 private:
  std::vector<RuleEvalError> EvalRule(const Rule& rule, const RuleGroup& group,
                                      const SeriesSource& source, int64_t t_ms);

  std::vector<RuleFile> files_;
  std::vector<GroupRef> groups_;
  Labels external_labels_;
  MemorySeriesSource recorded_;
  // Per alerting rule (key: group index and rule index), alerts by label key.
  std::map<std::pair<size_t, size_t>, std::map<std::string, Alert>> active_;
  std::map<const Rule*, std::pair<size_t, size_t>> rule_index_;
  std::map<std::string, std::pair<size_t, size_t>> rule_by_name_;
};

}  // namespace xpuperf::alerts
