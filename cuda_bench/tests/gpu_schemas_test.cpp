// The gpu_* benchmarks' point parameters, checked without a GPU: the runner and the suite check
// resolve every point against these schemas before anything runs, on any machine.
#include <gtest/gtest.h>

#include "gpu_benchmark_info.h"
#include "xpuperf/bench/parameters.h"
#include "xpuperf/cuda_bench/formulas.h"

namespace xpuperf::cuda_bench {
namespace {

TEST(GpuSchemasTest, EveryDefaultPointResolves) {
  for (const GpuBenchmarkInfo& info : GpuBenchmarkInfos()) {
    EXPECT_FALSE(info.schema.empty()) << info.name;
    for (const nlohmann::json& point : info.default_sweep) {
      auto resolved = bench::ResolvePoint(info.name, info.schema, point);
      EXPECT_TRUE(resolved.ok()) << info.name << " " << point.dump() << ": "
                                 << resolved.error().message;
    }
  }
}

TEST(GpuSchemasTest, TyposAndBadValuesAreErrorsBeforeAnythingRuns) {
  const bench::ParameterSchema& gemm = GpuBenchmarkInfoFor("gpu_gemm").schema;
  auto typo = bench::ResolvePoint("gpu_gemm", gemm, {{"mm", 1024}});
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("gpu_gemm: unknown parameter 'mm'"), std::string::npos)
      << typo.error().message;
  auto precision = bench::ResolvePoint("gpu_gemm", gemm, {{"precision", "fp4"}});
  ASSERT_FALSE(precision.ok());
  EXPECT_NE(precision.error().message.find("'precision' must be one of"), std::string::npos);
  auto bytes = bench::ResolvePoint("gpu_collectives", GpuBenchmarkInfoFor("gpu_collectives").schema,
                                   {{"bytes", 2}});
  EXPECT_FALSE(bytes.ok());
  auto copy = bench::ResolvePoint(
      "gpu_host_transfer", GpuBenchmarkInfoFor("gpu_host_transfer").schema, {{"copy", "dma"}});
  EXPECT_FALSE(copy.ok());
}

TEST(GpuSchemasTest, AResolvedPointParsesWithTheDefaults) {
  auto resolved = bench::ResolvePoint("gpu_gemm", GpuBenchmarkInfoFor("gpu_gemm").schema,
                                      {{"m", 64}, {"precision", "fp32"}});
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  auto parsed = ParseGpuGemmPoint(*resolved);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->precision, GpuPrecision::kFp32);
  EXPECT_EQ(parsed->shape.m, 64);
  EXPECT_EQ(parsed->shape.n, 4096);
  auto attention = bench::ResolvePoint("gpu_attention", GpuBenchmarkInfoFor("gpu_attention").schema,
                                       {{"seq_len", 1024}});
  ASSERT_TRUE(attention.ok());
  auto shape = ParseAttentionPoint(*attention);
  ASSERT_TRUE(shape.ok()) << shape.error().message;
  EXPECT_EQ(shape->seq, 1024);
  EXPECT_EQ(shape->head_dim, 128);
}

}  // namespace
}  // namespace xpuperf::cuda_bench
