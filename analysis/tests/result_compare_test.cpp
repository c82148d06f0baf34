#include "xpuperf/analysis/result_compare.h"

#include <gtest/gtest.h>

namespace xpuperf::analysis {
namespace {

bench::ResultRecord Record(const std::string& metric, double value, const std::string& unit,
                           std::vector<double> samples, nlohmann::json parameters = {}) {
  bench::ResultRecord r;
  r.measurement.benchmark = "bench";
  r.measurement.metric = metric;
  r.measurement.value = value;
  r.measurement.unit = unit;
  r.measurement.parameters = parameters.is_null() ? nlohmann::json::object() : parameters;
  r.measurement.sample_seconds = std::move(samples);
  return r;
}

const MetricComparison* Find(const ComparisonReport& report, const std::string& metric) {
  for (const MetricComparison& c : report.compared) {
    if (c.metric == metric) return &c;
  }
  return nullptr;
}

TEST(ResultCompareTest, DirectionFollowsTheUnit) {
  EXPECT_EQ(BetterDirection("GB/s", "triad_bandwidth"), 1);
  EXPECT_EQ(BetterDirection("GFLOP/s", "fp64_flops"), 1);
  EXPECT_EQ(BetterDirection("us", "all_reduce_latency"), -1);
  EXPECT_EQ(BetterDirection("s", "step"), -1);
  EXPECT_EQ(BetterDirection("ns", "x"), -1);
  EXPECT_EQ(BetterDirection("bytes", "l2_size"), 0);
}

TEST(ResultCompareTest, ClassifiesRegressionsImprovementsAndNoise) {
  bench::ResultDirectory old_run, new_run;
  old_run.path = "old";
  new_run.path = "new";
  // Throughput from times: 5 samples each, no ties, completely separated -> exact p = 2/252.
  old_run.records.push_back(Record("triad_bandwidth", 30, "GB/s", {1.0, 1.01, 1.02, 0.99, 0.995}));
  new_run.records.push_back(Record("triad_bandwidth", 24, "GB/s", {1.25, 1.26, 1.24, 1.27, 1.255}));
  // Faster samples of a throughput: improved.
  old_run.records.push_back(Record("fp64_flops", 100, "GFLOP/s", {2.0, 2.1, 2.05, 2.02, 2.08}));
  new_run.records.push_back(Record("fp64_flops", 110, "GFLOP/s", {1.8, 1.82, 1.85, 1.81, 1.83}));
  // Interleaved samples: noise, even with a 2% median change.
  old_run.records.push_back(Record("scale_bandwidth", 50, "GB/s", {1.0, 1.2, 1.1, 1.3, 1.05}));
  new_run.records.push_back(Record("scale_bandwidth", 49, "GB/s", {1.02, 1.25, 1.15, 1.12, 1.01}));
  // Latency went up: regressed (lower is better).
  old_run.records.push_back(Record("all_reduce_latency", 10, "us", {10, 10.1, 10.2, 9.9, 10}));
  new_run.records.push_back(Record("all_reduce_latency", 12, "us", {12, 12.1, 12.2, 11.9, 12}));
  const ComparisonReport report = CompareResults(old_run, new_run);

  const MetricComparison* triad = Find(report, "triad_bandwidth");
  ASSERT_NE(triad, nullptr);
  EXPECT_DOUBLE_EQ(*triad->change_percent, -20);
  ASSERT_TRUE(triad->test.has_value());
  EXPECT_NEAR(triad->test->p_value, 2.0 / 252, 1e-12);
  EXPECT_FALSE(triad->ranges_overlap);
  EXPECT_TRUE(triad->outside_noise);
  EXPECT_EQ(triad->verdict, ChangeVerdict::kRegressed);

  const MetricComparison* flops = Find(report, "fp64_flops");
  ASSERT_NE(flops, nullptr);
  EXPECT_DOUBLE_EQ(*flops->change_percent, 10);
  EXPECT_EQ(flops->verdict, ChangeVerdict::kImproved);

  const MetricComparison* scale = Find(report, "scale_bandwidth");
  ASSERT_NE(scale, nullptr);
  EXPECT_TRUE(scale->ranges_overlap);
  EXPECT_GT(scale->test->p_value, 0.05);
  EXPECT_EQ(scale->verdict, ChangeVerdict::kUnchanged);

  const MetricComparison* latency = Find(report, "all_reduce_latency");
  ASSERT_NE(latency, nullptr);
  EXPECT_DOUBLE_EQ(*latency->change_percent, 20);
  EXPECT_EQ(latency->verdict, ChangeVerdict::kRegressed);

  EXPECT_EQ(report.Count(ChangeVerdict::kRegressed), 2);
  EXPECT_EQ(report.Count(ChangeVerdict::kImproved), 1);
  EXPECT_EQ(report.Count(ChangeVerdict::kUnchanged), 1);
  // --fail-on-regression: both regressions are 20%.
  EXPECT_EQ(report.RegressionsOver(10).size(), 2u);
  EXPECT_EQ(report.RegressionsOver(20).size(), 0u);  // larger than, not equal
}

TEST(ResultCompareTest, TooFewSamplesFallBackToTheRanges) {
  bench::ResultDirectory old_run, new_run;
  old_run.records.push_back(Record("read_bandwidth", 100, "GB/s", {1.0, 1.1, 1.05}));
  new_run.records.push_back(Record("read_bandwidth", 50, "GB/s", {2.0, 2.1, 2.05}));
  old_run.records.push_back(Record("copy_bandwidth", 100, "GB/s", {1.0, 1.1, 1.05}));
  new_run.records.push_back(Record("copy_bandwidth", 98, "GB/s", {1.02, 1.12, 1.07}));
  const ComparisonReport report = CompareResults(old_run, new_run);
  const MetricComparison* apart = Find(report, "read_bandwidth");
  ASSERT_NE(apart, nullptr);
  EXPECT_NEAR(apart->test->p_value, 0.1, 1e-12);  // 3 vs 3: the test alone cannot decide
  EXPECT_FALSE(apart->ranges_overlap);
  EXPECT_TRUE(apart->outside_noise);
  EXPECT_NE(apart->basis.find("min-max ranges (3 vs 3 samples"), std::string::npos);
  EXPECT_EQ(apart->verdict, ChangeVerdict::kRegressed);
  EXPECT_EQ(Find(report, "copy_bandwidth")->verdict, ChangeVerdict::kUnchanged);
}

TEST(ResultCompareTest, MatchesOnParametersAndListsOneSidedMetrics) {
  bench::ResultDirectory old_run, new_run;
  const std::vector<double> s = {1, 1.1, 1.2, 1.3, 1.4};
  old_run.records.push_back(Record("fp32_flops", 1, "GFLOP/s", s, {{"m", 1024}}));
  old_run.records.push_back(Record("fp32_flops", 2, "GFLOP/s", s, {{"m", 2048}}));
  old_run.records.push_back(Record("gone", 3, "GB/s", s));
  new_run.records.push_back(Record("fp32_flops", 2, "GFLOP/s", s, {{"m", 2048}}));
  new_run.records.push_back(Record("fp32_flops", 4, "GFLOP/s", s, {{"m", 4096}}));
  new_run.records.push_back(Record("no_samples", 4, "GB/s", {}));
  old_run.records.push_back(Record("no_samples", 5, "GB/s", {}));
  const ComparisonReport report = CompareResults(old_run, new_run);
  ASSERT_EQ(report.compared.size(), 2u);
  EXPECT_EQ(report.compared[0].parameters["m"], 2048);
  EXPECT_EQ(report.compared[0].verdict, ChangeVerdict::kUnchanged);  // identical samples
  EXPECT_EQ(report.compared[1].verdict, ChangeVerdict::kNoSamples);
  ASSERT_EQ(report.only_old.size(), 2u);
  EXPECT_EQ(report.only_old[0].parameters["m"], 1024);
  EXPECT_EQ(report.only_old[1].metric, "gone");
  ASSERT_EQ(report.only_new.size(), 1u);
  EXPECT_EQ(report.only_new[0].parameters["m"], 4096);

  const nlohmann::json json = ToJson(report);
  EXPECT_EQ(json["summary"]["only_old"], 2);
  EXPECT_EQ(json["summary"]["only_new"], 1);
  EXPECT_EQ(json["compared"][0]["verdict"], "unchanged (noise)");
}

TEST(ResultCompareTest, MeasuredParametersDoNotPreventAMatch) {
  bench::ResultDirectory old_run, new_run;
  const std::vector<double> s = {1, 1.1, 1.2};
  // Attention records carry the GEMM rate measured in the same run as a parameter.
  old_run.records.push_back(
      Record("fp32_flops", 17, "GFLOP/s", s, {{"seq_len", 512}, {"fp32_gemm_gflops", 30.64}}));
  new_run.records.push_back(
      Record("fp32_flops", 9, "GFLOP/s", s, {{"seq_len", 512}, {"fp32_gemm_gflops", 32.39}}));
  // Whole numbers are settings: a different seq_len is a different measurement.
  new_run.records.push_back(
      Record("fp32_flops", 9, "GFLOP/s", s, {{"seq_len", 1024.0}, {"fp32_gemm_gflops", 32.39}}));
  const ComparisonReport report = CompareResults(old_run, new_run);
  ASSERT_EQ(report.compared.size(), 1u);
  EXPECT_EQ(report.compared[0].old_value, 17);
  EXPECT_EQ(report.compared[0].parameters["seq_len"], 512);
  EXPECT_TRUE(report.only_old.empty());
  ASSERT_EQ(report.only_new.size(), 1u);
  EXPECT_EQ(report.only_new[0].parameters["seq_len"], 1024.0);
}

TEST(ResultCompareTest, TheRunsClockAndSoftwareVersionsDoNotPreventAMatch) {
  bench::ResultDirectory old_run, new_run;
  const std::vector<double> s = {1, 1.1, 1.2};
  // peak_fma records describe the clock each run measured; PJRT records the plugin they ran on.
  old_run.records.push_back(
      Record("fp64_flops", 17, "GFLOP/s", s,
             {{"precision", "fp64"}, {"clock", {{"measured", {{"hertz", 3.16e9}}}}}}));
  new_run.records.push_back(
      Record("fp64_flops", 18, "GFLOP/s", s,
             {{"precision", "fp64"}, {"clock", {{"measured", {{"hertz", 3.21e9}}}}}}));
  old_run.records.push_back(Record("bf16_flops", 180000, "GFLOP/s", s,
                                   {{"m", 8192},
                                    {"platform", "tpu"},
                                    {"plugin", "/old/libtpu.so"},
                                    {"platform_version", "libtpu 0.0.20"},
                                    {"pjrt_api", "0.70"}}));
  new_run.records.push_back(Record("bf16_flops", 185000, "GFLOP/s", s,
                                   {{"m", 8192},
                                    {"platform", "tpu"},
                                    {"plugin", "/new/libtpu.so"},
                                    {"platform_version", "libtpu 0.0.21"},
                                    {"pjrt_api", "0.72"}}));
  // A different platform is a different measurement.
  new_run.records.push_back(Record("bf16_flops", 90, "GFLOP/s", s,
                                   {{"m", 8192}, {"platform", "cpu"}, {"plugin", "/x.so"}}));
  const ComparisonReport report = CompareResults(old_run, new_run);
  ASSERT_EQ(report.compared.size(), 2u);
  ASSERT_NE(Find(report, "fp64_flops"), nullptr);
  ASSERT_NE(Find(report, "bf16_flops"), nullptr);
  EXPECT_EQ(Find(report, "bf16_flops")->old_value, 180000);
  EXPECT_EQ(Find(report, "bf16_flops")->new_value, 185000);
  EXPECT_TRUE(report.only_old.empty());
  ASSERT_EQ(report.only_new.size(), 1u);
  EXPECT_EQ(report.only_new[0].parameters["platform"], "cpu");
}

TEST(ResultCompareTest, RepeatedKeysPairInOrder) {
  bench::ResultDirectory old_run, new_run;
  const std::vector<double> s = {1, 1.1, 1.2};
  old_run.records = {Record("x", 1, "GB/s", s), Record("x", 2, "GB/s", s)};
  new_run.records = {Record("x", 1, "GB/s", s), Record("x", 2, "GB/s", s)};
  const ComparisonReport report = CompareResults(old_run, new_run);
  ASSERT_EQ(report.compared.size(), 2u);
  EXPECT_EQ(report.compared[1].old_value, 2);
  EXPECT_EQ(report.compared[1].new_value, 2);
}

}  // namespace
}  // namespace xpuperf::analysis

namespace xpuperf::analysis {
namespace {

// The busy run: clearly separated samples, but the new side is marked unstable. Never
// "regressed"; and a shift within the samples' own scatter is noise however the test comes out.
TEST(ResultCompareTest, UnstablePointsAndShiftsWithinTheSpreadAreNotJudged) {
  bench::ResultDirectory old_run, new_run;
  old_run.records.push_back(Record("fp32_flops", 72, "GFLOP/s", {1.0, 1.01, 1.02, 0.99, 0.995}));
  new_run.records.push_back(Record("fp32_flops", 8.4, "GFLOP/s", {8.6, 8.5, 8.7, 8.55, 8.65}));
  bench::MarkUnstable(new_run.records[0].measurement, "busy machine: other processes used 90%");
  // 8% slower with completely separated samples (the test rejects), but each side's robust CV is
  // 5.9%: a shift within twice that is the samples' own scatter.
  const std::vector<double> a = {0.96, 1.04, 0.96, 1.04, 0.96, 1.04, 0.96, 1.04};
  std::vector<double> b;
  for (double x : a) b.push_back(x + 0.09);
  old_run.records.push_back(Record("triad_bandwidth", 30, "GB/s", a));
  new_run.records.push_back(Record("triad_bandwidth", 27.5, "GB/s", b));
  for (auto* run : {&old_run, &new_run}) {
    for (auto& r : run->records) {
      r.measurement.statistics = bench::ComputeStatistics(r.measurement.sample_seconds);
    }
  }
  const ComparisonReport report = CompareResults(old_run, new_run);
  const MetricComparison* flops = Find(report, "fp32_flops");
  ASSERT_NE(flops, nullptr);
  EXPECT_EQ(flops->verdict, ChangeVerdict::kUnstable);
  EXPECT_EQ(flops->unstable_reasons,
            std::vector<std::string>{"new: busy machine: other processes used 90%"});
  EXPECT_EQ(report.Count(ChangeVerdict::kRegressed), 0);
  const MetricComparison* triad = Find(report, "triad_bandwidth");
  ASSERT_NE(triad, nullptr);
  EXPECT_EQ(triad->verdict, ChangeVerdict::kUnchanged);
  EXPECT_NE(triad->basis.find("within twice the samples' robust CV"), std::string::npos)
      << triad->basis;
  EXPECT_EQ(ToJson(report)["summary"]["unstable"], 1);
}

}  // namespace
}  // namespace xpuperf::analysis
