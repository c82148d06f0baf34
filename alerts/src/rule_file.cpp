#include "xpuperf/alerts/rule_file.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "xpuperf/core/input_file.h"

namespace xpuperf::alerts {
namespace {

// yaml-cpp reports problems by exception; this file is its fence.
struct Located {
  std::string path;
  Error At(const YAML::Node& node, const std::string& reason) const {
    const YAML::Mark mark = node.Mark();
    if (mark.line < 0) return MakeError(ErrorCode::kParse, fmt::format("{}: {}", path, reason));
    return MakeError(ErrorCode::kParse,
                     fmt::format("{}:{}:{}: {}", path, mark.line + 1, mark.column + 1, reason));
  }
};

// [a-zA-Z_(:)][a-zA-Z0-9_(:)]*, checked by hand: libstdc++'s std::regex recurses once per
// character and overflows the stack on names of a few thousand characters.
bool IsValidName(const std::string& name, bool allow_colon) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                    (allow_colon && c == ':') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}
bool IsValidLabelName(const std::string& name) { return IsValidName(name, false); }
bool IsValidMetricName(const std::string& name) { return IsValidName(name, true); }

Result<std::string> ScalarString(const Located& loc, const YAML::Node& node,
                                 const std::string& key) {
  if (!node.IsScalar()) return loc.At(node, fmt::format("'{}' must be a string", key));
  return node.Scalar();
}

Result<int64_t> DurationField(const Located& loc, const YAML::Node& node, const std::string& key) {
  XPUPERF_ASSIGN_OR_RETURN(std::string text, ScalarString(loc, node, key));
  auto ms = ParseDuration(text);
  if (!ms.ok()) return loc.At(node, fmt::format("'{}': {}", key, ms.error().message));
  return *ms;
}

Result<std::vector<TemplatedPair>> TemplatedMap(const Located& loc, const YAML::Node& node,
                                                const std::string& key, bool label_values) {
  std::vector<TemplatedPair> pairs;
  if (node.IsNull()) return pairs;
  if (!node.IsMap()) return loc.At(node, fmt::format("'{}' must be a map", key));
  for (const auto& item : node) {
    const std::string name = item.first.Scalar();
    if (!IsValidLabelName(name) || (label_values && name == "__name__")) {
      return loc.At(item.first, fmt::format("invalid {} name \"{}\"",
                                            label_values ? "label" : "annotation", name));
    }
    XPUPERF_ASSIGN_OR_RETURN(std::string value, ScalarString(loc, item.second, name));
    auto tmpl = AlertTemplate::Parse(value);
    if (!tmpl.ok())
      return loc.At(item.second, fmt::format("{} {}: {}", key, name, tmpl.error().message));
    pairs.push_back({name, value, std::move(*tmpl)});
  }
  return pairs;
}

Result<Rule> ParseRule(const Located& loc, const YAML::Node& node) {
  if (!node.IsMap()) return loc.At(node, "a rule must be a map");
  static const std::set<std::string> kKeys = {"alert",  "record",      "expr",           "for",
                                              "labels", "annotations", "keep_firing_for"};
  for (const auto& item : node) {
    const std::string key = item.first.Scalar();
    if (!kKeys.contains(key)) {
      return loc.At(item.first, fmt::format("field {} not found in type rulefmt.Rule", key));
    }
  }
  Rule rule;
  rule.line = node.Mark().line + 1;
  const bool has_alert = node["alert"].IsDefined();
  const bool has_record = node["record"].IsDefined();
  if (has_alert == has_record) {
    return loc.At(node, "a rule needs exactly one of 'alert' and 'record'");
  }
  rule.is_alert = has_alert;
  XPUPERF_ASSIGN_OR_RETURN(rule.name, ScalarString(loc, node[has_alert ? "alert" : "record"],
                                                   has_alert ? "alert" : "record"));
  if (rule.name.empty()) return loc.At(node, "the rule's name is empty");
  if (!has_alert && !IsValidMetricName(rule.name)) {
    return loc.At(node["record"], fmt::format("invalid recording rule name: {}", rule.name));
  }
  if (!node["expr"].IsDefined()) return loc.At(node, "field 'expr' must be set in rule");
  XPUPERF_ASSIGN_OR_RETURN(rule.expr_text, ScalarString(loc, node["expr"], "expr"));
  auto expr = ParseExpr(rule.expr_text);
  if (!expr.ok()) {
    return loc.At(node["expr"], fmt::format("{} {}: expr: {}", has_alert ? "alert" : "record",
                                            rule.name, expr.error().message));
  }
  rule.expr = std::move(*expr);
  if (!has_alert) {
    for (const char* key : {"for", "keep_firing_for", "annotations"}) {
      if (node[key].IsDefined()) {
        return loc.At(node[key], fmt::format("invalid field '{}' in recording rule", key));
      }
    }
  }
  if (node["for"].IsDefined()) {
    XPUPERF_ASSIGN_OR_RETURN(rule.for_ms, DurationField(loc, node["for"], "for"));
  }
  if (node["keep_firing_for"].IsDefined()) {
    XPUPERF_ASSIGN_OR_RETURN(rule.keep_firing_for_ms,
                             DurationField(loc, node["keep_firing_for"], "keep_firing_for"));
  }
  if (node["labels"].IsDefined()) {
    XPUPERF_ASSIGN_OR_RETURN(rule.labels, TemplatedMap(loc, node["labels"], "labels", true));
    if (!has_alert) {
      for (const TemplatedPair& p : rule.labels) {
        if (!p.value.is_literal()) {
          return loc.At(node["labels"], "recording rule labels cannot be templates");
        }
      }
    }
  }
  if (node["annotations"].IsDefined()) {
    XPUPERF_ASSIGN_OR_RETURN(rule.annotations,
                             TemplatedMap(loc, node["annotations"], "annotations", false));
  }
  return rule;
}

Result<RuleGroup> ParseGroup(const Located& loc, const YAML::Node& node) {
  if (!node.IsMap()) return loc.At(node, "a group must be a map");
  static const std::set<std::string> kKeys = {"name", "interval", "limit", "rules"};
  for (const auto& item : node) {
    const std::string key = item.first.Scalar();
    if (!kKeys.contains(key)) {
      return loc.At(item.first, fmt::format("field {} not found in type rulefmt.RuleGroup", key));
    }
  }
  RuleGroup group;
  if (!node["name"].IsDefined()) return loc.At(node, "group name must not be empty");
  XPUPERF_ASSIGN_OR_RETURN(group.name, ScalarString(loc, node["name"], "name"));
  if (group.name.empty()) return loc.At(node, "group name must not be empty");
  if (node["interval"].IsDefined()) {
    XPUPERF_ASSIGN_OR_RETURN(group.interval_ms, DurationField(loc, node["interval"], "interval"));
  }
  if (node["limit"].IsDefined()) {
    try {
      group.limit = node["limit"].as<int64_t>();
    } catch (const YAML::Exception&) {
      return loc.At(node["limit"], "'limit' must be an integer");
    }
  }
  const YAML::Node rules = node["rules"];
  if (rules.IsDefined() && !rules.IsNull()) {
    if (!rules.IsSequence()) return loc.At(rules, "'rules' must be a list");
    for (const YAML::Node& rule_node : rules) {
      XPUPERF_ASSIGN_OR_RETURN(Rule rule, ParseRule(loc, rule_node));
      group.rules.push_back(std::move(rule));
    }
  }
  return group;
}

}  // namespace

Result<RuleFile> ParseRuleFile(std::string_view yaml_text, std::string_view path) {
  Located loc{std::string(path)};
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    return MakeError(ErrorCode::kParse,
                     fmt::format("{}:{}:{}: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  try {
    if (root.IsNull()) return RuleFile{std::string(path), {}};
    if (!root.IsMap()) return loc.At(root, "a rule file must be a map with 'groups'");
    YAML::Node groups = root["groups"];
    // A prometheus-operator PrometheusRule carries the same groups under spec.
    if (!groups.IsDefined() && root["kind"].IsDefined() &&
        root["kind"].Scalar() == "PrometheusRule") {
      groups = root["spec"]["groups"];
    } else {
      for (const auto& item : root) {
        if (item.first.Scalar() != "groups") {
          return loc.At(item.first, fmt::format("field {} not found in type rulefmt.RuleGroups",
                                                item.first.Scalar()));
        }
      }
    }
    RuleFile file{std::string(path), {}};
    if (!groups.IsDefined() || groups.IsNull()) return file;
    if (!groups.IsSequence()) return loc.At(groups, "'groups' must be a list");
    std::set<std::string> names;
    for (const YAML::Node& group_node : groups) {
      XPUPERF_ASSIGN_OR_RETURN(RuleGroup group, ParseGroup(loc, group_node));
      if (!names.insert(group.name).second) {
        return loc.At(group_node,
                      fmt::format("groupname: \"{}\" is repeated in the same file", group.name));
      }
      file.groups.push_back(std::move(group));
    }
    return file;
  } catch (const YAML::Exception& e) {
    return MakeError(ErrorCode::kParse,
                     fmt::format("{}:{}:{}: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

Result<RuleFile> LoadRuleFile(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(std::string text, ReadInputFile(path));
  return ParseRuleFile(text, path);
}

}  // namespace xpuperf::alerts
