#include "xpuperf/bench/runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "xpuperf/bench/results.h"

namespace xpuperf::bench {
namespace {

// A benchmark whose kernel is a counter, so the engine is tested without timing real work.
class CountingBenchmark final : public Benchmark {
 public:
  CountingBenchmark(std::string name, Component component)
      : name_(std::move(name)), component_(component) {}
  std::string name() const override { return name_; }
  Component component() const override { return component_; }
  std::string description() const override { return "test"; }
  std::vector<nlohmann::json> default_sweep() const override { return {{{"size", 1}}}; }
  Status CanRun(const Device&, const nlohmann::json& point) const override {
    if (point.value("size", 0) > 100) {
      return MakeError(ErrorCode::kUnsupported, "unsupported: too big for the test");
    }
    return Status::Ok();
  }
  Result<std::vector<Measurement>> Run(const nlohmann::json& point, RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(TimedSamples samples,
                             CollectSamples(*context.queue, context.sampling, [](int64_t) {}));
    Measurement m = MakeThroughput(name_, "ops", samples, point.value("size", 0), true, context);
    m.parameters = point;
    return std::vector<Measurement>{m};
  }

 private:
  std::string name_;
  Component component_;
};

// Every sample takes 1 ms.
class FixedQueue final : public ExecutionQueue {
 public:
  std::string timing_source() const override { return "fixed"; }
  double TimeSeconds(const std::function<void()>& enqueue) override {
    enqueue();
    return 1e-3;
  }
};

class RunnerTest : public ::testing::Test {
 protected:
  RunnerTest() {
    registry_.Add(std::make_unique<CountingBenchmark>("flops", Component::kCompute));
    registry_.Add(std::make_unique<CountingBenchmark>("bytes", Component::kMemory));
    device_.backend = "cpu";
    context_.device = &device_;
    context_.queue = &queue_;
  }
  Suite MakeSuite() {
    auto suite = ParseSuite(
        "name: t\nsampling: {warmup_samples: 0, samples: 3, min_sample_seconds: 0.001}\n"
        "benchmarks:\n"
        "  - benchmark: flops\n    sweep: [{size: 2}, {size: 1000}]\n"
        "  - benchmark: bytes\n",
        "t");
    EXPECT_TRUE(suite.ok());
    return *suite;
  }
  BenchmarkRegistry registry_;
  Device device_;
  FixedQueue queue_;
  RunContext context_;
  std::ostringstream progress_;
};

TEST_F(RunnerTest, RunsPointsAndSkipsWithTheReason) {
  auto outcome = RunSuite(MakeSuite(), RunFilter{}, registry_, context_, progress_);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_EQ(outcome->measurements.size(), 2u);
  EXPECT_EQ(outcome->measurements[0].benchmark, "flops");
  EXPECT_DOUBLE_EQ(outcome->measurements[0].value, 2 / 1e-3 / 1e9);  // 2 FLOP per 1 ms
  EXPECT_EQ(outcome->measurements[0].statistics.count, 3);
  EXPECT_EQ(outcome->measurements[1].parameters["size"], 1);  // the default sweep
  ASSERT_EQ(outcome->skipped.size(), 1u);
  EXPECT_EQ(outcome->skipped[0], "flops {\"size\":1000}: unsupported: too big for the test");
  EXPECT_NE(progress_.str().find("skip  flops"), std::string::npos);
}

// Per-device-class variants: on a CPU device only the entries for it (or for every class) run,
// and one line says what was left out.
TEST_F(RunnerTest, EntriesForOtherDevicesAreLeftOutWithOneLine) {
  auto suite = ParseSuite(
      "name: v\nsampling: {warmup_samples: 0, samples: 3, min_sample_seconds: 0.001}\n"
      "benchmarks:\n"
      "  - {benchmark: flops, devices: [tpu, gpu], sweep: [{size: 8}, {size: 9}]}\n"
      "  - {benchmark: flops, devices: cpu, sweep: [{size: 2}]}\n"
      "  - {benchmark: bytes, sweep: [{size: 3}]}\n",
      "v");
  ASSERT_TRUE(suite.ok()) << suite.error().message;
  auto outcome = RunSuite(*suite, RunFilter{}, registry_, context_, progress_);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_EQ(outcome->measurements.size(), 2u);
  EXPECT_EQ(outcome->measurements[0].parameters["size"], 2);
  EXPECT_EQ(outcome->measurements[1].parameters["size"], 3);
  EXPECT_NE(progress_.str().find("2 points left out: the entry of line 4 of v is for other "
                                 "devices than this cpu device (`devices:`)"),
            std::string::npos)
      << progress_.str();
  EXPECT_NE(progress_.str().find("[1/2] run   flops {\"size\":2}"), std::string::npos);
}

// A point whose samples would run past its time cap is skipped with the reason; the run goes on.
TEST_F(RunnerTest, APointOverItsTimeCapIsSkippedWithTheReason) {
  auto suite = ParseSuite(
      "name: c\nsampling: {warmup_samples: 0, samples: 3, min_sample_seconds: 0.001}\n"
      "benchmarks:\n"
      "  - {benchmark: flops, sweep: [{size: 2}], sampling: {time_cap_seconds: 0.000001}}\n"
      "  - {benchmark: bytes, sweep: [{size: 3}]}\n",
      "c");
  ASSERT_TRUE(suite.ok()) << suite.error().message;
  auto outcome = RunSuite(*suite, RunFilter{}, registry_, context_, progress_);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_EQ(outcome->measurements.size(), 1u);
  EXPECT_EQ(outcome->measurements[0].benchmark, "bytes");
  ASSERT_EQ(outcome->skipped.size(), 1u);
  EXPECT_EQ(
      outcome->skipped[0].rfind("flops {\"size\":2}: skipped: over its time cap (1e-06 s)", 0), 0u)
      << outcome->skipped[0];
  EXPECT_NE(progress_.str().find("... skipped: over its time cap"), std::string::npos)
      << progress_.str();
  EXPECT_EQ(outcome->done.size(), 2u);  // a resumed run does not try it again
}

TEST_F(RunnerTest, FiltersByComponentAndName) {
  RunFilter memory_only{{Component::kMemory}, {}};
  auto outcome = RunSuite(MakeSuite(), memory_only, registry_, context_, progress_);
  ASSERT_TRUE(outcome.ok());
  ASSERT_EQ(outcome->measurements.size(), 1u);
  EXPECT_EQ(outcome->measurements[0].benchmark, "bytes");

  RunFilter unknown{{}, {"warp"}};
  auto failed = RunSuite(MakeSuite(), unknown, registry_, context_, progress_);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ErrorCode::kNotFound);
}

TEST_F(RunnerTest, GpuPointsRunOncePerGpuAndNameTheirDevice) {
  registry_.Add(std::make_unique<CountingBenchmark>("gpu_flops", Component::kCompute));
  auto suite = ParseSuite(
      "name: g\nsampling: {warmup_samples: 0, samples: 3, min_sample_seconds: 0.001}\n"
      "benchmarks:\n  - benchmark: flops\n  - benchmark: gpu_flops\n",
      "g");
  ASSERT_TRUE(suite.ok());
  std::vector<Device> gpus(2);
  gpus[0].backend = gpus[1].backend = "nvidia";
  gpus[0].model = gpus[1].model = "NVIDIA H200";
  gpus[0].id = "nvidia:0";
  gpus[1].id = "nvidia:1";
  auto outcome = RunSuite(*suite, RunFilter{}, registry_, context_, progress_, gpus);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_EQ(outcome->measurements.size(), 3u);
  EXPECT_FALSE(outcome->measurements[0].device.has_value());  // the host's own point
  ASSERT_TRUE(outcome->measurements[2].device.has_value());
  EXPECT_EQ(outcome->measurements[2].device->id, "nvidia:1");
  EXPECT_EQ(outcome->measurements[2].parameters["device"], "nvidia:1");

  RunInfo run;
  run.device = device_;
  run.device.model = "Host CPU";
  nlohmann::json host_record = MeasurementRecord(outcome->measurements[0], run);
  nlohmann::json gpu_record = MeasurementRecord(outcome->measurements[1], run);
  EXPECT_EQ(host_record["device"]["backend"], "cpu");
  EXPECT_EQ(host_record["device"]["model"], "Host CPU");
  EXPECT_EQ(gpu_record["device"]["backend"], "nvidia");
  EXPECT_EQ(gpu_record["device"]["id"], "nvidia:0");
  EXPECT_EQ(gpu_record["metadata"]["device"], "NVIDIA H200");
}

// A benchmark that, while it runs, lets a test change the recorded /proc tree the runner reads
// around each point (other processes taking the CPUs).
class HookBenchmark final : public Benchmark {
 public:
  explicit HookBenchmark(std::function<void()> during) : during_(std::move(during)) {}
  std::string name() const override { return "hooked"; }
  Component component() const override { return Component::kCompute; }
  std::string description() const override { return "test"; }
  std::vector<nlohmann::json> default_sweep() const override { return {{{"size", 1}}}; }
  Status CanRun(const Device&, const nlohmann::json&) const override { return Status::Ok(); }
  Result<std::vector<Measurement>> Run(const nlohmann::json&, RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(TimedSamples samples,
                             CollectSamples(*context.queue, context.sampling, [](int64_t) {}));
    during_();
    return std::vector<Measurement>{MakeThroughput("hooked", "ops", samples, 1, true, context)};
  }

 private:
  std::function<void()> during_;
};

TEST_F(RunnerTest, APointMeasuredWhileOthersUsedTheCpusIsUnstable) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("runner_busy_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "proc/self");
  const auto stat = [&](int busy, int idle) {
    std::ofstream(root / "proc/stat")
        << "cpu  " << busy << " 0 0 " << idle << " 0 0 0 0 0 0\ncpu0 0\ncpu1 0\n";
    std::ofstream(root / "proc/self/stat") << "1 (t) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0\n";
  };
  stat(0, 0);
  bool busy = true;
  registry_.Add(std::make_unique<HookBenchmark>([&] { busy ? stat(150, 50) : stat(0, 200); }));
  context_.machine_root = root.string();
  auto suite = ParseSuite(
      "name: h\nsampling: {warmup_samples: 0, samples: 3, min_sample_seconds: 0.001}\n"
      "benchmarks:\n  - benchmark: hooked\n",
      "h");
  ASSERT_TRUE(suite.ok());
  auto outcome = RunSuite(*suite, RunFilter{}, registry_, context_, progress_);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  const Measurement& m = outcome->measurements.at(0);
  EXPECT_FALSE(m.stable);
  ASSERT_FALSE(m.unstable_reasons.empty());
  EXPECT_EQ(m.unstable_reasons[0],
            "busy machine: other processes used 75% of the 2 CPUs during this point (limit 10%)");
  EXPECT_DOUBLE_EQ(m.machine_load["other_cpu_share"].get<double>(), 0.75);
  EXPECT_NE(progress_.str().find("UNSTABLE: busy machine"), std::string::npos) << progress_.str();

  busy = false;
  stat(0, 0);
  outcome = RunSuite(*suite, RunFilter{}, registry_, context_, progress_);
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(outcome->measurements.at(0).stable);  // idle, steady samples
  std::filesystem::remove_all(root);
}

TEST(JudgeSpreadTest, OneSampleOrASpreadAboveTheTargetIsUnstable) {
  SamplingOptions sampling;
  Measurement one;
  one.statistics = ComputeStatistics({0.1});
  JudgeSpread(one, sampling);
  EXPECT_FALSE(one.stable);
  EXPECT_EQ(one.unstable_reasons.at(0), "one sample: its spread is unknown (take at least 2)");

  Measurement spread;
  spread.statistics = ComputeStatistics({0.1, 0.2, 0.15, 0.1, 0.2});
  JudgeSpread(spread, sampling);
  EXPECT_FALSE(spread.stable);
  EXPECT_EQ(spread.unstable_reasons.at(0).rfind("samples spread: robust CV", 0), 0u);

  Measurement steady;
  steady.statistics = ComputeStatistics({0.1, 0.1, 0.101, 0.1, 0.5});  // one outlier
  JudgeSpread(steady, sampling);
  EXPECT_TRUE(steady.stable);
}

TEST(ComponentTest, NamesRoundTrip) {
  for (Component c : {Component::kCompute, Component::kMemory, Component::kHostTransfer,
                      Component::kNetwork, Component::kAttention}) {
    auto parsed = ParseComponent(ComponentName(c));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, c);
  }
  EXPECT_FALSE(ParseComponent("gpu").ok());
}

}  // namespace
}  // namespace xpuperf::bench
