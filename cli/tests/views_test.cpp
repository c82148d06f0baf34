// Golden-output tests of every view, from a constructed snapshot (no machine access).
#include "xpuperf/telemetry/views.h"

#include <gtest/gtest.h>

#include "test_util.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::cli {
namespace {

using telemetry::CatalogJson;
using telemetry::DevicesJson;
using telemetry::MetricsJson;
using telemetry::MetricsSnapshot;
using telemetry::RenderCatalog;
using telemetry::RenderDashboard;
using telemetry::RenderDevices;
using telemetry::RenderReadings;

namespace m = metrics;
constexpr int64_t kTimestamp = 1'764'500'000'000'000'000;

Device XeonHost() {
  Device d;
  d.backend = "cpu";
  d.id = "cpu0";
  d.vendor = "GenuineIntel";
  d.model = "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz";
  d.memory_bytes = 64ull << 30;
  d.features = {"avx2", "avx512f", "fma"};
  d.topology = {2,
                2,
                8,
                16,
                {{1, "data", 48 << 10, 8, 64},
                 {1, "instruction", 32 << 10, 8, 64},
                 {2, "unified", 1280 << 10, 8, 64},
                 {3, "unified", 48ull << 20, 2, 64}},
                "hwloc"};
  return d;
}

Sample Scalar(double value, Labels labels) {
  labels.Set(labels::kDevice, "cpu0");
  return Sample{std::move(labels), kTimestamp, value};
}

Reading Ok(std::string_view metric, std::vector<Sample> samples) {
  Reading r;
  r.metric = std::string(metric);
  r.device = "cpu0";
  r.samples = std::move(samples);
  return r;
}

Distribution Latencies(std::initializer_list<double> seconds) {
  Distribution d = Distribution::WithBounds(Distribution::ExponentialBounds(1e-6, 2, 20));
  for (double s : seconds) d.Add(s);
  return d;
}

MetricsSnapshot Snapshot() {
  MetricsSnapshot snap;
  snap.host = "node-17";
  snap.timestamp_ns = kTimestamp;
  snap.window_seconds = 0.5;
  snap.devices = {XeonHost()};
  snap.backends = {{"cpu", true, ""}};
  snap.readings = {
      Ok(m::kDutyCycle,
         {Scalar(37.5, {}), Scalar(50, {{"core", "0"}}), Scalar(25, {{"core", "1"}})}),
      Reading::Unsupported(m::kTensorCoreUtilization, "cpu0",
                           "unsupported: no CPU PMU exposed (typical in VMs)"),
      Ok(m::kMemoryTotal, {Scalar(64.0 * (1ull << 30), {})}),
      Ok(m::kMemoryUsed, {Scalar(16.0 * (1ull << 30), {})}),
      Ok(m::kTransferLatency, {Sample{{{"device", "cpu0"}, {"buffer_size", "4KiB"}},
                                      kTimestamp,
                                      Latencies({3e-6, 3.5e-6, 5e-6, 9e-6})},
                               Sample{{{"device", "cpu0"}, {"buffer_size", "1MiB"}},
                                      kTimestamp,
                                      Latencies({100e-6, 120e-6, 400e-6})}}),
      Ok(m::kOpExecutionTime, {Sample{{{"device", "cpu0"}, {"op", "matmul"}},
                                      kTimestamp,
                                      Latencies({1e-3, 1.1e-3, 1.2e-3, 5e-3})}}),
      Ok(m::kQueueSize, {Scalar(3, {})}),
      Ok(m::kPower,
         {Scalar(85.25, {{"domain", "package-0"}}), Scalar(10.5, {{"domain", "dram-0"}})}),
      Ok(m::kEnergy,
         {Scalar(1234.5, {{"domain", "package-0"}}), Scalar(99, {{"domain", "dram-0"}})}),
      Ok(m::kTemperature, {Scalar(51, {{"sensor", "coretemp/Package id 0"}})}),
      Ok(m::kClock, {Scalar(2.0e9, {{"core", "0"}}), Scalar(2.1e9, {{"core", "1"}})}),
      Reading::Unsupported(m::kMemoryBandwidthUtilization, "cpu0",
                           "unsupported: needs uncore memory-controller counters"),
      Ok(m::kErrors, {Scalar(2, {{"type", "ecc_corrected"}})}),
      Ok(m::kProcessCpu, {Scalar(101.5, {{"pid", "4242"}, {"command", "python3"}})}),
      Ok(m::kProcessMemory, {Scalar(3.0 * (1 << 30), {{"pid", "4242"}, {"command", "python3"}})}),
  };
  return snap;
}

TEST(ViewsTest, DashboardMatchesGolden) {
  EXPECT_EQ(testing::CompareGolden("dashboard.txt", RenderDashboard(Snapshot())), "");
}

TEST(ViewsTest, ReadingsTableMatchesGolden) {
  EXPECT_EQ(testing::CompareGolden("readings.txt", RenderReadings(Snapshot().readings)), "");
}

TEST(ViewsTest, MetricsJsonMatchesGolden) {
  EXPECT_EQ(testing::CompareGolden("metrics.json", MetricsJson(Snapshot()).dump(2) + "\n"), "");
}

TEST(ViewsTest, DevicesTableAndJsonMatchGolden) {
  std::vector<BackendStatus> backends = {{"cpu", true, ""},
                                         {"nvidia", false, "libnvidia-ml.so.1 not found"}};
  EXPECT_EQ(testing::CompareGolden("devices.txt", RenderDevices({XeonHost()}, backends)), "");
  EXPECT_EQ(testing::CompareGolden("devices.json",
                                   DevicesJson("node-17", {XeonHost()}, backends).dump(2) + "\n"),
            "");
}

TEST(ViewsTest, CatalogListsEveryMetric) {
  const std::string table = RenderCatalog();
  for (const MetricInfo& info : MetricCatalog()) {
    EXPECT_NE(table.find(std::string(info.name)), std::string::npos) << info.name;
  }
  EXPECT_EQ(CatalogJson()["metrics"].size(), MetricCatalog().size());
}

TEST(ViewsTest, NoDevicesSaysWhy) {
  MetricsSnapshot snap;
  snap.backends = {{"cpu", false, "cannot read /proc/stat: No such file or directory"}};
  EXPECT_EQ(RenderDashboard(snap),
            "No devices available.\n  cpu: cannot read /proc/stat: No such file or directory\n");
}

TEST(ViewsTest, NoDataDistributionsPrintNoDataNotZero) {
  MetricsSnapshot snap = Snapshot();
  snap.readings = {Reading::NoData(m::kOpExecutionTime, "cpu0", "no data: nothing recorded")};
  const std::string text = RenderDashboard(snap);
  EXPECT_NE(text.find("no data: nothing recorded"), std::string::npos);
  EXPECT_EQ(text.find("Op execution time"), std::string::npos);
}

}  // namespace
}  // namespace xpuperf::cli
