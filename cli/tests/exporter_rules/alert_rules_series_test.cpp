// The shipped rules read only series that `xpuperf serve` exports (named by the exporter's own
// naming function over core's catalog, plus its per-device and per-collector series) or that the
// rule files themselves record. A renamed metric makes this fail instead of a silent alert.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "xpuperf/alerts/rule_file.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/exporter/bench_check_series.h"
#include "xpuperf/exporter/diag_series.h"
#include "xpuperf/exporter/series_naming.h"
#include "xpuperf/serve/health_series.h"

namespace xpuperf::cli {
namespace {

std::set<std::string> ExportedSeries() {
  std::set<std::string> names;
  for (const MetricInfo& info : MetricCatalog()) {
    const exporter::SeriesNaming naming = exporter::NamingFor(info);
    if (naming.type == exporter::FamilyType::kHistogram) {
      for (const char* suffix : {"_bucket", "_sum", "_count"}) names.insert(naming.name + suffix);
    } else {
      names.insert(naming.name);
    }
  }
  // The exporter's own series (exporter/src/snapshot_builder.cpp, docs/EXPORTER.md).
  for (const char* name :
       {"xpuperf_device_up", "xpuperf_device_info", "xpuperf_collector_up",
        "xpuperf_collector_duration_seconds", "xpuperf_collector_last_success_timestamp_seconds",
        "xpuperf_build_info", "xpuperf_exporter_dropped_families_total"}) {
    names.insert(name);
  }
  // `serve --bench-check`: the families its parser and file watcher produce.
  auto bench = exporter::BenchCheckFamilies(
      R"({"rows": [{"component": "network", "metric": "busbw", "achieved_percent": 90,
                   "threshold_percent": 95, "verdict": "FAIL"}]})",
      0, "node");
  EXPECT_TRUE(bench.ok());
  if (bench.ok()) {
    for (const exporter::MetricFamily& family : *bench) names.insert(family.name);
  }
  for (const exporter::MetricFamily& family :
       exporter::BenchCheckFile("/nonexistent/bench-check.json", "node").Families()) {
    names.insert(family.name);
  }
  // `serve --diag-results`: the families of a diag.json and of its file watcher.
  auto diag = exporter::DiagFamilies(
      R"({"level": 2, "result": "fail", "complete": true, "timestamp_ns": 1,
          "tests": [{"test": "memory_pattern", "device": "cpu0", "status": "fail",
                     "code": "DIAG_MEMORY_PATTERN_MISMATCH"}]})",
      0, "node");
  EXPECT_TRUE(diag.ok());
  if (diag.ok()) {
    for (const exporter::MetricFamily& family : *diag) names.insert(family.name);
  }
  for (const exporter::MetricFamily& family :
       exporter::DiagResultsFile("/nonexistent/diag.json", "node").Families())
    names.insert(family.name);
  // serve's health verdicts (serve/health_series.h).
  for (const exporter::MetricFamily& family : serve::HealthFamilies({}, "node"))
    names.insert(family.name);
  return names;
}

// Names a rule selects that are neither exported nor recorded by the file.
std::vector<std::string> UnknownSeries(const alerts::RuleFile& file) {
  const std::set<std::string> exported = ExportedSeries();
  std::set<std::string> recorded;
  for (const auto& group : file.groups) {
    for (const auto& rule : group.rules) {
      if (!rule.is_alert) recorded.insert(rule.name);
    }
  }
  std::vector<std::string> unknown;
  for (const auto& group : file.groups) {
    for (const auto& rule : group.rules) {
      for (const std::string& name : alerts::SelectedMetricNames(*rule.expr)) {
        if (!exported.contains(name) && !recorded.contains(name)) {
          unknown.push_back(rule.name + ": " + name);
        }
      }
    }
  }
  return unknown;
}

TEST(ShippedRules, ReadOnlySeriesTheExporterExports) {
  auto file = alerts::LoadRuleFile(std::string(XPUPERF_SOURCE_DIR) +
                                   "/deploy/prometheus/rules/xpuperf-alerts.yml");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(UnknownSeries(*file), std::vector<std::string>{});
}

TEST(ShippedRules, TheSeriesCheckCanFail) {
  auto file = alerts::ParseRuleFile(
      "groups:\n  - name: g\n    rules:\n      - alert: A\n"
      "        expr: xpuperf_duty_cycle_percent < 5\n",
      "t.yml");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(UnknownSeries(*file), std::vector<std::string>{"A: xpuperf_duty_cycle_percent"});
}

}  // namespace
}  // namespace xpuperf::cli
