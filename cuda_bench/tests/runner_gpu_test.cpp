// The runner's GPU dispatch: gpu_* benchmarks run once per GPU with parameters.device set, the
// others on the host device; a point a GPU cannot run is skipped with "on <id>" in its label.
#include <gtest/gtest.h>

#include <sstream>

#include "xpuperf/bench/registry.h"
#include "xpuperf/bench/runner.h"

namespace xpuperf::bench {
namespace {

class RecordingBenchmark final : public Benchmark {
 public:
  RecordingBenchmark(std::string name, std::vector<std::string>* runs)
      : name_(std::move(name)), runs_(runs) {}
  std::string name() const override { return name_; }
  Component component() const override { return Component::kCompute; }
  std::string description() const override { return "records where it runs"; }
  std::vector<nlohmann::json> default_sweep() const override {
    return {{{"size", 1}}, {{"size", 2}}};
  }
  Status CanRun(const Device& device, const nlohmann::json& point) const override {
    if (device.id == "nvidia1" && point.value("size", 0) == 2) {
      return MakeError(ErrorCode::kUnsupported, "unsupported: too small a GPU");
    }
    return Status::Ok();
  }
  Result<std::vector<Measurement>> Run(const nlohmann::json& point, RunContext& context) override {
    runs_->push_back(name_ + "/" + context.device->id + "/" +
                     std::to_string(point.value("size", 0)));
    Measurement m;
    m.benchmark = name_;
    m.metric = "x";
    m.value = 1;
    m.parameters = point;
    return std::vector<Measurement>{m};
  }

 private:
  std::string name_;
  std::vector<std::string>* runs_;
};

Device MakeDevice(std::string backend, std::string id, int index) {
  Device device;
  device.backend = std::move(backend);
  device.id = std::move(id);
  device.index = index;
  return device;
}

TEST(RunnerGpuTest, GpuBenchmarksRunOncePerGpuAndTheOthersOnTheHost) {
  std::vector<std::string> runs;
  BenchmarkRegistry registry;
  registry.Add(std::make_unique<RecordingBenchmark>("host_thing", &runs));
  registry.Add(std::make_unique<RecordingBenchmark>("gpu_thing", &runs));
  Suite suite;
  suite.name = "t";
  for (const char* name : {"host_thing", "gpu_thing"}) {
    SuiteEntry entry;
    entry.benchmark = name;
    suite.entries.push_back(entry);
  }
  const Device cpu = MakeDevice("cpu", "cpu0", 0);
  const std::vector<Device> gpus = {MakeDevice("nvidia", "nvidia0", 0),
                                    MakeDevice("nvidia", "nvidia1", 1)};
  HostQueue queue;
  RunContext context;
  context.device = &cpu;
  context.queue = &queue;
  std::ostringstream progress;
  const auto outcome = RunSuite(suite, RunFilter{}, registry, context, progress, gpus);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(runs, (std::vector<std::string>{"host_thing/cpu0/1", "host_thing/cpu0/2",
                                            "gpu_thing/nvidia0/1", "gpu_thing/nvidia1/1",
                                            "gpu_thing/nvidia0/2"}));
  ASSERT_EQ(outcome->measurements.size(), 5u);
  EXPECT_FALSE(outcome->measurements[0].parameters.contains("device"));
  EXPECT_EQ(outcome->measurements[2].parameters.value("device", ""), "nvidia0");
  EXPECT_EQ(outcome->measurements[3].parameters.value("device", ""), "nvidia1");
  EXPECT_EQ(outcome->skipped,
            (std::vector<std::string>{
                "gpu_thing {\"size\":2} on nvidia1: unsupported: too small a GPU"}));
  EXPECT_NE(progress.str().find("run   gpu_thing {\"size\":1} on nvidia1 ..."), std::string::npos)
      << progress.str();
  // The context is the host's again afterwards.
  EXPECT_EQ(context.device, &cpu);
}

TEST(RunnerGpuTest, WithoutGpusGpuBenchmarksAreOfferedTheHostDevice) {
  std::vector<std::string> runs;
  BenchmarkRegistry registry;
  registry.Add(std::make_unique<RecordingBenchmark>("gpu_thing", &runs));
  Suite suite;
  suite.name = "t";
  SuiteEntry entry;
  entry.benchmark = "gpu_thing";
  suite.entries.push_back(entry);
  const Device cpu = MakeDevice("cpu", "cpu0", 0);
  HostQueue queue;
  RunContext context;
  context.device = &cpu;
  context.queue = &queue;
  std::ostringstream progress;
  const auto outcome = RunSuite(suite, RunFilter{}, registry, context, progress, {});
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(runs, (std::vector<std::string>{"gpu_thing/cpu0/1", "gpu_thing/cpu0/2"}));
  EXPECT_FALSE(outcome->measurements[0].parameters.contains("device"));
}

}  // namespace
}  // namespace xpuperf::bench
