// The exporter over in-process test backends: one that answers at once, one that hangs, one whose
// device gets lost.
#include "xpuperf/exporter/exporter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "xpuperf/exporter/exposition.h"

namespace xpuperf::exporter {
namespace {

using namespace std::chrono_literals;

struct Script {
  std::atomic<bool> lost{false};
  std::atomic<int> hang_ms{0};
};

class TestBackend final : public Backend {
 public:
  TestBackend(std::string name, Script* script) : name_(std::move(name)), script_(script) {
    for (int i = 0; i < 2; ++i) {
      Device d;
      d.backend = name_;
      d.id = name_ + std::to_string(i);
      d.index = i;
      d.model = "Test Accelerator";
      d.uuid = "UUID-" + d.id;
      devices_.push_back(d);
    }
  }
  std::string_view name() const override { return name_; }
  const std::vector<Device>& devices() const override { return devices_; }
  std::vector<std::string_view> metrics() const override {
    return {metrics::kDutyCycle, metrics::kEnergy, metrics::kOpExecutionTime};
  }
  std::vector<Reading> Collect(const std::vector<std::string>&) override {
    if (int ms = script_->hang_ms.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    std::vector<Reading> out;
    for (const Device& d : devices_) {
      const bool lost = script_->lost && d.index == 1;
      for (std::string_view m : metrics()) {
        if (lost) {
          out.push_back(Reading::NoData(m, d.id, "no data: GPU lost (fell off the bus)"));
          continue;
        }
        Reading r;
        r.metric = std::string(m);
        r.device = d.id;
        Sample s;
        s.labels.Set("device", d.id);
        if (m == metrics::kOpExecutionTime) {
          Distribution dist = Distribution::WithBounds({0.001, 0.01});
          dist.Add(0.0005, 3);
          dist.Add(0.005, 1);
          s.labels.Set("op", "hlo");
          s.value = dist;
        } else {
          s.value = m == metrics::kDutyCycle ? 87.5 : 1000.0;
        }
        r.samples.push_back(std::move(s));
        out.push_back(std::move(r));
      }
    }
    return out;
  }

 private:
  std::string name_;
  Script* script_;
  std::vector<Device> devices_;
};

class ExporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.Register(
        "fast", "test", [this](const BackendOptions&) -> Result<std::unique_ptr<Backend>> {
          return std::unique_ptr<Backend>(std::make_unique<TestBackend>("fast", &fast_));
        });
    registry_.Register(
        "slow", "test", [this](const BackendOptions&) -> Result<std::unique_ptr<Backend>> {
          return std::unique_ptr<Backend>(std::make_unique<TestBackend>("slow", &slow_));
        });
    registry_.Register("absent", "test",
                       [](const BackendOptions&) -> Result<std::unique_ptr<Backend>> {
                         return MakeError(ErrorCode::kUnavailable, "no such runtime here");
                       });
  }
  ExporterOptions Options() {
    ExporterOptions o;
    o.registry = &registry_;
    o.interval_seconds = 0.05;
    o.deadline_seconds = 0.3;
    o.hostname = "node-a";
    return o;
  }
  // Waits until `pred(snapshot)` holds or 5 s pass.
  template <typename Pred>
  std::shared_ptr<const Snapshot> WaitFor(Exporter& e, Pred pred) {
    for (int i = 0; i < 500; ++i) {
      auto s = e.Latest();
      if (pred(*s)) return s;
      std::this_thread::sleep_for(10ms);
    }
    return e.Latest();
  }
  static const ScalarPoint* Point(const Snapshot& s, std::string_view family, std::string_view key,
                                  std::string_view value) {
    const MetricFamily* f = s.Find(family);
    if (f == nullptr) return nullptr;
    for (const ScalarPoint& p : f->points) {
      if (p.labels.Get(key) == value) return &p;
    }
    return nullptr;
  }
  BackendRegistry registry_;
  Script fast_, slow_;
};

TEST_F(ExporterTest, ExportsCatalogMetricsWithIdentityLabels) {
  ExporterOptions o = Options();
  o.backends = {"fast"};
  auto e = Exporter::Start(o);
  ASSERT_TRUE(e.ok()) << e.error().message;
  auto s = WaitFor(**e, [](const Snapshot& s) { return s.Find("xpuperf_duty_cycle_ratio"); });
  const ScalarPoint* duty = Point(*s, "xpuperf_duty_cycle_ratio", "device", "fast0");
  ASSERT_NE(duty, nullptr);
  EXPECT_DOUBLE_EQ(duty->value, 0.875);
  EXPECT_EQ(duty->labels.Get("backend"), "fast");
  EXPECT_EQ(duty->labels.Get("model"), "Test Accelerator");
  EXPECT_EQ(duty->labels.Get("uuid"), "UUID-fast0");
  EXPECT_EQ(duty->labels.Get("hostname"), "node-a");
  ASSERT_NE(s->Find("xpuperf_energy_joules_total"), nullptr);
  const MetricFamily* hist = s->Find("xpuperf_op_execution_time_seconds");
  ASSERT_NE(hist, nullptr);
  ASSERT_EQ(hist->histograms.size(), 2u);
  EXPECT_EQ(hist->histograms[0].cumulative, (std::vector<uint64_t>{3, 4}));
  EXPECT_EQ(hist->histograms[0].count, 4u);
  EXPECT_EQ(hist->histograms[0].labels.Get("op"), "hlo");
  EXPECT_DOUBLE_EQ(Point(*s, "xpuperf_collector_up", "backend", "fast")->value, 1);
  EXPECT_NE(s->Find("xpuperf_build_info"), nullptr);
  EXPECT_TRUE((*e)->Health().healthy);
  EXPECT_GT((*e)->history().size(), 0u);
}

TEST_F(ExporterTest, LostDeviceDropsOnlyItsSeries) {
  ExporterOptions o = Options();
  o.backends = {"fast"};
  auto e = Exporter::Start(o);
  ASSERT_TRUE(e.ok());
  WaitFor(**e, [](const Snapshot& s) { return s.Find("xpuperf_duty_cycle_ratio"); });
  fast_.lost = true;
  auto s = WaitFor(**e, [](const Snapshot& s) {
    const ScalarPoint* up = Point(s, "xpuperf_device_up", "device", "fast1");
    return up != nullptr && up->value == 0;
  });
  EXPECT_EQ(Point(*s, "xpuperf_duty_cycle_ratio", "device", "fast1"), nullptr);
  EXPECT_NE(Point(*s, "xpuperf_duty_cycle_ratio", "device", "fast0"), nullptr);
  EXPECT_DOUBLE_EQ(Point(*s, "xpuperf_device_up", "device", "fast0")->value, 1);
  bool found = false;
  for (const DeviceState& d : (*e)->Health().devices) {
    if (d.id == "fast1") {
      found = true;
      EXPECT_FALSE(d.up);
      EXPECT_NE(d.reason.find("GPU lost"), std::string::npos);
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(ExporterTest, AHungBackendNeverDelaysTheOthersAndIsNotServedStale) {
  ExporterOptions o = Options();
  o.backends = {"fast", "slow"};
  auto e = Exporter::Start(o);
  ASSERT_TRUE(e.ok());
  WaitFor(**e, [](const Snapshot& s) {
    return Point(s, "xpuperf_duty_cycle_ratio", "device", "slow0");
  });
  slow_.hang_ms = 1500;
  auto s = WaitFor(**e, [](const Snapshot& s) {
    const ScalarPoint* up = Point(s, "xpuperf_collector_up", "backend", "slow");
    return up != nullptr && up->value == 0;
  });
  EXPECT_EQ(Point(*s, "xpuperf_duty_cycle_ratio", "device", "slow0"), nullptr);
  EXPECT_NE(Point(*s, "xpuperf_duty_cycle_ratio", "device", "fast0"), nullptr);
  // The fast backend keeps producing fresh snapshots meanwhile.
  const uint64_t generation = (*e)->generation();
  std::this_thread::sleep_for(200ms);
  EXPECT_GT((*e)->generation(), generation + 2);
  HealthReport health = (*e)->Health();
  EXPECT_FALSE(health.healthy);
  for (const CollectorState& c : health.collectors) {
    if (c.backend == "slow") {
      EXPECT_NE(c.reason.find("deadline"), std::string::npos) << c.reason;
    }
  }
  slow_.hang_ms = 0;
}

TEST_F(ExporterTest, UnavailableBackendsAreListedUnlessAskedFor) {
  ExporterOptions o = Options();
  auto e = Exporter::Start(o);
  ASSERT_TRUE(e.ok());
  ASSERT_EQ((*e)->Health().unavailable.size(), 1u);
  EXPECT_EQ((*e)->Health().unavailable[0].name, "absent");
  o.backends = {"absent"};
  auto failed = Exporter::Start(o);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("no such runtime"), std::string::npos);
  o.backends = {"fast"};
  o.metrics = {"no_such_metric"};
  EXPECT_FALSE(Exporter::Start(o).ok());
}

TEST_F(ExporterTest, ProvidersAddFamiliesAndListenersSeeEverySnapshot) {
  ExporterOptions o = Options();
  o.backends = {"fast"};
  auto e = Exporter::Start(o);
  ASSERT_TRUE(e.ok());
  std::atomic<int> seen{0};
  (*e)->AddSnapshotListener([&seen](const std::shared_ptr<const Snapshot>& s) {
    if (s->Find("xpuperf_alerts")) ++seen;
  });
  (*e)->AddSeriesProvider("alerts", [] {
    return std::vector<MetricFamily>{
        MetricFamily{"xpuperf_alerts",
                     "Active alerts",
                     FamilyType::kGauge,
                     {ScalarPoint{{{"alertname", "GpuIdle"}}, 1}},
                     {}},
        MetricFamily{
            "xpuperf_duty_cycle_ratio", "taken", FamilyType::kGauge, {ScalarPoint{{}, 1}}, {}},
        MetricFamily{"not_ours", "bad prefix", FamilyType::kGauge, {ScalarPoint{{}, 1}}, {}}};
  });
  auto s = WaitFor(**e, [](const Snapshot& s) {
    return s.Find("xpuperf_alerts") && s.Find("xpuperf_duty_cycle_ratio");
  });
  ASSERT_NE(s->Find("xpuperf_alerts"), nullptr);
  EXPECT_EQ(s->Find("not_ours"), nullptr);
  EXPECT_EQ(s->Find("xpuperf_duty_cycle_ratio")->help.find("taken"), std::string::npos);
  EXPECT_GT(Point(*s, "xpuperf_exporter_dropped_families_total", "backend", "")->value, 0);
  std::this_thread::sleep_for(100ms);
  EXPECT_GT(seen.load(), 0);
}

}  // namespace
}  // namespace xpuperf::exporter
