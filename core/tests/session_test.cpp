#include "xpuperf/core/session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf {
namespace {

// A backend with devices fake0 and fake1: memory_total_bytes is 1 KiB x (index + 1),
// duty_cycle_percent is a rate (no data on the first Collect, then 50), op_execution_time_seconds
// has no data, every other metric is unsupported. Readings come out in reverse device order so that
// the session's ordering is what the tests see.
class FakeBackend final : public Backend {
 public:
  FakeBackend() {
    for (int i = 0; i < 2; ++i) {
      Device d;
      d.backend = "fake";
      d.id = "fake" + std::to_string(i);
      d.index = i;
      d.memory_bytes = 1024 * static_cast<uint64_t>(i + 1);
      devices_.push_back(d);
    }
  }
  std::string_view name() const override { return "fake"; }
  const std::vector<Device>& devices() const override { return devices_; }
  std::vector<std::string_view> metrics() const override {
    return {metrics::kOpExecutionTime, metrics::kMemoryTotal, metrics::kDutyCycle};
  }
  std::vector<Reading> Collect(const std::vector<std::string>& metric_names) override {
    std::vector<std::string> names = metric_names;
    if (names.empty()) {
      for (std::string_view m : metrics()) names.emplace_back(m);
    }
    std::vector<Reading> out;
    for (auto d = devices_.rbegin(); d != devices_.rend(); ++d) {
      for (const std::string& m : names) out.push_back(Read(m, *d));
    }
    ++collects_;
    return out;
  }

 private:
  Reading Read(std::string_view metric, const Device& d) const {
    auto value = [&](double v) {
      Reading r;
      r.metric = std::string(metric);
      r.device = d.id;
      r.samples.push_back(Sample{Labels{{"device", d.id}}, 1, v});
      return r;
    };
    if (metric == metrics::kMemoryTotal) return value(static_cast<double>(d.memory_bytes));
    if (metric == metrics::kDutyCycle) {
      return collects_ == 0 ? Reading::NoData(metric, d.id, "first sample of a rate") : value(50);
    }
    if (metric == metrics::kOpExecutionTime) {
      return Reading::NoData(metric, d.id, "no runtime attached");
    }
    return Reading::Unsupported(metric, d.id, "the fake backend has no " + std::string(metric));
  }

  std::vector<Device> devices_;
  int collects_ = 0;
};

// "fake" opens a FakeBackend; "broken" always fails to open, as a runtime that is not serving.
void RegisterFakes(BackendRegistry& registry) {
  registry.Register("fake", "test backend", [](const BackendOptions&) {
    return Result<std::unique_ptr<Backend>>(std::make_unique<FakeBackend>());
  });
  registry.Register("broken", "never opens", [](const BackendOptions&) {
    return Result<std::unique_ptr<Backend>>(
        MakeError(ErrorCode::kUnavailable, "runtime not serving on localhost:8431"));
  });
}

std::unique_ptr<Session> OpenOrDie(const BackendRegistry& registry, SessionOptions options = {}) {
  auto session = Session::Open(registry, std::move(options));
  if (!session.ok()) {
    ADD_FAILURE() << session.error().ToString();
    return nullptr;
  }
  return std::move(session).value();
}

std::vector<std::pair<std::string, std::string>> Keys(const std::vector<Reading>& readings) {
  std::vector<std::pair<std::string, std::string>> keys;
  for (const Reading& r : readings) keys.emplace_back(r.metric, r.device);
  return keys;
}

TEST(SessionTest, ImplicitBackendsThatCannotOpenAreReportedWithTheirReason) {
  BackendRegistry registry;
  RegisterFakes(registry);
  auto session = OpenOrDie(registry);
  ASSERT_NE(session, nullptr);
  ASSERT_EQ(session->backends().size(), 2u);
  EXPECT_EQ(session->backends()[0].name, "fake");
  EXPECT_TRUE(session->backends()[0].available);
  EXPECT_EQ(session->backends()[1].name, "broken");
  EXPECT_FALSE(session->backends()[1].available);
  EXPECT_EQ(session->backends()[1].reason, "runtime not serving on localhost:8431");
  ASSERT_EQ(session->devices().size(), 2u);
  EXPECT_EQ(session->devices()[0].id, "fake0");
  EXPECT_EQ(session->devices()[1].id, "fake1");
}

TEST(SessionTest, ExplicitBackendThatCannotOpenIsAnError) {
  BackendRegistry registry;
  RegisterFakes(registry);
  SessionOptions options;
  options.backends = {"fake", "broken"};
  auto session = Session::Open(registry, options);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(session.error().message.find("broken"), std::string::npos) << session.error().message;
  EXPECT_NE(session.error().message.find("not serving"), std::string::npos);
}

TEST(SessionTest, UnknownBackendIsNotFoundAndListsTheKnownOnes) {
  BackendRegistry registry;
  RegisterFakes(registry);
  SessionOptions options;
  options.backends = {"tpu"};
  auto session = Session::Open(registry, options);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.error().code, ErrorCode::kNotFound);
  EXPECT_NE(session.error().message.find("fake, broken"), std::string::npos)
      << session.error().message;
}

TEST(SessionTest, UnknownMetricAndUnknownDeviceAreNotFound) {
  BackendRegistry registry;
  RegisterFakes(registry);
  auto session = OpenOrDie(registry);
  ASSERT_NE(session, nullptr);
  auto metric = session->Collect({"memory_total_bytes", "flux_capacitance"});
  ASSERT_FALSE(metric.ok());
  EXPECT_EQ(metric.error().code, ErrorCode::kNotFound);
  EXPECT_NE(metric.error().message.find("flux_capacitance"), std::string::npos);

  auto device = session->Collect({"memory_total_bytes"}, {"fake9"});
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().code, ErrorCode::kNotFound);
  EXPECT_NE(device.error().message.find("fake9"), std::string::npos);
}

TEST(SessionTest, ReadingsInCatalogOrderThenDeviceOrder) {
  BackendRegistry registry;
  RegisterFakes(registry);
  auto session = OpenOrDie(registry);
  ASSERT_NE(session, nullptr);
  // Asked in reverse catalog order; the backend answers in reverse device order.
  auto readings = session->Collect({"memory_total_bytes", "duty_cycle_percent"});
  ASSERT_TRUE(readings.ok()) << readings.error().ToString();
  using Key = std::pair<std::string, std::string>;
  EXPECT_EQ(Keys(*readings), (std::vector<Key>{{"duty_cycle_percent", "fake0"},
                                               {"duty_cycle_percent", "fake1"},
                                               {"memory_total_bytes", "fake0"},
                                               {"memory_total_bytes", "fake1"}}));
  EXPECT_EQ((*readings)[2].samples.at(0).scalar(), 1024.0);
  EXPECT_EQ((*readings)[3].samples.at(0).scalar(), 2048.0);
}

TEST(SessionTest, DeviceFilterAndRateMetricsBetweenCollects) {
  BackendRegistry registry;
  RegisterFakes(registry);
  auto session = OpenOrDie(registry);
  ASSERT_NE(session, nullptr);
  auto first = session->Collect({"duty_cycle_percent"}, {"fake1"});
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].device, "fake1");
  EXPECT_EQ((*first)[0].state, ReadingState::kNoData);
  EXPECT_EQ((*first)[0].reason, "first sample of a rate");

  auto second = session->Collect({"duty_cycle_percent"}, {"fake1"});
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ((*second)[0].state, ReadingState::kOk);
  EXPECT_EQ((*second)[0].samples.at(0).scalar(), 50.0);
}

TEST(SessionTest, MetricsListsWhatBackendsAndRecorderProvideInCatalogOrder) {
  BackendRegistry registry;
  RegisterFakes(registry);
  auto plain = OpenOrDie(registry);
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->metrics(), (std::vector<std::string>{"duty_cycle_percent", "memory_total_bytes",
                                                        "op_execution_time_seconds"}));

  Recorder recorder;
  SessionOptions options;
  options.recorder = &recorder;
  auto with_recorder = OpenOrDie(registry, options);
  ASSERT_NE(with_recorder, nullptr);
  EXPECT_EQ(with_recorder->metrics(),
            (std::vector<std::string>{"duty_cycle_percent", "memory_total_bytes",
                                      "transfer_latency_seconds", "op_execution_time_seconds",
                                      "queue_size"}));
}

TEST(SessionTest, RecordedOpsReplaceTheBackendsNoData) {
  BackendRegistry registry;
  RegisterFakes(registry);
  Recorder recorder;
  recorder.RecordOp("matmul", 2'000, "fake0");
  recorder.RecordOp("matmul", 4'000, "fake0");
  ManualClock clock;
  clock.AdvanceNs(77);
  SessionOptions options;
  options.recorder = &recorder;
  options.backend.clock = &clock;
  auto session = OpenOrDie(registry, options);
  ASSERT_NE(session, nullptr);

  auto readings = session->Collect({"op_execution_time_seconds"});
  ASSERT_TRUE(readings.ok()) << readings.error().ToString();
  ASSERT_EQ(readings->size(), 2u);
  const Reading& fake0 = (*readings)[0];
  EXPECT_EQ(fake0.device, "fake0");
  EXPECT_EQ(fake0.state, ReadingState::kOk);
  EXPECT_TRUE(fake0.reason.empty());
  ASSERT_EQ(fake0.samples.size(), 1u);
  EXPECT_EQ(fake0.samples[0].labels.Get("op"), "matmul");
  EXPECT_EQ(fake0.samples[0].timestamp_ns, clock.WallNs());
  EXPECT_EQ(fake0.samples[0].distribution().count, 2u);
  EXPECT_DOUBLE_EQ(fake0.samples[0].distribution().sum, 6e-6);
  // Nothing recorded on fake1: the backend's own reason stays.
  const Reading& fake1 = (*readings)[1];
  EXPECT_EQ(fake1.device, "fake1");
  EXPECT_EQ(fake1.state, ReadingState::kNoData);
  EXPECT_EQ(fake1.reason, "no runtime attached");
}

TEST(SessionTest, RecorderMetricsTheBackendLacksAreAdded) {
  BackendRegistry registry;
  RegisterFakes(registry);
  Recorder recorder;
  recorder.SetQueueDepth(3, "fake1");
  SessionOptions options;
  options.recorder = &recorder;
  auto session = OpenOrDie(registry, options);
  ASSERT_NE(session, nullptr);
  auto readings = session->Collect({"queue_size"});
  ASSERT_TRUE(readings.ok());
  ASSERT_EQ(readings->size(), 2u);
  // Nothing recorded on fake0: the backend's own answer stays.
  EXPECT_EQ((*readings)[0].device, "fake0");
  EXPECT_EQ((*readings)[0].state, ReadingState::kUnsupported);
  EXPECT_EQ((*readings)[0].reason, "the fake backend has no queue_size");
  EXPECT_EQ((*readings)[1].device, "fake1");
  ASSERT_EQ((*readings)[1].state, ReadingState::kOk);
  EXPECT_EQ((*readings)[1].samples.at(0).scalar(), 3.0);
}

// A workload may record under a device no backend lists (its own accelerator name, or cpu0 where
// the cpu backend cannot run): the data is reported after the backends' devices, not dropped.
TEST(SessionTest, DevicesKnownOnlyToTheRecorderAreReported) {
  BackendRegistry registry;
  RegisterFakes(registry);
  Recorder recorder;
  recorder.RecordOp("decode", 1'000, "accel9");
  SessionOptions options;
  options.recorder = &recorder;
  auto session = OpenOrDie(registry, options);
  ASSERT_NE(session, nullptr);

  auto all = session->Collect({"op_execution_time_seconds"});
  ASSERT_TRUE(all.ok()) << all.error().ToString();
  using Key = std::pair<std::string, std::string>;
  EXPECT_EQ(Keys(*all), (std::vector<Key>{{"op_execution_time_seconds", "fake0"},
                                          {"op_execution_time_seconds", "fake1"},
                                          {"op_execution_time_seconds", "accel9"}}));
  EXPECT_EQ(all->back().state, ReadingState::kOk);

  auto one = session->Collect({"op_execution_time_seconds"}, {"accel9"});
  ASSERT_TRUE(one.ok()) << one.error().ToString();
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].samples.at(0).distribution().count, 1u);
  // Still not a hardware device of the session.
  EXPECT_EQ(session->devices().size(), 2u);

  // Without the recorder the name is unknown.
  auto without = OpenOrDie(registry);
  ASSERT_NE(without, nullptr);
  EXPECT_FALSE(without->Collect({"op_execution_time_seconds"}, {"accel9"}).ok());
}

TEST(SessionTest, NoBackendsMeansNoDevicesAndNoReadings) {
  const BackendRegistry empty;
  auto session = OpenOrDie(empty);
  ASSERT_NE(session, nullptr);
  EXPECT_TRUE(session->devices().empty());
  EXPECT_TRUE(session->backends().empty());
  auto readings = session->Collect({"memory_total_bytes"});
  ASSERT_TRUE(readings.ok());
  EXPECT_TRUE(readings->empty());
}

}  // namespace
}  // namespace xpuperf
