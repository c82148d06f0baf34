// peak_fma and gemm points: bad parameters are one-line errors (never exceptions or overflow),
// unsupported ISAs and libraries say what is missing, and a run records what it ran on.
#include <gtest/gtest.h>

#include "xpuperf/bench/isa.h"
#include "xpuperf/bench/queue.h"
#include "xpuperf/bench/registry.h"

namespace xpuperf::bench {
namespace {

class ComputePointsTest : public ::testing::Test {
 protected:
  ComputePointsTest() {
    AddCpuBenchmarks(registry_);
    device_.backend = "cpu";
    device_.topology.cores = 1;
  }
  Status CanRun(const char* benchmark, const nlohmann::json& point) {
    return registry_.Find(benchmark)->CanRun(device_, point);
  }
  BenchmarkRegistry registry_;
  Device device_;
};

TEST_F(ComputePointsTest, BadParametersAreInvalidArguments) {
  const std::pair<const char*, nlohmann::json> cases[] = {
      {"peak_fma", {{"precision", 5}}},
      {"peak_fma", {{"precision", "fp8"}}},
      {"peak_fma", {{"precision", "int8"}, {"isa", "avx9"}}},
      {"peak_fma", {{"isa", true}}},
      {"gemm", {{"m", "x"}}},
      {"gemm", {{"m", 1.5}}},
      {"gemm", {{"precision", "fp16"}}},
      {"gemm", {{"precision", "fp64"}, {"library", "onednn"}}},
      {"gemm", {{"precision", "int8"}, {"library", "openblas"}}},
      {"gemm", {{"library", "mkl"}}},
      // 2^62 x 2^62 would overflow int64 if multiplied before the bounds check.
      {"gemm", {{"m", int64_t{1} << 62}, {"n", 1}, {"k", int64_t{1} << 62}}},
      {"gemm", {{"m", 0}}},
      // Misspelled keys are refused by the one parameter description, never ignored.
      {"peak_fma", {{"precison", "fp32"}}},
      {"gemm", {{"libary", "onednn"}}},
      {"gemm", {{"precision", "fp32"}, {"library", 1}}},
      {"gemm", nlohmann::json::array()},
  };
  for (const auto& [benchmark, point] : cases) {
    const Status status = CanRun(benchmark, point);
    ASSERT_FALSE(status.ok()) << benchmark << " " << point.dump();
    EXPECT_EQ(status.error().code, ErrorCode::kInvalidArgument)
        << point.dump() << ": " << status.error().message;
    EXPECT_EQ(status.error().message.find('\n'), std::string::npos);
  }
}

TEST_F(ComputePointsTest, MissingIsaExtensionsAreNamed) {
  const IsaFeatures host = UsableHostFeatures();
  for (const auto& [precision, extension] : {std::pair{"bf16", IsaExtension::kAvx512Bf16},
                                             std::pair{"fp16", IsaExtension::kAvx512Fp16}}) {
    const Status status = CanRun("peak_fma", {{"precision", precision}});
    if (host.Has(extension)) {
      EXPECT_TRUE(status.ok()) << status.error().message;
      continue;
    }
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, ErrorCode::kUnsupported);
    EXPECT_NE(status.error().message.find(std::string("CPU lacks ") +
                                          std::string(IsaExtensionName(extension))),
              std::string::npos)
        << status.error().message;
  }
}

TEST_F(ComputePointsTest, Int8PeakRunRecordsOpsIsaAndMeasuredClock) {
  HostQueue queue;
  RunContext context;
  context.device = &device_;
  context.queue = &queue;
  context.threads = 1;
  context.sampling.warmup_samples = 0;
  context.sampling.samples = 2;
  context.sampling.min_sample_seconds = 0.001;
  auto result = registry_.Find("peak_fma")->Run({{"precision", "int8"}}, context);
  ASSERT_TRUE(result.ok()) << result.error().message;
  const Measurement& m = result->front();
  EXPECT_EQ(m.metric, "int8_ops");
  EXPECT_EQ(m.unit, "GOP/s");
  EXPECT_GT(m.value, 0);
  EXPECT_FALSE(m.parameters["simd"].get<std::string>().empty());
  // The clock probe itself is held to a plausible clock by NominalPeakTest; here the run records
  // either its measured clock or why there is none, and says which clock the nominal peak used.
  const nlohmann::json& clock = m.parameters["clock"];
  const nlohmann::json& measured = clock["measured"];
  if (measured.is_object()) {
    EXPECT_GT(measured["hertz"].get<double>(), 0.5e9);
    EXPECT_NE(m.nominal_source.find("measured: median of"), std::string::npos) << m.nominal_source;
  } else {
    ASSERT_TRUE(measured.is_null()) << m.parameters.dump();
    EXPECT_EQ(clock["measured_unavailable"].get<std::string>().rfind("not measured: ", 0), 0u)
        << m.parameters.dump();
    EXPECT_TRUE(clock["used"].is_string()) << m.parameters.dump();
  }
}

TEST_F(ComputePointsTest, OneDnnGemmRunsOrSaysWhy) {
  for (const char* precision : {"fp32", "bf16", "int8"}) {
    nlohmann::json point = {
        {"precision", precision}, {"library", "onednn"}, {"m", 64}, {"n", 48}, {"k", 80}};
    const Status status = CanRun("gemm", point);
    if (!status.ok()) {
      EXPECT_EQ(status.error().code, ErrorCode::kUnsupported) << status.error().message;
      EXPECT_EQ(status.error().message.rfind("unsupported: ", 0), 0u) << status.error().message;
      continue;
    }
    HostQueue queue;
    RunContext context;
    context.device = &device_;
    context.queue = &queue;
    context.threads = 1;
    context.sampling.warmup_samples = 0;
    context.sampling.samples = 2;
    context.sampling.min_sample_seconds = 0.001;
    auto result = registry_.Find("gemm")->Run(point, context);
    ASSERT_TRUE(result.ok()) << precision << ": " << result.error().message;
    EXPECT_EQ(result->front().parameters["library"], "onednn");
    EXPECT_NE(result->front().parameters["implementation"].get<std::string>().find("oneDNN"),
              std::string::npos);
    // Its nominal peak uses the clock measured right after its samples (a VM's cpuinfo states a
    // nominal clock far below a boosting core's), or says why there is none.
    const Measurement& m = result->front();
    const nlohmann::json& measured = m.parameters["clock"]["measured"];
    if (measured.is_object()) {
      EXPECT_GT(measured["hertz"].get<double>(), 0.5e9);
      EXPECT_NE(m.nominal_source.find("right after the GEMM's last sample"), std::string::npos)
          << m.nominal_source;
    } else {
      EXPECT_EQ(m.parameters["clock"]["measured_unavailable"].get<std::string>().rfind(
                    "not measured: ", 0),
                0u)
          << m.parameters.dump();
    }
  }
}

}  // namespace
}  // namespace xpuperf::bench
