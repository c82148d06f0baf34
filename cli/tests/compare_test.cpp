// `xpuperf compare` on hand-made result directories (tests/data/compare): old -> new has a clear
// regression (stream triad, -20.3%), an improvement (fp64 +12.6%), noise (copy) and one metric on
// each side only; old -> noise is a rerun whose samples interleave with the old ones.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "test_util.h"
#include "xpuperf/bench_commands/compare_command.h"
#include "xpuperf/core/exit_code.h"

namespace xpuperf::cli {
namespace {

const std::string kData = std::string(XPUPERF_TEST_DATA_DIR) + "/compare";

struct Output {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Output Compare(const std::string& old_dir, const std::string& new_dir,
               std::optional<double> fail_on = std::nullopt, bool json = false) {
  bench_commands::CompareOptions options;
  options.old_path = old_dir;
  options.new_path = new_dir;
  options.fail_on_regression_percent = fail_on;
  options.json = json;
  std::ostringstream out, err;
  Output result;
  result.exit_code = bench_commands::RunCompare(options, out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The table row of `metric`.
std::string Row(const std::string& text, const std::string& metric) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find(" " + metric + " ") != std::string::npos) return line;
  }
  return "";
}

TEST(CompareTest, FlagsRegressionImprovementAndNoise) {
  const Output r = Compare(kData + "/old", kData + "/new");
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;  // no --fail-on-regression: report only
  // triad: 30 GB/s -> 30 / 1.255 = 23.904 GB/s, -20.3%, 5 vs 5 samples apart: p = 2/252.
  const std::string triad = Row(r.out, "triad_bandwidth");
  EXPECT_TRUE(Contains(triad, "-20.3%")) << r.out;
  EXPECT_TRUE(Contains(triad, "0.00794")) << triad;
  EXPECT_TRUE(Contains(triad, "apart")) << triad;
  EXPECT_TRUE(Contains(triad, "regressed")) << triad;
  // fp64: 205 / 2.05 = 100 -> 205 / 1.82 = 112.64 GFLOP/s, +12.6%.
  const std::string fp64 = Row(r.out, "fp64_flops");
  EXPECT_TRUE(Contains(fp64, "+12.6%")) << r.out;
  EXPECT_TRUE(Contains(fp64, "improved")) << fp64;
  // copy: 22 / 1.10 = 20 -> 22 / 1.12 = 19.64, -1.8%, samples interleave.
  const std::string copy = Row(r.out, "copy_bandwidth");
  EXPECT_TRUE(Contains(copy, "-1.8%")) << r.out;
  EXPECT_TRUE(Contains(copy, "overlap")) << copy;
  EXPECT_TRUE(Contains(copy, "unchanged (noise)")) << copy;
  EXPECT_TRUE(Contains(r.out, "Only in OLD (1):\n  cache_sweep L3_read_bandwidth level=L3"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "Only in NEW (1):\n  attention attention_flops seq=1024")) << r.out;
  EXPECT_TRUE(Contains(r.out,
                       "3 compared: 1 improved, 1 regressed, 1 unchanged (noise); 1 only "
                       "in OLD, 1 only in NEW"))
      << r.out;
}

TEST(CompareTest, FailOnRegressionThreshold) {
  Output r = Compare(kData + "/old", kData + "/new", 10.0);
  EXPECT_EQ(r.exit_code, kExitFailure);
  EXPECT_TRUE(Contains(r.out,
                       "FAIL: 1 regression(s) outside the noise larger than 10%: stream "
                       "triad_bandwidth -20.3%"))
      << r.out;
  r = Compare(kData + "/old", kData + "/new", 25.0);
  EXPECT_EQ(r.exit_code, kExitOk);
  EXPECT_TRUE(Contains(r.out, "PASS: no regression outside the noise larger than 25%")) << r.out;
  // A rerun within the noise passes even a 0% threshold.
  r = Compare(kData + "/old", kData + "/noise", 0.0);
  EXPECT_EQ(r.exit_code, kExitOk) << r.out;
  EXPECT_TRUE(Contains(r.out, "4 compared: 0 improved, 0 regressed, 4 unchanged (noise)")) << r.out;
}

TEST(CompareTest, JsonOutput) {
  const Output r = Compare(kData + "/old", kData + "/new", 10.0, true);
  EXPECT_EQ(r.exit_code, kExitFailure);
  const nlohmann::json json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["failed"], true);
  EXPECT_EQ(json["summary"]["regressed"], 1);
  EXPECT_EQ(json["summary"]["improved"], 1);
  EXPECT_EQ(json["only_old"][0]["metric"], "L3_read_bandwidth");
  EXPECT_EQ(json["only_new"][0]["metric"], "attention_flops");
  const nlohmann::json& triad = json["compared"][0];
  EXPECT_EQ(triad["metric"], "triad_bandwidth");
  EXPECT_NEAR(triad["mann_whitney"]["p_value"].get<double>(), 2.0 / 252, 1e-12);
  EXPECT_EQ(triad["mann_whitney"]["method"], "exact");
  EXPECT_EQ(triad["ranges_overlap"], false);
  EXPECT_NEAR(triad["change_percent"].get<double>(), 100 * (30 / 1.255 - 30) / 30, 1e-3);
}

TEST(CompareTest, ErrorPaths) {
  Output r = Compare(kData + "/old", kData + "/missing");
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_EQ(r.err, "xpuperf compare: error: no such file or directory: " + kData + "/missing\n");
  r = Compare(kData + "/old", kData + "/malformed");
  EXPECT_EQ(r.exit_code, kExitFailure);
  EXPECT_EQ(r.err, "xpuperf compare: error: " + kData +
                       "/malformed/results.jsonl:2: missing text field 'metric'\n");
  EXPECT_TRUE(r.out.empty());
  // Two files are compared as traces: a results.jsonl is not one.
  r = Compare(kData + "/old/results.jsonl", kData + "/new/results.jsonl");
  EXPECT_EQ(r.exit_code, kExitFailure);
  EXPECT_TRUE(Contains(r.err, "xpuperf compare: error: ")) << r.err;
  EXPECT_TRUE(Contains(r.err, "malformed JSON at byte")) << r.err;
  r = Compare(kData + "/old", kData + "/new/results.jsonl");
  EXPECT_EQ(r.exit_code, kExitUsage);
  r = Compare(kData + "/old", kData + "/new", -1.0);
  EXPECT_EQ(r.exit_code, kExitUsage);
  // A directory without results.jsonl.
  r = Compare(kData, kData + "/new");
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_TRUE(Contains(r.err, "has no results.jsonl")) << r.err;
}

TEST(CompareTest, CommandLine) {
  using testing::RunXpuperf;
  auto r = RunXpuperf({"compare", kData + "/old", kData + "/new", "--fail-on-regression", "5"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(Contains(r.out, "regressed")) << r.out;
  r = RunXpuperf({"compare", kData + "/old", kData + "/noise", "--fail-on-regression", "5"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = RunXpuperf({"compare", kData + "/old", kData + "/new", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["summary"]["only_new"], 1);
  r = RunXpuperf({"compare", kData + "/old"});
  EXPECT_EQ(r.exit_code, 2);
  r = RunXpuperf({"compare", kData + "/old/results.jsonl", kData + "/new/results.jsonl"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("malformed JSON at byte"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace xpuperf::cli
