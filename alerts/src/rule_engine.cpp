#include "xpuperf/alerts/rule_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <unordered_set>

namespace xpuperf::alerts {
namespace {

constexpr int64_t kResolvedRetentionMs = int64_t{15} * 60 * 1000;  // Prometheus' resolvedRetention

// Reads the caller's series and the recorded ones as one source.
class LayeredSource : public SeriesSource {
 public:
  LayeredSource(const SeriesSource& a, const SeriesSource& b) : a_(a), b_(b) {}
  void Select(std::span<const LabelMatcher> matchers, int64_t min_t_ms, int64_t max_t_ms,
              const Visitor& visit) const override {
    a_.Select(matchers, min_t_ms, max_t_ms, visit);
    b_.Select(matchers, min_t_ms, max_t_ms, visit);
  }

 private:
  const SeriesSource& a_;
  const SeriesSource& b_;
};

}  // namespace

std::string_view AlertStateName(AlertState state) {
  switch (state) {
    case AlertState::kInactive:
      return "inactive";
    case AlertState::kPending:
      return "pending";
    case AlertState::kFiring:
      return "firing";
  }
  return "?";
}

RuleEngine::RuleEngine(std::vector<RuleFile> files, Labels external_labels)
    : files_(std::move(files)), external_labels_(std::move(external_labels)) {
  for (const RuleFile& file : files_) {
    for (const RuleGroup& group : file.groups) groups_.push_back({&file, &group});
  }
  for (size_t g = 0; g < groups_.size(); ++g) {
    for (size_t r = 0; r < groups_[g].group->rules.size(); ++r) {
      const Rule& rule = groups_[g].group->rules[r];
      rule_index_[&rule] = {g, r};
      if (rule.is_alert) rule_by_name_.try_emplace(rule.name, g, r);
    }
  }
  std::vector<const ExprNode*> exprs;
  for (const GroupRef& g : groups_) {
    for (const Rule& rule : g.group->rules) exprs.push_back(rule.expr.get());
  }
  shared_ = SharedResults(exprs);
}

size_t RuleEngine::rule_count() const { return rule_index_.size(); }

std::vector<RuleEvalError> RuleEngine::EvaluateAll(const SeriesSource& source, int64_t t_ms) {
  std::vector<RuleEvalError> errors;
  for (size_t g = 0; g < groups_.size(); ++g) {
    auto group_errors = EvaluateGroup(g, source, t_ms);
    errors.insert(errors.end(), group_errors.begin(), group_errors.end());
  }
  return errors;
}

std::vector<RuleEvalError> RuleEngine::EvaluateGroup(size_t group, const SeriesSource& source,
                                                     int64_t t_ms) {
  std::vector<RuleEvalError> errors;
  shared_.Clear();  // the caller's series may have changed since the last group
  const RuleGroup& g = *groups_[group].group;
  for (const Rule& rule : g.rules) {
    auto rule_errors = EvalRule(rule, g, source, t_ms);
    errors.insert(errors.end(), rule_errors.begin(), rule_errors.end());
  }
  return errors;
}

std::vector<RuleEvalError> RuleEngine::EvalRule(const Rule& rule, const RuleGroup& group,
                                                const SeriesSource& source, int64_t t_ms) {
  LayeredSource layered(source, recorded_);
  Result<EvalValue> result = Evaluate(*rule.expr, layered, t_ms, {}, &shared_);
  std::vector<VectorSample> samples;
  std::vector<RuleEvalError> errors;
  if (!result.ok()) {
    errors.push_back({rule.name, result.error().message});
  } else if (result->type == ValueType::kScalar) {
    samples.push_back({Labels{}, result->scalar});
  } else {
    samples = std::move(result->vector);
  }

  if (!rule.is_alert) {
    if (group.limit > 0 && static_cast<int64_t>(samples.size()) > group.limit) {
      errors.push_back({rule.name, fmt::format("exceeded limit of {} with {} series", group.limit,
                                               samples.size())});
      return errors;
    }
    for (VectorSample& s : samples) {
      s.labels.Set(kMetricNameLabel, rule.name);
      for (const TemplatedPair& label : rule.labels) s.labels.Set(label.name, label.source);
      recorded_.Append(s.labels, {t_ms, s.value});
    }
    recorded_.Trim(t_ms - int64_t{60} * 60 * 1000);  // recorded history kept for an hour
    shared_.Clear();  // results kept so far may read what was written
    return errors;
  }

  auto& active = active_[rule_index_.at(&rule)];
  std::unordered_set<std::string> seen;
  for (const VectorSample& s : samples) {
    Labels labels = s.labels;
    labels.Remove(kMetricNameLabel);
    const Labels template_labels = labels;
    for (const TemplatedPair& label : rule.labels) {
      labels.Set(label.name, label.value.Expand(template_labels, s.value, external_labels_));
    }
    labels.Set("alertname", rule.name);
    std::string key = labels.Key();
    if (!seen.insert(key).second) {
      errors.push_back({rule.name,
                        "vector contains metrics with the same labelset after "
                        "applying alert labels"});
      return errors;
    }
    auto expand_annotations = [&] {
      std::vector<std::pair<std::string, std::string>> annotations;
      for (const TemplatedPair& a : rule.annotations) {
        annotations.emplace_back(a.name,
                                 a.value.Expand(template_labels, s.value, external_labels_));
      }
      return annotations;
    };
    auto it = active.find(key);
    if (it != active.end() && it->second.state != AlertState::kInactive) {
      // Same labels (the key) and the same value bits: the annotations would expand the same.
      Alert& alert = it->second;
      if (!alert.annotations_current ||
          std::bit_cast<uint64_t>(alert.value) != std::bit_cast<uint64_t>(s.value)) {
        alert.value = s.value;
        alert.annotations = expand_annotations();
        alert.annotations_current = true;
      }
      continue;
    }
    auto annotations = expand_annotations();
    Alert alert;
    alert.rule = rule.name;
    alert.labels = std::move(labels);
    alert.annotations = std::move(annotations);
    alert.value = s.value;
    alert.annotations_current = true;
    alert.state = AlertState::kPending;
    alert.active_at_ms = t_ms;
    active[key] = std::move(alert);
  }

  for (auto it = active.begin(); it != active.end();) {
    Alert& a = it->second;
    if (!seen.contains(it->first)) {
      bool keep_firing = false;
      if (a.state == AlertState::kFiring && rule.keep_firing_for_ms > 0) {
        if (a.keep_firing_since_ms == 0) a.keep_firing_since_ms = t_ms;
        keep_firing = t_ms - a.keep_firing_since_ms < rule.keep_firing_for_ms;
      }
      if (a.state == AlertState::kPending ||
          (a.resolved_at_ms != 0 && t_ms - a.resolved_at_ms > kResolvedRetentionMs)) {
        it = active.erase(it);
        continue;
      }
      if (a.state != AlertState::kInactive && !keep_firing) {
        a.state = AlertState::kInactive;
        a.resolved_at_ms = t_ms;
      }
      if (!keep_firing) {
        ++it;
        continue;
      }
    } else {
      a.keep_firing_since_ms = 0;
    }
    if (a.state == AlertState::kPending && t_ms - a.active_at_ms >= rule.for_ms) {
      a.state = AlertState::kFiring;
      a.fired_at_ms = t_ms;
    }
    ++it;
  }
  if (group.limit > 0) {
    int64_t count = 0;
    for (const auto& [key, a] : active) count += a.state != AlertState::kInactive;
    if (count > group.limit) {
      active.clear();  // as Prometheus: over the limit, the rule's alerts are dropped
      errors.push_back(
          {rule.name, fmt::format("exceeded limit of {} with {} alerts", group.limit, count)});
    }
  }
  return errors;
}

std::vector<const Alert*> RuleEngine::Alerts() const {
  std::vector<const Alert*> out;
  for (const auto& [index, alerts] : active_) {
    for (const auto& [key, alert] : alerts) out.push_back(&alert);
  }
  return out;
}

std::vector<Alert*> RuleEngine::MutableAlerts() {
  std::vector<Alert*> out;
  for (auto& [index, alerts] : active_) {
    for (auto& [key, alert] : alerts) out.push_back(&alert);
  }
  return out;
}

void RuleEngine::RestoreAlerts(std::vector<Alert> alerts) {
  active_.clear();
  for (Alert& alert : alerts) {
    auto it = rule_by_name_.find(alert.rule);
    if (it == rule_by_name_.end()) continue;
    const std::string key = alert.labels.Key();
    active_[it->second][key] = std::move(alert);
  }
}

}  // namespace xpuperf::alerts
