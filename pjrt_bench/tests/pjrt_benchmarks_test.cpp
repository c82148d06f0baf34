// Every PJRT benchmark end to end on XLA's CPU plugin (from the pjrt_plugin_environment fixture):
// small points, quick sampling; each verifies its own output, so a pass means the generated
// program computed the right values.
#include "xpuperf/pjrt_bench/pjrt_benchmarks.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "xpuperf/bench/parameters.h"
#include "xpuperf/bench/registry.h"

namespace xpuperf::pjrt_bench {
namespace {

std::string CpuPluginPath() {
  std::ifstream in(XPUPERF_PJRT_PLUGIN_PATH_FILE);
  std::string path;
  std::getline(in, path);
  return path;
}

class PjrtBenchmarks : public ::testing::Test {
 protected:
  void SetUp() override {
    plugin_ = CpuPluginPath();
    if (plugin_.empty()) {
      GTEST_SKIP() << "XLA's CPU PJRT plugin is not available to this build (made by the "
                      "pjrt_plugin_environment test; sanitizer builds leave it out)";
    }
    pjrt_bench::AddPjrtBenchmarks(registry_);
    context_.sampling = {0, 3, 0.001};
  }
  Result<std::vector<bench::Measurement>> Run(const char* benchmark, nlohmann::json point) {
    point["plugin"] = plugin_;
    bench::Benchmark* b = registry_.Find(benchmark);
    EXPECT_NE(b, nullptr);
    Device cpu;
    // As the runner does: the point resolved against the benchmark's schema first.
    if (const auto schema = b->parameter_schema()) {
      XPUPERF_ASSIGN_OR_RETURN(point, bench::ResolvePoint(benchmark, *schema, point));
    }
    if (Status can = b->CanRun(cpu, point); !can.ok()) return can.error();
    return b->Run(point, context_);
  }
  std::string plugin_;
  bench::BenchmarkRegistry registry_;
  bench::RunContext context_;
};

TEST_F(PjrtBenchmarks, GemmInEveryPrecision) {
  for (const char* precision : {"fp32", "bf16", "int8"}) {
    auto m = Run("pjrt_gemm", {{"precision", precision}, {"m", 96}, {"n", 64}, {"k", 80}});
    ASSERT_TRUE(m.ok()) << precision << ": " << m.error().message;
    ASSERT_EQ(m->size(), 1u);
    const bench::Measurement& r = m->front();
    EXPECT_EQ(r.metric,
              std::string(precision) + (precision == std::string("int8") ? "_ops" : "_flops"));
    EXPECT_GT(r.value, 0);
    EXPECT_DOUBLE_EQ(r.flops_per_repetition, 2.0 * 96 * 64 * 80);
    ASSERT_TRUE(r.device.has_value());
    EXPECT_EQ(r.device->backend, "pjrt");
    EXPECT_EQ(r.device->id, "pjrt-cpu0");
    EXPECT_EQ(r.parameters["platform"], "cpu");
    EXPECT_EQ(r.parameters["m"], 96);
    // A single-device benchmark runs on a 1-device CPU client (pjrt_target.h, DeviceUse), and
    // XLA's CPU plugin 0.0.1 has no profiler: the record says so instead of giving a device time.
    EXPECT_EQ(r.parameters["client_devices"], 1);
    EXPECT_EQ(r.parameters["device_timing"], "unsupported: plugin has no profiler extension");
    EXPECT_FALSE(r.parameters.contains("device_seconds_per_repetition"));
    EXPECT_NE(r.timing_source.find("no device time (unsupported: plugin has no profiler"),
              std::string::npos)
        << r.timing_source;
  }
  auto f32out =
      Run("pjrt_gemm",
          {{"precision", "bf16"}, {"out_precision", "fp32"}, {"m", 32}, {"n", 32}, {"k", 32}});
  ASSERT_TRUE(f32out.ok()) << f32out.error().message;
}

// Device time end to end: a plugin that wraps the CPU plugin and adds a profiler extension
// (pjrt/tests/fake_plugin/profiling_wrapper.cpp; it times each execution until its completion
// events and reports them as XLA Modules events on /device:TPU:0, as libtpu's profiles do). The
// benchmark starts the profiler across its sampling, reads the kept samples' module events and
// records their median per repetition beside the host's wall-clock figure.
TEST_F(PjrtBenchmarks, DeviceTimeFromThePluginsProfiler) {
  setenv("XPUPERF_WRAPPED_PJRT_PLUGIN", plugin_.c_str(), 1);
  plugin_ = std::string(XPUPERF_FAKE_PJRT_DIR) + "/fake_pjrt_profiling_wrapper.so";
  context_.sampling = {1, 5, 0.005};
  for (const auto& [benchmark, point] :
       {std::pair<const char*, nlohmann::json>{"pjrt_gemm", {{"m", 128}, {"n", 128}, {"k", 128}}},
        {"pjrt_stream", {{"kernel", "triad"}, {"elements", 1 << 18}}}}) {
    auto m = Run(benchmark, point);
    ASSERT_TRUE(m.ok()) << benchmark << ": " << m.error().message;
    const bench::Measurement& r = m->front();
    ASSERT_TRUE(r.parameters.contains("device_seconds_per_repetition")) << r.parameters.dump();
    const double device = r.parameters["device_seconds_per_repetition"].get<double>();
    // Each execution's device interval lies inside the host's timed interval of its sample, so
    // the median per repetition cannot exceed the host's; most of the host's is the execution.
    EXPECT_GT(device, 0);
    EXPECT_LE(device, r.statistics.median * 1.0001) << benchmark;
    EXPECT_GT(device, 0.3 * r.statistics.median) << benchmark;
    EXPECT_NE(r.timing_source.find("device time from the plugin's profiler"), std::string::npos)
        << r.timing_source;
  }
  unsetenv("XPUPERF_WRAPPED_PJRT_PLUGIN");
}

TEST_F(PjrtBenchmarks, StreamKernelsVerifyEveryElement) {
  for (const char* kernel : {"copy", "scale", "add", "triad"}) {
    for (const char* precision : {"fp32", "bf16"}) {
      auto m =
          Run("pjrt_stream", {{"kernel", kernel}, {"elements", 1 << 16}, {"precision", precision}});
      ASSERT_TRUE(m.ok()) << kernel << " " << precision << ": " << m.error().message;
      const int arrays = std::string(kernel) == "copy" || std::string(kernel) == "scale" ? 2 : 3;
      const double element = std::string(precision) == "fp32" ? 4 : 2;
      EXPECT_DOUBLE_EQ(m->front().bytes_per_repetition, (1 << 16) * element * arrays);
      EXPECT_EQ(m->front().metric, std::string(kernel) + "_bandwidth");
    }
  }
}

TEST_F(PjrtBenchmarks, HostTransferBandwidthAndLatency) {
  auto big = Run("pjrt_host_transfer", {{"direction", "h2d"}, {"bytes", 1 << 20}});
  ASSERT_TRUE(big.ok()) << big.error().message;
  EXPECT_EQ(big->front().metric, "h2d_bandwidth");
  auto small = Run("pjrt_host_transfer", {{"direction", "d2h"}, {"bytes", 8}});
  ASSERT_TRUE(small.ok()) << small.error().message;
  EXPECT_EQ(small->front().metric, "d2h_latency");
  EXPECT_EQ(small->front().unit, "us");
}

TEST_F(PjrtBenchmarks, EveryCollectiveOverFourDevices) {
  for (const char* op :
       {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute"}) {
    auto m = Run("pjrt_collectives", {{"op", op}, {"bytes", 4096}});
    ASSERT_TRUE(m.ok()) << op << ": " << m.error().message;
    ASSERT_EQ(m->size(), 2u);
    EXPECT_EQ(m->at(1).metric, std::string(op) + "_busbw");
    EXPECT_EQ(m->at(0).parameters["devices"], 4);
    EXPECT_EQ(m->at(0).parameters["client_devices"], 4);
    EXPECT_EQ(m->at(0).parameters["wrong"], 0);
  }
  auto one = Run("pjrt_collectives", {{"op", "all_reduce"}, {"bytes", 4096}, {"devices", 1}});
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.error().code, ErrorCode::kUnsupported);
}

TEST_F(PjrtBenchmarks, AttentionCausalAndNot) {
  for (bool causal : {false, true}) {
    for (const char* precision : {"fp32", "bf16"}) {
      auto m = Run("pjrt_attention", {{"batch", 1},
                                      {"heads", 2},
                                      {"seq_len", 64},
                                      {"head_dim", 16},
                                      {"causal", causal},
                                      {"precision", precision}});
      ASSERT_TRUE(m.ok()) << precision << " causal=" << causal << ": " << m.error().message;
      EXPECT_DOUBLE_EQ(m->front().flops_per_repetition, 4.0 * 64 * 64 * 16 * 2 / (causal ? 2 : 1));
    }
  }
}

TEST_F(PjrtBenchmarks, DispatchOverhead) {
  auto m = Run("pjrt_dispatch", nlohmann::json::object());
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->front().metric, "dispatch_latency");
  EXPECT_GT(m->front().value, 0);
}

TEST_F(PjrtBenchmarks, BadParametersNameTheKey) {
  auto typo = Run("pjrt_gemm", {{"precison", "fp32"}});
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("unknown parameter 'precison'"), std::string::npos);
  auto fraction = Run("pjrt_gemm", {{"m", 64.5}});
  ASSERT_FALSE(fraction.ok());
  EXPECT_NE(fraction.error().message.find("'m' must be an integer (got 64.5)"), std::string::npos);
  auto type = Run("pjrt_stream", {{"kernel", 3}});
  ASSERT_FALSE(type.ok());
  EXPECT_NE(type.error().message.find("'kernel' must be one of copy, scale, add, triad (got 3)"),
            std::string::npos);
  auto device = Run("pjrt_gemm", {{"device", 99}});
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.error().message.find("'device' must be between 0 and 0 (got 99)"),
            std::string::npos)
      << device.error().message;
  auto huge = Run("pjrt_gemm", {{"m", 65536}, {"n", 65536}, {"k", 65536}});
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().message.find("more than half"), std::string::npos);
}

TEST(PjrtBenchmarksWithoutPlugin, SayWhatToInstall) {
  bench::BenchmarkRegistry registry;
  pjrt_bench::AddPjrtBenchmarks(registry);
  Device cpu;
  Status can = registry.Find("pjrt_gemm")->CanRun(cpu, {{"plugin", "tpu"}});
  if (can.ok()) GTEST_SKIP() << "a TPU plugin is installed here";
  EXPECT_EQ(can.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(can.error().message.find("no PJRT plugin of kind 'tpu'"), std::string::npos);
}

}  // namespace
}  // namespace xpuperf::pjrt_bench
