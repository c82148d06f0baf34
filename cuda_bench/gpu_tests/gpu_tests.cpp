// Runs every gpu_* benchmark on small problems on the first CUDA device, through the registry, so
// that each kernel's own verification runs; plus directed checks of the kernels and the engine.
// Exits 77 (skipped for ctest) when there is no CUDA driver or device.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "cuda/cuda_queue.h"
#include "cuda/gpu_benchmarks.h"
#include "cuda/transfer_engine.h"
#include "xpuperf/bench/registry.h"
#include "xpuperf/cuda_bench/cuda_benchmarks.h"
#include "xpuperf/cuda_bench/device_tests.h"

namespace xpuperf::cuda_bench {
namespace {

using nlohmann::json;

class GpuBenchmarksTest : public testing::Test {
 protected:
  void SetUp() override {
    devices_ = ListCudaDevices();
    ASSERT_FALSE(devices_.empty());
    context_.device = &devices_.front();
    context_.queue = &host_queue_;
    context_.sampling.warmup_samples = 1;
    context_.sampling.samples = 3;
    context_.sampling.min_sample_seconds = 0.002;
  }

  // Runs one point; returns false when the device cannot run it (reported as skipped).
  std::vector<bench::Measurement> RunPoint(const std::string& name, const json& point) {
    bench::Benchmark* benchmark = registry_.Find(name);
    EXPECT_NE(benchmark, nullptr) << name;
    if (benchmark == nullptr) return {};
    const Status can = benchmark->CanRun(*context_.device, point);
    if (!can.ok()) {
      EXPECT_EQ(can.error().code, ErrorCode::kUnsupported) << can.error().message;
      std::printf("  %s %s: %s\n", name.c_str(), point.dump().c_str(), can.error().message.c_str());
      return {};
    }
    auto measured = benchmark->Run(point, context_);
    EXPECT_TRUE(measured.ok()) << name << " " << point.dump() << ": "
                               << (measured.ok() ? "" : measured.error().message);
    if (!measured.ok()) return {};
    for (const bench::Measurement& m : *measured) {
      EXPECT_GT(m.value, 0) << name << " " << m.metric;
      EXPECT_EQ(m.sample_seconds.size(), 3u);
      std::printf("  %s %s: %s %.4g %s\n", name.c_str(), point.dump().c_str(), m.metric.c_str(),
                  m.value, m.unit.c_str());
    }
    return std::move(*measured);
  }

  bench::BenchmarkRegistry registry_ = [] {
    bench::BenchmarkRegistry registry;
    AddCudaBenchmarks(registry);
    return registry;
  }();
  std::vector<Device> devices_;
  bench::HostQueue host_queue_;
  bench::RunContext context_;
};

TEST_F(GpuBenchmarksTest, PeakFmaEveryPrecision) {
  for (const char* precision : {"fp64", "fp32", "fp16", "bf16"}) {
    const auto m = RunPoint("gpu_peak_fma", {{"precision", precision}, {"iterations", 1024}});
    if (!m.empty()) {
      EXPECT_EQ(m.front().unit, "GFLOP/s");
    }
  }
}

TEST_F(GpuBenchmarksTest, GemmEveryPrecisionAndAnOddShape) {
  for (const char* precision : {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8"}) {
    RunPoint("gpu_gemm", {{"precision", precision}, {"m", 256}, {"n", 256}, {"k", 256}});
  }
  RunPoint("gpu_gemm", {{"precision", "bf16"}, {"m", 128}, {"n", 384}, {"k", 512}});
  RunPoint("gpu_gemm", {{"precision", "fp32"}, {"m", 100}, {"n", 37}, {"k", 300}});
}

TEST_F(GpuBenchmarksTest, StreamKernels) {
  for (const char* kernel : {"copy", "scale", "add", "triad"}) {
    RunPoint("gpu_stream", {{"kernel", kernel}, {"array_mib", 64}});
  }
}

TEST_F(GpuBenchmarksTest, L2Sweep) {
  const auto m =
      RunPoint("gpu_l2_sweep", {{"min_kib", 256}, {"max_kib", 4096}, {"steps_per_octave", 1}});
  EXPECT_EQ(m.size(), 5u);
}

TEST_F(GpuBenchmarksTest, HostTransfers) {
  constexpr int64_t kBytes = int64_t{16} << 20;
  for (const char* direction : {"h2d", "d2h", "bidir", "d2d"}) {
    for (const char* copy : {"ce", "sm"}) {
      RunPoint(
          "gpu_host_transfer",
          {{"direction", direction}, {"host_memory", "pinned"}, {"bytes", kBytes}, {"copy", copy}});
    }
  }
  RunPoint("gpu_host_transfer",
           {{"direction", "h2d"}, {"host_memory", "pageable"}, {"bytes", kBytes}});
  RunPoint("gpu_host_transfer",
           {{"direction", "d2h"}, {"host_memory", "pageable"}, {"bytes", kBytes}});
  const auto latency = RunPoint("gpu_host_transfer", {{"direction", "h2d"}, {"bytes", 8}});
  if (!latency.empty()) {
    EXPECT_EQ(latency.front().unit, "us");
  }
  // SM copies cannot read pageable memory: unsupported, not a failure.
  EXPECT_FALSE(registry_.Find("gpu_host_transfer")
                   ->CanRun(*context_.device, {{"host_memory", "pageable"}, {"copy", "sm"}})
                   .ok());
}

TEST_F(GpuBenchmarksTest, Collectives) {
  for (const char* collective :
       {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv"}) {
    const auto m = RunPoint("gpu_collectives", {{"collective", collective}, {"bytes", 4 << 20}});
    if (!m.empty()) {
      // With one GPU the busbw factor of all_reduce, all_gather, reduce_scatter and all_to_all
      // is 0: only the algbw is reported.
      const double factor = m[0].parameters.value("busbw_factor", -1.0);
      ASSERT_EQ(m.size(), factor == 0 ? 1u : 2u) << collective;
      EXPECT_EQ(m[0].metric, std::string(collective) + "_algbw");
      EXPECT_EQ(m[0].parameters.value("wrong", -1), 0);
    }
  }
}

TEST_F(GpuBenchmarksTest, AttentionShapes) {
  for (int head_dim : {64, 128}) {
    for (bool causal : {false, true}) {
      RunPoint("gpu_attention", {{"batch", 2},
                                 {"heads", 4},
                                 {"seq_len", 512},
                                 {"head_dim", head_dim},
                                 {"causal", causal}});
    }
  }
}

TEST_F(GpuBenchmarksTest, FlashAttentionMatchesTheReference) {
  auto queue = CudaQueue::Create(0);
  ASSERT_TRUE(queue.ok());
  for (int head_dim : {64, 128}) {
    for (bool causal : {false, true}) {
      for (int64_t seq : {64, 256, 448}) {
        const auto error =
            CheckAttentionAgainstReference(head_dim, causal, seq, (*queue)->stream());
        ASSERT_TRUE(error.ok()) << error.error().message;
        std::printf("  attention d=%d causal=%d seq=%lld: relative error %.3g\n", head_dim, causal,
                    static_cast<long long>(seq), *error);
        EXPECT_LT(*error, 2e-2);
        EXPECT_GT(*error, 0.0);  // bf16 output: never bit-identical to fp32
      }
    }
  }
}

TEST_F(GpuBenchmarksTest, TransferVerificationCatchesAWrongPattern) {
  auto engine = MakeCudaTransferEngine(0, false);
  ASSERT_TRUE(engine.ok()) << engine.error().message;
  auto device = (*engine)->AllocateDevice(1 << 20);
  auto host = (*engine)->AllocateHost(1 << 20, bench::HostMemoryKind::kPinned, -1);
  ASSERT_TRUE(device.ok() && host.ok());
  ASSERT_TRUE((*engine)->Fill(**device, 1).ok());
  EXPECT_TRUE((*engine)->Verify(**device, 1).ok());
  EXPECT_FALSE((*engine)->Verify(**device, 2).ok());
  ASSERT_TRUE((*engine)->Fill(**host, 3).ok());
  ASSERT_TRUE((*engine)->EnqueueCopy(**device, **host, 1 << 20).ok());
  EXPECT_TRUE((*engine)->Verify(**device, 3).ok());
  // Only the first half copied: the check names a wrong byte.
  ASSERT_TRUE((*engine)->Fill(**device, 1).ok());
  ASSERT_TRUE((*engine)->EnqueueCopy(**device, **host, 1 << 19).ok());
  const Status half = (*engine)->Verify(**device, 3);
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.error().message.find("first at byte 524288"), std::string::npos)
      << half.error().message;
}

TEST_F(GpuBenchmarksTest, QueueTimesDeviceWork) {
  auto queue = CudaQueue::Create(0);
  ASSERT_TRUE(queue.ok());
  const double empty = (*queue)->TimeSeconds([] {});
  EXPECT_GE(empty, 0.0);
  EXPECT_LT(empty, 0.01);
  EXPECT_TRUE((*queue)->status().ok());
  EXPECT_EQ((*queue)->spin_timeouts(), 0);
}

// diag's device-memory pattern test: clean memory passes every pattern; a word overwritten from the
// host after each fill is found once per pattern, with its index.
TEST(GpuDeviceTests, MemoryPatternsPassAndFindAnInjectedFault) {
  const std::vector<Device> devices = ListCudaDevices();
  ASSERT_FALSE(devices.empty());
  DeviceMemoryTestOptions options;
  options.bytes = uint64_t{64} << 20;
  auto clean = RunDeviceMemoryTest(devices.front().bus_id, options);
  ASSERT_TRUE(clean.ok()) << clean.error().message;
  EXPECT_EQ(clean->errors, 0u) << clean->first_error;
  EXPECT_EQ(clean->patterns, 6);
  EXPECT_EQ(clean->words_checked, 6 * (clean->bytes / 8));
  options.inject_fault_at_word = 12345;
  auto faulty = RunDeviceMemoryTest(devices.front().bus_id, options);
  ASSERT_TRUE(faulty.ok()) << faulty.error().message;
  EXPECT_EQ(faulty->errors, 6u);
  EXPECT_NE(faulty->first_error.find("pattern zeros: word 12345 read 0xffffffffffffffff"),
            std::string::npos)
      << faulty->first_error;
}

// diag -r 3's device load: verified rounds until stopped, none wrong on a healthy GPU.
TEST(GpuDeviceTests, StressRunsVerifiedRoundsUntilStopped) {
  const std::vector<Device> devices = ListCudaDevices();
  ASSERT_FALSE(devices.empty());
  std::atomic<bool> stop{false};
  std::thread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    stop.store(true);
  });
  auto result = RunDeviceStress(devices.front().bus_id, uint64_t{64} << 20, stop);
  stopper.join();
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_GT(result->rounds, 0u);
  EXPECT_EQ(result->compute_mismatches, 0u) << result->first_error;
  EXPECT_EQ(result->memory_errors, 0u) << result->first_error;
}

}  // namespace
}  // namespace xpuperf::cuda_bench

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (const xpuperf::Status status = xpuperf::cuda_bench::CudaAvailability(); !status.ok()) {
    std::printf("cuda_bench_gpu_tests: skipped (%s)\n", status.error().message.c_str());
    return 77;
  }
  return RUN_ALL_TESTS();
}
