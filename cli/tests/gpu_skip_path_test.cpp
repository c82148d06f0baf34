// Without a CUDA driver (or without CUDA compiled in) every gpu_* point is skipped with the
// reason, through the real registry, runner and `xpuperf bench` command, and the exit code is 0.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "xpuperf/bench/registry.h"
#include "xpuperf/bench/runner.h"
#include "xpuperf/bench/suite.h"
#include "xpuperf/bench_commands/bench_command.h"
#include "xpuperf/builtin_benchmarks.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/cuda_bench/cuda_benchmarks.h"

namespace xpuperf::cuda_bench {
namespace {

const char* const kGpuBenchmarks[] = {"gpu_peak_fma", "gpu_gemm",          "gpu_stream",
                                      "gpu_l2_sweep", "gpu_host_transfer", "gpu_collectives",
                                      "gpu_attention"};

std::string ExpectedReason() {
  return BuiltWithCuda() ? "unsupported: no CUDA driver" : "unsupported: built without CUDA";
}

TEST(GpuSkipPathTest, BuiltWithCudaWhenTheBuildSaysSo) {
#if XPUPERF_EXPECT_CUDA
  EXPECT_TRUE(BuiltWithCuda());
#else
  EXPECT_FALSE(BuiltWithCuda());
#endif
}

TEST(GpuSkipPathTest, TheBuiltinRegistryHasEveryGpuBenchmark) {
  const bench::BenchmarkRegistry registry = MakeBuiltinBenchmarkRegistry();
  for (const char* name : kGpuBenchmarks) {
    const bench::Benchmark* benchmark = registry.Find(name);
    ASSERT_NE(benchmark, nullptr) << name;
    EXPECT_FALSE(benchmark->default_sweep().empty()) << name;
    EXPECT_FALSE(benchmark->description().empty()) << name;
  }
}

TEST(GpuSkipPathTest, EveryGpuPointIsSkippedWithTheReason) {
  if (CudaAvailability().ok()) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(CudaAvailability().error().message, ExpectedReason());
  EXPECT_TRUE(ListCudaDevices().empty());
  const bench::BenchmarkRegistry registry = MakeBuiltinBenchmarkRegistry();
  bench::Suite suite;
  suite.name = "gpu";
  size_t points = 0;
  for (const char* name : kGpuBenchmarks) {
    bench::SuiteEntry entry;
    entry.benchmark = name;
    points += registry.Find(name)->default_sweep().size();
    suite.entries.push_back(entry);
  }
  Device cpu;
  cpu.backend = "cpu";
  cpu.id = "cpu0";
  bench::HostQueue queue;
  bench::RunContext context;
  context.device = &cpu;
  context.queue = &queue;
  std::ostringstream progress;
  const auto outcome =
      bench::RunSuite(suite, bench::RunFilter{}, registry, context, progress, ListCudaDevices());
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_TRUE(outcome->measurements.empty());
  ASSERT_EQ(outcome->skipped.size(), points);
  for (const std::string& line : outcome->skipped) {
    EXPECT_NE(line.find(": " + ExpectedReason()), std::string::npos) << line;
  }
  EXPECT_NE(progress.str().find("skip  gpu_gemm {\"k\":4096,\"m\":4096,\"n\":4096,\"precision\":"
                                "\"fp64\"}: " +
                                ExpectedReason()),
            std::string::npos)
      << progress.str();
}

TEST(GpuSkipPathTest, BenchRunSkipsGpuPointsAndExitsZero) {
  if (CudaAvailability().ok()) GTEST_SKIP() << "a CUDA device is present";
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xpuperf_gpu_skip_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string suite = (dir / "gpu.yaml").string();
  std::ofstream(suite) << "name: gpu\nbenchmarks:\n"
                          "  - benchmark: gpu_stream\n    sweep: [{kernel: triad}]\n"
                          "  - benchmark: gpu_gemm\n    sweep: [{precision: bf16, m: 256, n: "
                          "256, k: 256}]\n";
  bench_commands::BenchOptions options;
  options.suite = suite;
  options.out = (dir / "results").string();
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(bench_commands::RunBench(options, out, err), 0) << err.str();
  // Progress names each point; the summary gives one line per reason.
  EXPECT_NE(err.str().find("skip  gpu_stream {\"kernel\":\"triad\"}: " + ExpectedReason()),
            std::string::npos)
      << err.str();
  EXPECT_NE(err.str().find("skip  gpu_gemm"), std::string::npos) << err.str();
  EXPECT_NE(out.str().find("skipped: 2 points of gpu_stream, gpu_gemm: " + ExpectedReason()),
            std::string::npos)
      << out.str();
  EXPECT_TRUE(std::filesystem::exists(dir / "results" / "results.jsonl"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace xpuperf::cuda_bench
