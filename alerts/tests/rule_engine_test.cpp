// Rule files and the alert state machine: pending, firing, keep_firing_for, resolution retention,
// templates; and Go's float formatting for {{ $value }}.
#include "xpuperf/alerts/rule_engine.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "xpuperf/alerts/promtool_test.h"
#include "xpuperf/alerts/rule_file.h"
#include "xpuperf/alerts/template.h"

namespace xpuperf::alerts {
namespace {

RuleFile MustParse(const std::string& yaml) {
  auto file = ParseRuleFile(yaml, "rules.yml");
  EXPECT_TRUE(file.ok()) << file.error().message;
  return std::move(*file);
}

TEST(RuleFile, ErrorsNameFileLineAndColumn) {
  auto file = ParseRuleFile(
      "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: rate(x[5m] offset 1m)\n",
      "r.yml");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message,
            "r.yml:5:15: alert A: expr: position 12: offset modifier is outside the subset");
  file = ParseRuleFile(
      "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: x\n"
      "        forr: 5m\n",
      "r.yml");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message, "r.yml:6:9: field forr not found in type rulefmt.Rule");
  file = ParseRuleFile("groups:\n  - name: g\n  - name: g\n", "r.yml");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message, "r.yml:3:5: groupname: \"g\" is repeated in the same file");
  file = ParseRuleFile(
      "groups:\n  - name: g\n    rules:\n      - record: r\n        expr: x\n"
      "        for: 1m\n",
      "r.yml");
  EXPECT_FALSE(file.ok());
  file = ParseRuleFile(
      "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: x\n"
      "        annotations:\n          s: '{{ $value | humanize }}'\n",
      "r.yml");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.error().message.find("outside the supported subset"), std::string::npos);
  file = ParseRuleFile("groups: [", "r.yml");
  EXPECT_FALSE(file.ok());
}

TEST(RuleFile, LongNamesAndActionsAreCheckedWithoutOverflowingTheStack) {
  const std::string name(20000, 'a');
  auto file = ParseRuleFile("groups:\n  - name: g\n    rules:\n      - record: " + name +
                                "\n        expr: x\n        labels:\n          " +
                                std::string(1000, 'l') + ": v\n",
                            "r.yml");
  EXPECT_TRUE(file.ok()) << file.error().message;
  file = ParseRuleFile(
      "groups:\n  - name: g\n    rules:\n      - record: " + name + "-\n        expr: x\n",
      "r.yml");
  EXPECT_FALSE(file.ok());
  auto tmpl = AlertTemplate::Parse("{{ $labels." + name + " }}");
  ASSERT_FALSE(tmpl.ok());
  EXPECT_NE(tmpl.error().message.find("longer than 512 characters"), std::string::npos);
  EXPECT_TRUE(AlertTemplate::Parse("{{ $labels." + std::string(400, 'b') + " }}").ok());
}

TEST(RuleFile, ReadsPrometheusOperatorRules) {
  RuleFile file = MustParse(
      "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata: {name: x}\n"
      "spec:\n  groups:\n    - name: g\n      rules:\n        - alert: A\n          expr: up == "
      "0\n");
  ASSERT_EQ(file.groups.size(), 1u);
  EXPECT_EQ(file.groups[0].rules[0].name, "A");
}

TEST(GoFloat, MatchesFmtSprint) {
  EXPECT_EQ(GoFloatString(96.5), "96.5");
  EXPECT_EQ(GoFloatString(88), "88");
  EXPECT_EQ(GoFloatString(1e6), "1e+06");
  EXPECT_EQ(GoFloatString(123456), "123456");
  EXPECT_EQ(GoFloatString(1234567), "1.234567e+06");
  EXPECT_EQ(GoFloatString(0.0001), "0.0001");
  EXPECT_EQ(GoFloatString(0.00001), "1e-05");
  EXPECT_EQ(GoFloatString(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(GoFloatString(-2.5), "-2.5");
  EXPECT_EQ(GoFloatString(1.0 / 0.0), "+Inf");
}

class Engine : public ::testing::Test {
 protected:
  void Step(RuleEngine& engine, int64_t minute, double value) {
    source_.Append(Labels({{"__name__", "temp"}, {"device", "gpu0"}}), {minute * 60000, value});
    auto errors = engine.EvaluateAll(source_, minute * 60000);
    EXPECT_TRUE(errors.empty());
  }
  AlertState State(const RuleEngine& engine) {
    auto alerts = engine.Alerts();
    return alerts.empty() ? AlertState::kInactive : alerts[0]->state;
  }
  MemorySeriesSource source_;
};

TEST_F(Engine, PendingThenFiringThenKeptFiringThenResolved) {
  std::vector<RuleFile> files;
  files.push_back(MustParse(R"(groups:
  - name: g
    rules:
      - alert: Hot
        expr: temp > 85
        for: 2m
        keep_firing_for: 2m
        labels: {severity: warning, where: '{{ $labels.device }}'}
        annotations: {summary: 'at {{ $value }} C on {{ $labels.device }}'}
)"));
  RuleEngine engine(std::move(files));
  Step(engine, 0, 90);
  EXPECT_EQ(State(engine), AlertState::kPending);
  Step(engine, 1, 91);
  EXPECT_EQ(State(engine), AlertState::kPending);
  Step(engine, 2, 92);
  ASSERT_EQ(State(engine), AlertState::kFiring);
  const Alert& alert = *engine.Alerts()[0];
  EXPECT_EQ(alert.labels.ToString(),
            "{alertname=\"Hot\", device=\"gpu0\", severity=\"warning\", where=\"gpu0\"}");
  EXPECT_EQ(alert.annotations[0].second, "at 92 C on gpu0");
  EXPECT_EQ(alert.active_at_ms, 0);
  EXPECT_EQ(alert.fired_at_ms, 120000);
  Step(engine, 3, 50);  // keep_firing_for: still firing for 2 minutes
  EXPECT_EQ(State(engine), AlertState::kFiring);
  Step(engine, 4, 50);
  EXPECT_EQ(State(engine), AlertState::kFiring);
  Step(engine, 5, 50);
  EXPECT_EQ(State(engine), AlertState::kInactive);
  EXPECT_EQ(engine.Alerts()[0]->resolved_at_ms, 300000);
  Step(engine, 21, 50);  // resolved alerts are kept 15 minutes, then forgotten
  EXPECT_TRUE(engine.Alerts().empty());
}

TEST_F(Engine, PendingAlertThatStopsHoldingIsForgotten) {
  std::vector<RuleFile> files;
  files.push_back(
      MustParse("groups:\n  - name: g\n    rules:\n      - alert: Hot\n        expr: temp > 85\n"
                "        for: 5m\n"));
  RuleEngine engine(std::move(files));
  Step(engine, 0, 90);
  Step(engine, 1, 50);
  EXPECT_TRUE(engine.Alerts().empty());
  Step(engine, 2, 90);
  EXPECT_EQ(engine.Alerts()[0]->active_at_ms, 120000);  // the timer starts again
}

TEST_F(Engine, RestoredAlertsKeepTheirTimers) {
  std::vector<RuleFile> files;
  files.push_back(
      MustParse("groups:\n  - name: g\n    rules:\n      - alert: Hot\n        expr: temp > 85\n"
                "        for: 5m\n"));
  RuleEngine first(files);
  Step(first, 0, 90);
  std::vector<Alert> saved;
  for (const Alert* a : first.Alerts()) saved.push_back(*a);
  RuleEngine second(files);
  second.RestoreAlerts(saved);
  Step(second, 5, 90);
  ASSERT_EQ(State(second), AlertState::kFiring);  // 5 minutes since the first activation
  EXPECT_EQ(second.Alerts()[0]->active_at_ms, 0);
}

}  // namespace
}  // namespace xpuperf::alerts

namespace xpuperf::alerts {
namespace {

TEST(AlertTemplateBounds, AnExpansionIsCutAndSaysSo) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "{{ $labels.big }}";
  auto tmpl = AlertTemplate::Parse(text);
  ASSERT_TRUE(tmpl.ok());
  const std::string out = tmpl->Expand(Labels({{"big", std::string(4096, 'x')}}), 1, Labels());
  EXPECT_LE(out.size(), kMaxExpandedBytes + 64);
  EXPECT_TRUE(out.ends_with("... (cut at 65536 bytes)")) << out.substr(out.size() - 40);
}

TEST(AlertTestBounds, InputSeriesAreBoundedInAll) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("xpuperf-alert-test-bounds-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "rules.yml") << "groups:\n  - name: g\n    rules:\n      - alert: A\n"
                                        "        expr: x > 1\n";
  }
  std::string test = "rule_files: [rules.yml]\ntests:\n  - interval: 1m\n    input_series:\n";
  for (int i = 0; i < 3; ++i) {
    test += "      - series: 'x{i=\"" + std::to_string(i) + "\"}'\n        values: '1+0x9000000'\n";
  }
  { std::ofstream(dir / "test.yml") << test; }
  auto report = RunPromtoolTestFile((dir / "test.yml").string());
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.error().message.find("more than 20000000 samples in all"), std::string::npos)
      << report.error().message;
}

}  // namespace
}  // namespace xpuperf::alerts

namespace xpuperf::alerts {
namespace {

// What promtool refuses is refused here too.
TEST(RuleFile, RefusesWhatPromtoolRefuses) {
  auto with = [](const std::string& rule_lines) {
    return ParseRuleFile(
        "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: up == 0\n" + rule_lines,
        "r.yml");
  };
  auto too_long = with("        for: 300000y\n");
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.error().message.find("out of range"), std::string::npos);
  EXPECT_TRUE(with("        for: 292y\n").ok());
  auto name_label = with("        labels:\n          __name__: x\n");
  ASSERT_FALSE(name_label.ok());
  EXPECT_NE(name_label.error().message.find("invalid label name \"__name__\""), std::string::npos)
      << name_label.error().message;
}

}  // namespace
}  // namespace xpuperf::alerts
