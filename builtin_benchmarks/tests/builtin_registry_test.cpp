// The assembled registry: every built-in suite names only benchmarks it has, and it holds the CPU,
// network and GPU benchmarks (the gpu_* ones in every build).
#include <gtest/gtest.h>

#include "xpuperf/bench/suite.h"
#include "xpuperf/builtin_benchmarks.h"

namespace xpuperf {
namespace {

TEST(BuiltinBenchmarksTest, BuiltinSuitesParseAndNameKnownBenchmarks) {
  const bench::BenchmarkRegistry registry = MakeBuiltinBenchmarkRegistry();
  for (const char* name : {"quick", "standard", "full"}) {
    Result<bench::Suite> suite = bench::LoadSuite(name);
    ASSERT_TRUE(suite.ok()) << suite.error().message;
    EXPECT_EQ(suite->name, name);
    const Status valid = bench::ValidateSuite(*suite, registry);
    EXPECT_TRUE(valid.ok()) << valid.error().message;
  }
}

TEST(BuiltinBenchmarksTest, HoldsCpuNetworkAndGpuBenchmarks) {
  const bench::BenchmarkRegistry registry = MakeBuiltinBenchmarkRegistry();
  for (const char* name :
       {"peak_fma", "gemm", "stream", "cache_sweep", "host_transfer", "attention", "collectives",
        "gpu_peak_fma", "gpu_gemm", "gpu_stream", "gpu_l2_sweep", "gpu_host_transfer",
        "gpu_collectives", "gpu_attention"}) {
    EXPECT_NE(registry.Find(name), nullptr) << name;
  }
  EXPECT_EQ(registry.Find("warp"), nullptr);
}

TEST(BuiltinBenchmarksTest, UnknownBenchmarkNamesTheLine) {
  Result<bench::Suite> suite =
      bench::ParseSuite("name: x\nbenchmarks:\n  - benchmark: stream\n  - benchmark: warp\n", "x");
  ASSERT_TRUE(suite.ok());
  const Status status = bench::ValidateSuite(*suite, MakeBuiltinBenchmarkRegistry());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(status.error().message.substr(0, 34), "x:4: unknown benchmark 'warp' (kno");
}

}  // namespace
}  // namespace xpuperf
