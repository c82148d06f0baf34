// `serve --diag-results`: a diag.json as series, every malformed field named, an interrupted
// diagnostic without a pass/fail series, the file's state as xpuperf_diag_up.
#include "xpuperf/exporter/diag_series.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace xpuperf::exporter {
namespace {

const MetricFamily* Find(const std::vector<MetricFamily>& families, const std::string& name) {
  for (const MetricFamily& f : families)
    if (f.name == name) return &f;
  return nullptr;
}

const std::string kDiag = R"({"level": 2, "result": "fail", "complete": true,
  "timestamp_ns": 1765000000000000000, "tests": [
  {"test": "memory_pattern", "device": "cpu0", "status": "pass", "code": "OK"},
  {"test": "performance.compute.bf16", "device": "cpu0", "status": "fail",
   "code": "PERF_BELOW_SPEC"}]})";

TEST(DiagSeriesTest, TestsResultAndTime) {
  auto families = DiagFamilies(kDiag, 0, "node1");
  ASSERT_TRUE(families.ok()) << families.error().message;
  const MetricFamily* passed = Find(*families, "xpuperf_diag_passed");
  ASSERT_NE(passed, nullptr);
  ASSERT_EQ(passed->points.size(), 1u);
  EXPECT_EQ(passed->points[0].value, 0);
  EXPECT_EQ(passed->points[0].labels.Get("level"), "2");
  EXPECT_EQ(passed->points[0].labels.Get("hostname"), "node1");
  const MetricFamily* tests = Find(*families, "xpuperf_diag_test");
  ASSERT_NE(tests, nullptr);
  ASSERT_EQ(tests->points.size(), 2u);
  EXPECT_EQ(tests->points[1].labels.Get("code"), "PERF_BELOW_SPEC");
  EXPECT_EQ(tests->points[1].value, 3);  // fail
  EXPECT_EQ(Find(*families, "xpuperf_diag_timestamp_seconds")->points[0].value, 1765000000);
}

TEST(DiagSeriesTest, AnInterruptedDiagnosticHasNoVerdict) {
  std::string interrupted = kDiag;
  interrupted.replace(interrupted.find("\"complete\": true"), 16, "\"complete\": false");
  auto families = DiagFamilies(interrupted, 0, "");
  ASSERT_TRUE(families.ok());
  EXPECT_EQ(Find(*families, "xpuperf_diag_passed"), nullptr);
  EXPECT_NE(Find(*families, "xpuperf_diag_test"), nullptr);
}

TEST(DiagSeriesTest, MalformedDocumentsNameTheField) {
  for (const auto& [text, field] : std::vector<std::pair<std::string, std::string>>{
           {"[]", "not one JSON object"},
           {"{\"level\": 2}", "'tests'"},
           {R"({"tests": [], "level": 4, "result": "pass", "complete": true})", "'level'"},
           {R"({"tests": [], "level": 1, "result": "maybe", "complete": true})", "'result'"},
           {R"({"tests": [], "level": 1, "result": "pass"})", "'complete'"},
           {R"({"tests": [{"test": "t", "device": "d", "status": "odd", "code": "c"}],
                "level": 1, "result": "pass", "complete": true})",
            "tests[0]: 'status'"},
           {R"({"tests": [{"test": 1}], "level": 1, "result": "pass", "complete": true})",
            "tests[0]: 'test'"}}) {
    auto families = DiagFamilies(text, 0, "");
    ASSERT_FALSE(families.ok()) << text;
    EXPECT_NE(families.error().message.find(field), std::string::npos) << families.error().message;
  }
}

TEST(DiagSeriesTest, TheFileIsReReadWhenItChanges) {
  const std::string path = ::testing::TempDir() + "/diag-" + std::to_string(getpid()) + ".json";
  DiagResultsFile file(path, "node1");
  EXPECT_FALSE(file.Refresh().ok());  // missing
  EXPECT_EQ(Find(file.Families(), "xpuperf_diag_up")->points[0].value, 0);
  std::ofstream(path) << kDiag;
  EXPECT_TRUE(file.Refresh().ok());
  EXPECT_EQ(Find(file.Families(), "xpuperf_diag_up")->points[0].value, 1);
  EXPECT_NE(Find(file.Families(), "xpuperf_diag_test"), nullptr);
  std::ofstream(path) << "{not json";
  EXPECT_FALSE(file.Refresh().ok());
  // The last good read is kept; up says the file is bad.
  EXPECT_EQ(Find(file.Families(), "xpuperf_diag_up")->points[0].value, 0);
  EXPECT_NE(Find(file.Families(), "xpuperf_diag_test"), nullptr);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace xpuperf::exporter
