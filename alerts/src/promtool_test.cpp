#include "xpuperf/alerts/promtool_test.h"

#include <fmt/format.h>
#include <glob.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>

#include "xpuperf/alerts/promql.h"
#include "xpuperf/alerts/rule_engine.h"
#include "xpuperf/alerts/rule_file.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/input_file.h"

namespace xpuperf::alerts {
namespace {

Result<double> ParseNumber(std::string_view text) {
  double v = 0;
  const char* first = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
  auto r = std::from_chars(first, text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) {
    if (text == "Inf" || text == "+Inf") return INFINITY;
    if (text == "-Inf") return -INFINITY;
    if (text == "NaN") return NAN;
    return MakeError(ErrorCode::kParse, fmt::format("bad number \"{}\" in series values", text));
  }
  return v;
}

std::string DurationString(int64_t ms) {
  if (ms % 1000 != 0) return fmt::format("{}ms", ms);
  return fmt::format("{}s", ms / 1000);
}

struct AlertSnapshot {
  std::string labels_text;  // sorted label set, alertname removed, as promtool compares
  Labels labels;
  std::vector<std::pair<std::string, std::string>> annotations;
  bool operator<(const AlertSnapshot& o) const { return labels_text < o.labels_text; }
};

Result<Labels> ParseSeriesLabels(const std::string& text) {
  XPUPERF_ASSIGN_OR_RETURN(Expr expr, ParseExpr(text));
  if (expr->kind != NodeKind::kVectorSelector) {
    return MakeError(ErrorCode::kParse, fmt::format("\"{}\" is not a series", text));
  }
  std::vector<std::pair<std::string, std::string>> items;
  for (const LabelMatcher& m : expr->matchers) {
    if (m.op != LabelMatcher::Op::kEqual) {
      return MakeError(ErrorCode::kParse, fmt::format("\"{}\": only = in series labels", text));
    }
    items.emplace_back(m.name, m.value);
  }
  return Labels(std::move(items));
}

constexpr int64_t kMaxEvaluationSteps = 10'000'000;
// Samples of all input series of one test: a file of many long series is refused, not expanded.
constexpr size_t kMaxTestSamples = 20'000'000;

std::string QuoteYaml(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "''";
    else
      out += c;
  }
  return out + "'";
}

}  // namespace

Result<std::vector<std::optional<double>>> ParseSeriesValues(std::string_view notation) {
  std::vector<std::optional<double>> values;
  size_t pos = 0;
  while (pos < notation.size()) {
    while (pos < notation.size() && notation[pos] == ' ') ++pos;
    if (pos >= notation.size()) break;
    size_t end = notation.find(' ', pos);
    if (end == std::string_view::npos) end = notation.size();
    std::string_view token = notation.substr(pos, end - pos);
    pos = end;
    const size_t x = token.find('x');
    std::string_view head = x == std::string_view::npos ? token : token.substr(0, x);
    int64_t times = 0;
    if (x != std::string_view::npos) {
      auto r = std::from_chars(token.data() + x + 1, token.data() + token.size(), times);
      if (r.ec != std::errc() || r.ptr != token.data() + token.size() || times < 0) {
        return MakeError(ErrorCode::kParse, fmt::format("bad repetition in \"{}\"", token));
      }
    }
    if (values.size() + static_cast<size_t>(times) > 10'000'000) {
      return MakeError(ErrorCode::kInvalidArgument, "input series longer than 10 million samples");
    }
    if (head == "_" || head == "stale") {
      const std::optional<double> v =
          head == "_" ? std::nullopt : std::optional<double>(StaleNaN());
      for (int64_t i = 0; i <= (x == std::string_view::npos ? 0 : times - 1); ++i)
        values.push_back(v);
      // `_x3` adds three blanks, `_` one (as promtool's lexer does).
      continue;
    }
    // a, a+b, a-b (the step sign is the last + or - that is not an exponent's).
    size_t op = std::string_view::npos;
    for (size_t i = 1; i < head.size(); ++i) {
      if ((head[i] == '+' || head[i] == '-') && head[i - 1] != 'e' && head[i - 1] != 'E') op = i;
    }
    XPUPERF_ASSIGN_OR_RETURN(double start, ParseNumber(head.substr(0, op)));
    double step = 0;
    if (op != std::string_view::npos) {
      XPUPERF_ASSIGN_OR_RETURN(step, ParseNumber(head.substr(op + 1)));
      if (head[op] == '-') step = -step;
    } else if (x == std::string_view::npos) {
      times = 0;
    }
    double v = start;
    values.push_back(v);
    for (int64_t i = 0; i < times; ++i) {
      v += step;
      values.push_back(v);
    }
  }
  return values;
}

Result<PromtoolTestReport> RunPromtoolTestFile(const std::string& path,
                                               const PromtoolTestOptions& options) {
  // Under the input policy: a FIFO or device is refused instead of blocking (YAML::LoadFile would
  // wait forever, deaf to Ctrl-C), the size is bounded.
  XPUPERF_ASSIGN_OR_RETURN(const std::string text, ReadInputFile(path));
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return MakeError(ErrorCode::kParse, fmt::format("{}: {}", path, e.what()));
  }
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  PromtoolTestReport report;
  try {
    std::vector<RuleFile> files;
    std::vector<std::string> rule_paths;
    for (const YAML::Node& pattern : root["rule_files"]) {
      const std::string full =
          std::filesystem::absolute(dir / pattern.Scalar()).lexically_normal().string();
      glob_t matches{};
      if (glob(full.c_str(), 0, nullptr, &matches) != 0) {
        globfree(&matches);
        return MakeError(ErrorCode::kNotFound,
                         fmt::format("{}: no rule file matches {}", path, pattern.Scalar()));
      }
      for (size_t i = 0; i < matches.gl_pathc; ++i) rule_paths.emplace_back(matches.gl_pathv[i]);
      globfree(&matches);
    }
    for (const std::string& rule_path : rule_paths) {
      XPUPERF_ASSIGN_OR_RETURN(RuleFile file, LoadRuleFile(rule_path));
      files.push_back(std::move(file));
    }
    int64_t eval_interval = 60000;
    if (root["evaluation_interval"]) {
      XPUPERF_ASSIGN_OR_RETURN(eval_interval, ParseDuration(root["evaluation_interval"].Scalar()));
    }
    if (eval_interval <= 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       fmt::format("{}: evaluation_interval must be positive", path));
    }
    std::string timeline =
        "# The alert timeline of xpuperf's rule engine at every evaluation step.\n";
    timeline += "rule_files:\n";
    const auto& named =
        options.timeline_rule_files.empty() ? rule_paths : options.timeline_rule_files;
    for (const std::string& p : named) timeline += "  - " + QuoteYaml(p) + "\n";
    timeline += fmt::format("evaluation_interval: {}\ntests:\n", DurationString(eval_interval));

    for (const YAML::Node& test : root["tests"]) {
      ++report.tests;
      const std::string test_name =
          test["name"] ? test["name"].Scalar() : fmt::format("#{}", report.tests);
      int64_t interval = eval_interval;
      if (test["interval"]) {
        XPUPERF_ASSIGN_OR_RETURN(interval, ParseDuration(test["interval"].Scalar()));
      }
      if (interval <= 0) {
        return MakeError(ErrorCode::kInvalidArgument,
                         fmt::format("{}: {}: interval must be positive", path, test_name));
      }
      MemorySeriesSource source;
      size_t test_samples = 0;  // every input series of this test together
      timeline += fmt::format("  - name: {}\n    interval: {}\n    input_series:\n",
                              QuoteYaml(test_name), DurationString(interval));
      for (const YAML::Node& series : test["input_series"]) {
        XPUPERF_ASSIGN_OR_RETURN(Labels labels, ParseSeriesLabels(series["series"].Scalar()));
        XPUPERF_ASSIGN_OR_RETURN(auto values, ParseSeriesValues(series["values"].Scalar()));
        test_samples += values.size();
        if (test_samples > kMaxTestSamples) {
          return MakeError(ErrorCode::kInvalidArgument,
                           fmt::format("{}: {}: input series hold more than {} samples in all",
                                       path, test_name, kMaxTestSamples));
        }
        for (size_t i = 0; i < values.size(); ++i) {
          if (values[i]) source.Append(labels, {static_cast<int64_t>(i) * interval, *values[i]});
        }
        timeline +=
            fmt::format("      - series: {}\n        values: {}\n",
                        QuoteYaml(series["series"].Scalar()), QuoteYaml(series["values"].Scalar()));
      }
      // Expected alerts by eval time and name.
      struct Check {
        int64_t t_ms;
        std::string alertname;
        std::vector<AlertSnapshot> expected;
      };
      std::vector<Check> checks;
      int64_t max_t = 0;
      for (const YAML::Node& art : test["alert_rule_test"]) {
        Check check;
        XPUPERF_ASSIGN_OR_RETURN(check.t_ms, ParseDuration(art["eval_time"].Scalar()));
        check.alertname = art["alertname"].Scalar();
        for (const YAML::Node& exp : art["exp_alerts"]) {
          AlertSnapshot snap;
          std::vector<std::pair<std::string, std::string>> items;
          for (const auto& kv : exp["exp_labels"])
            items.emplace_back(kv.first.Scalar(), kv.second.Scalar());
          snap.labels = Labels(items);
          snap.labels_text = snap.labels.ToString();
          for (const auto& kv : exp["exp_annotations"])
            snap.annotations.emplace_back(kv.first.Scalar(), kv.second.Scalar());
          std::sort(snap.annotations.begin(), snap.annotations.end());
          check.expected.push_back(std::move(snap));
        }
        std::sort(check.expected.begin(), check.expected.end());
        max_t = std::max(max_t, check.t_ms);
        checks.push_back(std::move(check));
      }
      std::set<std::string> alert_names;
      for (const RuleFile& f : files) {
        for (const RuleGroup& g : f.groups) {
          for (const Rule& r : g.rules) {
            if (r.is_alert) alert_names.insert(r.name);
          }
        }
      }
      int64_t timeline_end = max_t;
      if (test["xpuperf_timeline_end"]) {
        XPUPERF_ASSIGN_OR_RETURN(timeline_end,
                                 ParseDuration(test["xpuperf_timeline_end"].Scalar()));
      }
      RuleEngine engine(files);
      std::string alert_tests, expr_tests;
      const int64_t end = std::max(max_t, timeline_end);
      // Each step evaluates every rule: bounded like the input series, so an eval_time of years at
      // a 1 ms interval is an error rather than a run that never ends.
      if (end / eval_interval > kMaxEvaluationSteps) {
        return MakeError(ErrorCode::kInvalidArgument,
                         fmt::format("{}: {}: evaluating up to {} every {} is more than {} steps",
                                     path, test_name, DurationString(end),
                                     DurationString(eval_interval), kMaxEvaluationSteps));
      }
      for (int64_t ts = 0; ts <= end; ts += eval_interval) {
        XPUPERF_RETURN_IF_ERROR(CheckCancelled());
        for (const RuleEvalError& e : engine.EvaluateAll(source, ts)) {
          report.failures.push_back(fmt::format("{}: {}: rule {} at {}: {}", path, test_name,
                                                e.rule, DurationString(ts), e.message));
        }
        std::map<std::string, std::vector<AlertSnapshot>> firing;
        std::vector<const Alert*> pending;
        for (const Alert* a : engine.Alerts()) {
          if (a->state == AlertState::kPending) pending.push_back(a);
          if (a->state != AlertState::kFiring) continue;
          AlertSnapshot snap;
          snap.labels = a->labels;
          snap.labels.Remove("alertname");
          snap.labels_text = snap.labels.ToString();
          snap.annotations = a->annotations;
          std::sort(snap.annotations.begin(), snap.annotations.end());
          firing[a->rule].push_back(std::move(snap));
        }
        for (auto& [name, list] : firing) std::sort(list.begin(), list.end());
        for (const Check& check : checks) {
          // promtool checks an eval_time against the last step at or before it.
          if (!(check.t_ms >= ts && check.t_ms < ts + eval_interval)) continue;
          const auto& got = firing[check.alertname];
          bool same = got.size() == check.expected.size();
          for (size_t i = 0; same && i < got.size(); ++i) {
            same = got[i].labels == check.expected[i].labels &&
                   got[i].annotations == check.expected[i].annotations;
          }
          if (!same) {
            std::string got_text, exp_text;
            for (const auto& s : got) got_text += s.labels_text + " ";
            for (const auto& s : check.expected) exp_text += s.labels_text + " ";
            report.failures.push_back(
                fmt::format("{}: {}: alertname {} at {}: expected [{}] got [{}]", path, test_name,
                            check.alertname, DurationString(check.t_ms), exp_text, got_text));
          }
        }
        if (!options.emit_timeline) continue;
        for (const std::string& name : alert_names) {
          alert_tests += fmt::format("      - eval_time: {}\n        alertname: {}\n",
                                     DurationString(ts), name);
          const auto& got = firing[name];
          if (got.empty()) {
            alert_tests += "        exp_alerts: []\n";
            continue;
          }
          alert_tests += "        exp_alerts:\n";
          for (const AlertSnapshot& s : got) {
            alert_tests += "          - exp_labels:\n";
            for (const auto& [k, v] : s.labels.items()) {
              alert_tests += fmt::format("              {}: {}\n", k, QuoteYaml(v));
            }
            alert_tests += "            exp_annotations:\n";
            for (const auto& [k, v] : s.annotations) {
              alert_tests += fmt::format("              {}: {}\n", k, QuoteYaml(v));
            }
          }
        }
        // Pending alerts are visible to promtool only through the ALERTS series.
        expr_tests += fmt::format(
            "      - expr: 'ALERTS{{alertstate=\"pending\"}}'\n"
            "        eval_time: {}\n",
            DurationString(ts));
        if (pending.empty()) {
          expr_tests += "        exp_samples: []\n";
        } else {
          expr_tests += "        exp_samples:\n";
          for (const Alert* a : pending) {
            Labels l = a->labels;
            l.Set(kMetricNameLabel, "ALERTS");
            l.Set("alertstate", "pending");
            expr_tests += fmt::format("          - labels: {}\n            value: 1\n",
                                      QuoteYaml(l.ToString()));
          }
        }
      }
      timeline += "    alert_rule_test:\n" + alert_tests;
      timeline += "    promql_expr_test:\n" + expr_tests;
    }
    if (options.emit_timeline) report.timeline_yaml = std::move(timeline);
  } catch (const YAML::Exception& e) {
    return MakeError(ErrorCode::kParse, fmt::format("{}: {}", path, e.what()));
  }
  return report;
}

}  // namespace xpuperf::alerts
