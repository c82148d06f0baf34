#include "consistency.h"

#include <gtest/gtest.h>

namespace xpuperf::bench {
namespace {

Measurement Figure(const std::string& benchmark, const std::string& metric, double value,
                   const std::string& unit, nlohmann::json parameters = nlohmann::json::object()) {
  Measurement m;
  m.benchmark = benchmark;
  m.metric = metric;
  m.value = value;
  m.unit = unit;
  m.parameters = std::move(parameters);
  return m;
}

// The figures of the busy run: fp32 peak 8.4 below fp64 peak 12.6 and far below the fp32
// GEMM 60.8 at the same ISA.
TEST(ConsistencyTest, FlagsAPeakBelowAnotherPrecisionAndAGemmAboveItsPeak) {
  std::vector<Measurement> run = {
      Figure("peak_fma", "fp64_flops", 12.6, "GFLOP/s", {{"simd", "avx2"}}),
      Figure("peak_fma", "fp32_flops", 8.4, "GFLOP/s", {{"simd", "avx2"}}),
      Figure("gemm", "fp32_flops", 60.8, "GFLOP/s", {{"m", 1024}}),
      Figure("stream", "triad_bandwidth", 20, "GB/s"),
  };
  const std::vector<std::string> broken = CheckConsistency(run);
  ASSERT_EQ(broken.size(), 2u);
  EXPECT_NE(broken[0].find("fp32 peak 8.4 is below fp64 peak 12.6 GFLOP/s at the same ISA (avx2)"),
            std::string::npos)
      << broken[0];
  EXPECT_NE(broken[1].find("fp32 GEMM 60.8 is above the fp32 peak 8.4"), std::string::npos)
      << broken[1];
  EXPECT_FALSE(run[0].stable);
  EXPECT_FALSE(run[1].stable);
  EXPECT_EQ(run[1].unstable_reasons.size(), 2u);  // both checks, each once
  EXPECT_FALSE(run[2].stable);
  EXPECT_TRUE(run[3].stable);
  EXPECT_EQ(run[2].unstable_reasons[0].rfind("inconsistent: ", 0), 0u);
}

TEST(ConsistencyTest, AConsistentRunPasses) {
  std::vector<Measurement> run = {
      Figure("peak_fma", "fp64_flops", 100, "GFLOP/s", {{"simd", "avx2"}}),
      Figure("peak_fma", "fp32_flops", 200, "GFLOP/s", {{"simd", "avx2"}}),
      Figure("gemm", "fp32_flops", 190, "GFLOP/s"),
      Figure("gemm", "fp64_flops", 104, "GFLOP/s"),  // within 5% of its peak: rounding
  };
  run[0].nominal_peak = 99;  // 101%: turbo above the reported clock is allowed
  EXPECT_TRUE(CheckConsistency(run).empty());
  for (const Measurement& m : run) EXPECT_TRUE(m.stable) << m.metric;
}

// Peaks at different ISAs (an avx512 fp64 kernel against an avx2 fp32 one) are not compared; GPU
// GEMMs run on tensor cores the FMA peak does not use, so they are not bound by it.
TEST(ConsistencyTest, ComparesOnlyLikeWithLike) {
  std::vector<Measurement> run = {
      Figure("peak_fma", "fp64_flops", 150, "GFLOP/s", {{"simd", "avx512"}}),
      Figure("peak_fma", "fp32_flops", 120, "GFLOP/s", {{"simd", "avx2"}}),
      Figure("gpu_peak_fma", "fp16_flops", 100, "TFLOP/s"),
      Figure("gpu_gemm", "fp16_flops", 700, "TFLOP/s"),
  };
  EXPECT_TRUE(CheckConsistency(run).empty());
}

TEST(ConsistencyTest, ABandwidthAboveItsNominalIsFlagged) {
  std::vector<Measurement> run = {Figure("stream", "triad_bandwidth", 60, "GB/s"),
                                  Figure("peak_fma", "fp64_flops", 130, "GFLOP/s")};
  run[0].nominal_peak = 50;
  run[0].nominal_source = "2 channels DDR4-3200";
  run[1].nominal_peak = 100;
  const std::vector<std::string> broken = CheckConsistency(run);
  ASSERT_EQ(broken.size(), 2u);
  EXPECT_NE(broken[0].find("120% of its nominal 50 GB/s (limit 105%)"), std::string::npos)
      << broken[0];
  EXPECT_NE(broken[0].find("2 channels DDR4-3200"), std::string::npos);
  EXPECT_NE(broken[1].find("130% of its nominal 100 GFLOP/s (limit 110%)"), std::string::npos)
      << broken[1];
}

}  // namespace
}  // namespace xpuperf::bench
