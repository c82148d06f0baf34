#include "xpuperf/exporter/bench_check_series.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace xpuperf::exporter {
namespace {

constexpr const char* kCheck = R"({
  "json_schema_version": 1, "sheet_device": "NVIDIA H100", "run_device": "NVIDIA H100 80GB HBM3",
  "passed": false, "checked_at_unix_seconds": 1764600000.5,
  "rows": [
    {"component": "compute", "metric": "bf16 tensor FLOP/s", "achieved_percent": 93.5,
     "threshold_percent": 90, "verdict": "PASS"},
    {"component": "network", "metric": "busbw", "achieved_percent": 91.0,
     "threshold_percent": 95, "verdict": "FAIL"},
    {"component": "memory", "metric": "triad bandwidth", "achieved_percent": null,
     "threshold_percent": 80, "verdict": "not measured"}]})";

const MetricFamily& FamilyNamed(const std::vector<MetricFamily>& families, std::string_view name) {
  for (const MetricFamily& f : families) {
    if (f.name == name) return f;
  }
  static const MetricFamily kNone;
  ADD_FAILURE() << "no family " << name;
  return kNone;
}

double ValueFor(const MetricFamily& family, std::string_view component) {
  for (const ScalarPoint& p : family.points) {
    if (p.labels.Get("component") == component) return p.value;
  }
  return -1;
}

TEST(BenchCheckSeriesTest, RowsBecomeRatiosPassFlagsAndATimestamp) {
  Result<std::vector<MetricFamily>> families = BenchCheckFamilies(kCheck, 5, "node1");
  ASSERT_TRUE(families.ok()) << families.error().message;
  const MetricFamily& achieved = FamilyNamed(*families, "xpuperf_bench_check_achieved_ratio");
  ASSERT_EQ(achieved.points.size(), 2u);  // the unmeasured row has no ratio
  EXPECT_DOUBLE_EQ(ValueFor(achieved, "compute"), 0.935);
  EXPECT_DOUBLE_EQ(ValueFor(achieved, "network"), 0.91);
  EXPECT_EQ(achieved.points[0].labels.Get("hostname"), "node1");
  EXPECT_EQ(achieved.points[0].labels.Get("metric"), "bf16 tensor FLOP/s");
  const MetricFamily& threshold = FamilyNamed(*families, "xpuperf_bench_check_threshold_ratio");
  EXPECT_EQ(threshold.points.size(), 3u);
  EXPECT_DOUBLE_EQ(ValueFor(threshold, "network"), 0.95);
  const MetricFamily& passed = FamilyNamed(*families, "xpuperf_bench_check_passed");
  ASSERT_EQ(passed.points.size(), 2u);  // only rows with a verdict of pass or fail
  EXPECT_EQ(ValueFor(passed, "compute"), 1);
  EXPECT_EQ(ValueFor(passed, "network"), 0);
  const MetricFamily& timestamp = FamilyNamed(*families, "xpuperf_bench_check_timestamp_seconds");
  ASSERT_EQ(timestamp.points.size(), 1u);
  EXPECT_DOUBLE_EQ(timestamp.points[0].value, 1764600000.5);
  const MetricFamily& info = FamilyNamed(*families, "xpuperf_bench_check_info");
  EXPECT_EQ(info.type, FamilyType::kInfo);
  EXPECT_EQ(info.points[0].labels.Get("run_device"), "NVIDIA H100 80GB HBM3");
}

TEST(BenchCheckSeriesTest, MissingCheckTimeFallsBackToTheFileTime) {
  Result<std::vector<MetricFamily>> families = BenchCheckFamilies(R"({"rows": []})", 1234, "");
  ASSERT_TRUE(families.ok());
  const MetricFamily& timestamp = FamilyNamed(*families, "xpuperf_bench_check_timestamp_seconds");
  EXPECT_EQ(timestamp.points[0].value, 1234);
  EXPECT_TRUE(timestamp.points[0].labels.Get("hostname").empty());
}

TEST(BenchCheckSeriesTest, MalformedDocumentsNameTheProblem) {
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"", "not one JSON object"},
           {"[1]", "not one JSON object"},
           {R"({"rows": 3})", "'rows'"},
           {R"({"rows": [7]})", "not an object"},
           {R"({"rows": [{"metric": "x"}]})", "'component'"},
           {R"({"rows": [{"component": "c", "metric": "m", "achieved_percent": "high"}]})",
            "'achieved_percent'"},
           {R"({"rows": [], "checked_at_unix_seconds": true})", "checked_at_unix_seconds"}}) {
    Result<std::vector<MetricFamily>> families = BenchCheckFamilies(text, 0, "h");
    ASSERT_FALSE(families.ok()) << text;
    EXPECT_NE(families.error().message.find(needle), std::string::npos)
        << text << " -> " << families.error().message;
  }
}

TEST(BenchCheckSeriesTest, FileIsReReadWhenItChangesAndUpSaysWhetherItParsed) {
  const std::string path = testing::TempDir() + "bench-check-" + std::to_string(getpid()) + ".json";
  BenchCheckFile file(path, "node1");
  EXPECT_FALSE(file.Refresh().ok());  // missing
  std::vector<MetricFamily> families = file.Families();
  ASSERT_EQ(families.size(), 1u);
  EXPECT_EQ(families[0].name, "xpuperf_bench_check_up");
  EXPECT_EQ(families[0].points[0].value, 0);

  std::ofstream(path) << kCheck;
  ASSERT_TRUE(file.Refresh().ok());
  families = file.Families();
  EXPECT_EQ(FamilyNamed(families, "xpuperf_bench_check_up").points[0].value, 1);
  EXPECT_EQ(FamilyNamed(families, "xpuperf_bench_check_passed").points.size(), 2u);

  std::ofstream(path) << "{not json";  // a different size: re-read, refused, last good kept
  const Status bad = file.Refresh();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find(path), std::string::npos) << bad.error().message;
  families = file.Families();
  EXPECT_EQ(FamilyNamed(families, "xpuperf_bench_check_up").points[0].value, 0);
  EXPECT_EQ(FamilyNamed(families, "xpuperf_bench_check_passed").points.size(), 2u);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace xpuperf::exporter
