#include "xpuperf/bench/suite.h"

#include <gtest/gtest.h>

namespace xpuperf::bench {
namespace {

TEST(SuiteTest, ReadsSweepsAndSamplingOverrides) {
  const char* yaml =
      "name: t\n"
      "sampling: {samples: 4, min_sample_seconds: 0.002}\n"
      "benchmarks:\n"
      "  - benchmark: gemm\n"
      "    sweep: [{precision: fp32, m: 8, n: 16, k: 32}]\n"
      "    sampling: {samples: 2}\n"
      "  - benchmark: stream\n";
  Result<Suite> suite = ParseSuite(yaml, "t.yaml");
  ASSERT_TRUE(suite.ok()) << suite.error().message;
  ASSERT_EQ(suite->entries.size(), 2u);
  EXPECT_EQ(suite->entries[0].line, 4);
  EXPECT_EQ(suite->entries[0].sweep[0]["m"], 8);
  EXPECT_EQ(suite->entries[0].sweep[0]["precision"], "fp32");
  EXPECT_EQ(suite->entries[0].sampling.samples, 2);
  EXPECT_DOUBLE_EQ(suite->entries[0].sampling.min_sample_seconds, 0.002);
  EXPECT_EQ(suite->entries[1].sampling.samples, 4);
  EXPECT_TRUE(suite->entries[1].sweep.empty());
}

std::string ErrorOf(const std::string& yaml) {
  Result<Suite> suite = ParseSuite(yaml, "bad.yaml");
  return suite.ok() ? "" : suite.error().message;
}

TEST(SuiteTest, ErrorsNameTheLine) {
  EXPECT_EQ(
      ErrorOf("name: x\nbenchmarks:\n  - benchmark: gemm\n    sweep: [{m: 1}\n").substr(0, 11),
      "bad.yaml:5:");
  EXPECT_EQ(ErrorOf("name: x\nbenchmarks:\n  - benchmark: gemm\n    sweeps: []\n"),
            "bad.yaml:4: unknown key 'sweeps' (known: benchmark, sweep, sampling, devices)");
  EXPECT_EQ(ErrorOf("name: x\nsampling: {samples: many}\nbenchmarks: [{benchmark: gemm}]\n"),
            "bad.yaml:2: 'samples' must be a number");
  EXPECT_EQ(ErrorOf("name: x\nbenchmarks: []\n"), "bad.yaml:1: the suite lists no benchmarks");
  EXPECT_EQ(ErrorOf("- just\n- a list\n"), "bad.yaml:1: a suite must be a mapping");
  // Bytes that are not UTF-8 (found by the suite fuzzer: writing the point as JSON threw).
  EXPECT_EQ(
      ErrorOf("name: x\nbenchmarks:\n  - {benchmark: gemm, sweep: [{precision: \"fp\x8e\"}]}\n"),
      "bad.yaml:3: not UTF-8 text (byte 65)");
  EXPECT_EQ(ErrorOf("name: \xc0\xaf\n"), "bad.yaml:1: not UTF-8 text (byte 6)");  // overlong
}

TEST(SuiteTest, ReadsDeviceClassesAndTheTimeCap) {
  Result<Suite> suite = ParseSuite(
      "name: t\nsampling: {time_cap_seconds: 60}\nbenchmarks:\n"
      "  - {benchmark: gemm, devices: [tpu, gpu], sweep: [{m: 64}]}\n"
      "  - {benchmark: gemm, devices: cpu, sweep: [{m: 64}], sampling: {time_cap_seconds: 0}}\n"
      "  - {benchmark: stream}\n",
      "t.yaml");
  ASSERT_TRUE(suite.ok()) << suite.error().message;
  EXPECT_EQ(suite->entries[0].device_classes, (std::vector<std::string>{"tpu", "gpu"}));
  EXPECT_DOUBLE_EQ(suite->entries[0].sampling.time_cap_seconds, 60);
  EXPECT_EQ(suite->entries[1].device_classes, (std::vector<std::string>{"cpu"}));
  EXPECT_DOUBLE_EQ(suite->entries[1].sampling.time_cap_seconds, 0);
  EXPECT_TRUE(suite->entries[0].IsFor("gpu"));
  EXPECT_FALSE(suite->entries[0].IsFor("cpu"));
  EXPECT_TRUE(suite->entries[2].IsFor("cpu"));  // no `devices`: every class
  EXPECT_DOUBLE_EQ(SamplingOptions{}.time_cap_seconds, 300);

  EXPECT_EQ(ErrorOf("name: x\nbenchmarks: [{benchmark: gemm, devices: [fpga]}]\n"),
            "bad.yaml:2: unknown device class 'fpga' (known: tpu, gpu, cpu)");
  EXPECT_EQ(ErrorOf("name: x\nbenchmarks: [{benchmark: gemm, devices: []}]\n"),
            "bad.yaml:2: 'devices' must be a device class or a list of them (tpu, gpu, cpu)");
  EXPECT_EQ(ErrorOf("name: x\nsampling: {time_cap_seconds: -1}\nbenchmarks: [{benchmark: g}]\n"),
            "bad.yaml:2: sampling needs 0 <= time_cap_seconds <= 86400 (0: no cap)");
}

// Variants for different classes may measure the same point; one class may not twice.
TEST(SuiteTest, VariantsForOtherDevicesMayShareAPoint) {
  BenchmarkRegistry registry;
  AddCpuBenchmarks(registry);
  Result<Suite> variants = ParseSuite(
      "name: v\nbenchmarks:\n"
      "  - {benchmark: stream, devices: [tpu, gpu], sweep: [{kernel: copy}]}\n"
      "  - {benchmark: stream, devices: cpu, sweep: [{kernel: copy}]}\n",
      "v");
  ASSERT_TRUE(variants.ok());
  EXPECT_TRUE(ValidateSuite(*variants, registry).ok());
  Result<Suite> twice = ParseSuite(
      "name: w\nbenchmarks:\n"
      "  - {benchmark: stream, devices: [tpu, cpu], sweep: [{kernel: copy}]}\n"
      "  - {benchmark: stream, devices: cpu, sweep: [{kernel: copy}]}\n",
      "w");
  ASSERT_TRUE(twice.ok());
  const Status status = ValidateSuite(*twice, registry);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("w:4: stream {\"kernel\":\"copy\"} is already measured "
                                        "by the entry of line 3"),
            std::string::npos)
      << status.error().message;
}

// Validation against the full registry (GPU and network too): builtin_benchmarks/tests.
TEST(SuiteTest, UnknownBenchmarkNamesTheLine) {
  Result<Suite> suite =
      ParseSuite("name: x\nbenchmarks:\n  - benchmark: stream\n  - benchmark: warp\n", "x");
  ASSERT_TRUE(suite.ok());
  BenchmarkRegistry registry;
  AddCpuBenchmarks(registry);
  const Status status = ValidateSuite(*suite, registry);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(status.error().message.substr(0, 34), "x:4: unknown benchmark 'warp' (kno");
}

TEST(SuiteTest, UnknownSuiteListsTheBuiltinOnes) {
  Result<Suite> suite = LoadSuite("nightly");
  ASSERT_FALSE(suite.ok());
  EXPECT_EQ(suite.error().code, ErrorCode::kNotFound);
  EXPECT_NE(suite.error().message.find("full, pjrt, quick, standard"), std::string::npos)
      << suite.error().message;
}

}  // namespace
}  // namespace xpuperf::bench
