#include "xpuperf/roofline/workload.h"

#include <gtest/gtest.h>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::roofline {
namespace {

TEST(Workload, ListOfEntriesWithCountsAndHelpers) {
  const auto w = ParseWorkload(R"(
- name: custom
  flops: 1e9
  bytes: 2e8
  host_bytes: 1e6
  time_ms: 5
- name: qkv
  gemm: {m: 1024, n: 1024, k: 1024, dtype: bf16}
  time_us: 250
- name: ar
  collective: {op: all_reduce, bytes: 1e8, ranks: 4}
)",
                               "w.yaml");
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_EQ(w->points.size(), 3u);
  EXPECT_EQ(w->points[0].flops, 1e9);
  EXPECT_EQ(w->points[0].bytes, 2e8);
  EXPECT_EQ(w->points[0].host_bytes, 1e6);
  EXPECT_DOUBLE_EQ(*w->points[0].time_seconds, 0.005);
  EXPECT_EQ(w->points[1].op, "gemm");
  EXPECT_EQ(w->points[1].dtype, "bf16");
  EXPECT_EQ(w->points[1].flops, 2147483648.0);
  EXPECT_EQ(w->points[1].bytes, 3 * 1048576 * 2.0);
  EXPECT_DOUBLE_EQ(*w->points[1].time_seconds, 250e-6);
  EXPECT_EQ(w->points[2].collective_bytes, 1.5e8);
  EXPECT_EQ(w->points[2].collective_message_bytes, 1e8);
  EXPECT_FALSE(w->points[2].time_seconds.has_value());
}

TEST(Workload, MapWithMemoryAndJson) {
  const auto w = ParseWorkload(
      R"({"name": "layer", "memory": {"peak_bytes": 7e10, "capacity_bytes": 8e10},
          "points": [{"name": "ln", "elementwise": {"elements": 1e6, "inputs": 1, "outputs": 1,
                      "flops_per_element": 8}, "bytes_by_level": {"L2": 5e6}}]})",
      "w.json");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->name, "layer");
  ASSERT_TRUE(w->memory.has_value());
  EXPECT_EQ(w->memory->peak_bytes, 7e10);
  EXPECT_EQ(w->points[0].flops, 8e6);
  EXPECT_EQ(w->points[0].bytes, 8e6);
  EXPECT_EQ(w->points[0].bytes_by_level.at("L2"), 5e6);
}

TEST(Workload, ErrorsNameTheFileAndLine) {
  auto bad = ParseWorkload("- name: a\n  flops: lots\n", "w.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kParse);
  EXPECT_NE(bad.error().message.find("w.yaml:2"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(ParseWorkload("- name: empty\n", "w.yaml").ok());  // nothing to bound it
  EXPECT_FALSE(ParseWorkload("- {name: t, flops: 1, time: 0}\n", "w.yaml").ok());
  EXPECT_FALSE(ParseWorkload("- {name: t, flops: 1, dtype: fp4}\n", "w.yaml").ok());
  EXPECT_FALSE(
      ParseWorkload("- {name: t, gemm: {m: 1, n: 1, k: 1}, elementwise: {elements: 1}}\n", "w")
          .ok());
  EXPECT_FALSE(ParseWorkload("- {name: t, gemm: {m: 1, n: 1}}\n", "w").ok());
  EXPECT_FALSE(ParseWorkload("[unclosed\n", "w").ok());
  EXPECT_FALSE(ParseWorkload("", "w").ok());
  EXPECT_FALSE(ParseWorkload("{name: x}\n", "w").ok());
  EXPECT_EQ(LoadWorkload("/nonexistent/w.yaml").error().code, ErrorCode::kNotFound);
}

TEST(Workload, RecordedOpTimesFillMatchingPoints) {
  Workload w;
  WorkloadPoint matmul;
  matmul.name = "matmul";
  matmul.flops = 100;
  matmul.bytes = 10;
  WorkloadPoint other = matmul;
  other.name = "other";
  w.points = {matmul, other};
  Distribution d = Distribution::WithBounds({1e-3, 1e-2});
  d.Add(2e-3);
  d.Add(4e-3);
  Reading reading;
  reading.metric = std::string(metrics::kOpExecutionTime);
  reading.device = "cpu0";
  Sample sample;
  sample.labels = Labels{{"device", "cpu0"}, {"op", "matmul"}};
  sample.value = d;
  reading.samples.push_back(sample);
  EXPECT_EQ(ApplyRecordedTimes({reading}, w), 1);
  EXPECT_DOUBLE_EQ(*w.points[0].time_seconds, 6e-3);  // total of 2 calls
  EXPECT_EQ(w.points[0].flops, 200);
  EXPECT_EQ(w.points[0].bytes, 20);
  EXPECT_FALSE(w.points[1].time_seconds.has_value());
}

}  // namespace
}  // namespace xpuperf::roofline
