// Rule files in Prometheus' shape (groups of alerting and recording rules, model/rulefmt of
// Prometheus 2.42), also inside a prometheus-operator PrometheusRule (spec.groups). Loading
// checks everything Prometheus checks, plus the PromQL and template subsets, and names the file,
// line and column of the first problem.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xpuperf/alerts/promql.h"
#include "xpuperf/alerts/template.h"
#include "xpuperf/core/status.h"

namespace xpuperf::alerts {

struct TemplatedPair {
  std::string name;
  std::string source;  // as written
  AlertTemplate value;
};

struct Rule {
  bool is_alert = true;
  std::string name;  // `alert` or `record`
  std::string expr_text;
  std::shared_ptr<const ExprNode> expr;  // shared: rule files are copied into engines
  int64_t for_ms = 0;
  int64_t keep_firing_for_ms = 0;
  std::vector<TemplatedPair> labels;
  std::vector<TemplatedPair> annotations;
  int line = 0;  // where the rule starts in its file (1-based)
};

struct RuleGroup {
  std::string name;
  int64_t interval_ms = 0;  // 0: the engine's default evaluation interval
  int64_t limit = 0;        // 0: no limit on alerts/series per rule
  std::vector<Rule> rules;
};

struct RuleFile {
  std::string path;
  std::vector<RuleGroup> groups;
};

// `path` only labels messages.
Result<RuleFile> ParseRuleFile(std::string_view yaml_text, std::string_view path);
Result<RuleFile> LoadRuleFile(const std::string& path);

}  // namespace xpuperf::alerts
