// The AMD backend on recorded sysfs/procfs trees: an Instinct MI300X (gpu_metrics 1.6, RAS, no
// hwmon clocks) and a Radeon RX 7900 XTX (gpu_metrics 1.3, hwmon clocks, no RAS).
#include "xpuperf/amd/amd_backend.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "drm_test_tree.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::amd {
namespace {

namespace m = metrics;
using drm::testing::ReadingOf;
using drm::testing::RecordedFdIsDrm;
using drm::testing::TempTree;
using drm::testing::ValueOf;

std::string Tree(const std::string& name) {
  return std::string(XPUPERF_TEST_DATA_DIR) + "/trees/" + name;
}
std::string Blob(const std::string& name) {
  return std::string(XPUPERF_TEST_DATA_DIR) + "/gpu_metrics/" + name;
}

std::unique_ptr<Backend> Open(const std::string& root, const Clock& clock) {
  BackendOptions options;
  options.root = root;
  options.clock = &clock;
  AmdBackendConfig config;
  config.is_drm_fd = RecordedFdIsDrm;
  config.amd_smi_library = "none";  // amd_smi_test.cpp covers the library
  auto backend = CreateAmdBackend(options, config);
  EXPECT_TRUE(backend.ok()) << backend.error().message;
  return backend.ok() ? std::move(backend).value() : nullptr;
}

bool HasFeature(const Device& d, const std::string& feature) {
  return std::find(d.features.begin(), d.features.end(), feature) != d.features.end();
}

constexpr const char* kCard1 = "/sys/class/drm/card1/device";

TEST(AmdBackend, Mi300xDevice) {
  ManualClock clock;
  auto backend = Open(Tree("mi300x"), clock);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->name(), "amd");
  ASSERT_EQ(backend->devices().size(), 1u);
  const Device& d = backend->devices()[0];
  EXPECT_EQ(d.backend, "amd");
  EXPECT_EQ(d.id, "amd0");
  EXPECT_EQ(d.vendor, "AMD");
  EXPECT_EQ(d.model, "AMD Instinct MI300X OAM");  // product_name
  EXPECT_EQ(d.uuid, "0x5ad2a1e5c37b0e1f");
  EXPECT_EQ(d.bus_id, "0000:0c:00.0");
  EXPECT_EQ(d.memory_bytes, 206158430208u);
  for (const char* f : {"pci_id:1002:74a1", "driver:amdgpu", "driver_version:6.8.5",
                        "serial:692351000123", "numa_node:0", "gpu_metrics:1.6"}) {
    EXPECT_TRUE(HasFeature(d, f)) << f;
  }
}

TEST(AmdBackend, Mi300xMetrics) {
  ManualClock clock;
  auto backend = Open(Tree("mi300x"), clock);
  ASSERT_NE(backend, nullptr);
  const auto r = backend->Collect({});
  auto value = [&](std::string_view metric, Labels labels = {}) {
    return ValueOf(ReadingOf(r, metric, "amd0"), "amd0", labels);
  };
  EXPECT_EQ(value(m::kDutyCycle), 87);  // gpu_busy_percent
  EXPECT_EQ(value(m::kMemoryBandwidthUtilization), 41);
  EXPECT_EQ(value(m::kMemoryTotal), 206158430208.0);
  EXPECT_EQ(value(m::kMemoryUsed), 68719476736.0);
  EXPECT_EQ(value(m::kPower, {{"domain", "gpu"}}), 356);               // hwmon power1_input, µW
  EXPECT_DOUBLE_EQ(value(m::kEnergy, {{"domain", "gpu"}}), 100000.0);  // 6553600000 × 2^-16 J
  const Reading& temps = ReadingOf(r, m::kTemperature, "amd0");
  EXPECT_EQ(temps.samples.size(), 3u);
  EXPECT_EQ(value(m::kTemperature, {{"sensor", "junction"}}), 62);  // hwmon temp2
  EXPECT_EQ(value(m::kTemperature, {{"sensor", "memory"}}), 55);    // hwmon temp3
  EXPECT_EQ(value(m::kTemperature, {{"sensor", "vrsoc"}}), 48);     // gpu_metrics only
  // No hwmon freq files: gpu_metrics clocks (XCC 0).
  EXPECT_EQ(value(m::kClock, {{"type", "gfx"}}), 2100e6);
  EXPECT_EQ(value(m::kClock, {{"type", "memory"}}), 1300e6);
  EXPECT_EQ(value(m::kClock, {{"type", "soc"}}), 1200e6);
  const Reading& errors = ReadingOf(r, m::kErrors, "amd0");
  EXPECT_EQ(errors.samples.size(), 7u);
  EXPECT_EQ(value(m::kErrors, {{"type", "umc_correctable"}}), 12);
  EXPECT_EQ(value(m::kErrors, {{"type", "umc_uncorrectable"}}), 0);
  EXPECT_EQ(value(m::kErrors, {{"type", "gfx_uncorrectable"}}), 1);
  EXPECT_EQ(value(m::kErrors, {{"type", "sdma_correctable"}}), 0);
  EXPECT_EQ(value(m::kErrors, {{"type", "pcie_replay"}}), 0);
  EXPECT_EQ(value(m::kHostLinkThroughput, {{"direction", "total"}}), 8e9);  // 64000 Mb/s
  // The power cap (hwmon power1_cap, µW) and the top DPM levels as the maximum clocks.
  EXPECT_EQ(value(m::kPowerLimit, {{"type", "current"}}), 750);
  EXPECT_EQ(value(m::kClockMax, {{"type", "gfx"}}), 2100e6);
  // The recorded tree has no PCIe link files: unsupported with the file it looked for.
  const Reading& link = ReadingOf(r, m::kHostLinkWidth, "amd0");
  EXPECT_EQ(link.state, ReadingState::kUnsupported);
  EXPECT_NE(link.reason.find("current_link_speed"), std::string::npos) << link.reason;
  // One client (two fds) of pid 4242 holds 8 GiB, pid 5151 1 GiB.
  EXPECT_EQ(value(m::kProcessMemory, {{"pid", "4242"}}), 8589934592.0);
  EXPECT_EQ(value(m::kProcessMemory, {{"pid", "5151"}}), 1073741824.0);

  const Reading& tensor = ReadingOf(r, m::kTensorCoreUtilization, "amd0");
  EXPECT_EQ(tensor.state, ReadingState::kUnsupported);
  EXPECT_NE(tensor.reason.find("matrix-core"), std::string::npos) << tensor.reason;
  // Rates have only the opening snapshot so far.
  EXPECT_EQ(ReadingOf(r, m::kPeerLinkThroughput, "amd0").state, ReadingState::kNoData);
  EXPECT_EQ(ReadingOf(r, m::kClockEventActive, "amd0").state, ReadingState::kNoData);
  // Every catalog metric the backend lists has a reading.
  EXPECT_EQ(r.size(), backend->metrics().size());
  for (const Reading& reading : r) {
    EXPECT_NE(FindMetric(reading.metric), nullptr) << reading.metric;
    if (reading.state != ReadingState::kOk) {
      EXPECT_FALSE(reading.reason.empty()) << reading.metric;
    }
  }
}

TEST(AmdBackend, Mi300xRatesBetweenTwoSamples) {
  TempTree tree(Tree("mi300x"));
  ManualClock clock;
  auto backend = Open(tree.root(), clock);
  ASSERT_NE(backend, nullptr);
  // One second later: XGMI totals doubled (36000 -> 72000 KB read, 18000 -> 36000 KB written),
  // PPT residency grew 250 -> 260 over 100 accumulation cycles, pid 4242's gfx engine ran 0.5 s.
  clock.AdvanceNs(1'000'000'000);
  tree.Copy(Blob("v1_6-mi300x-b.bin"), std::string(kCard1) + "/gpu_metrics");
  std::string fdinfo =
      "drm-driver:\tamdgpu\ndrm-client-id:\t7\ndrm-pdev:\t0000:0c:00.0\n"
      "drm-memory-vram:\t8388608 KiB\ndrm-engine-gfx:\t1500000000 ns\n";
  tree.Write("/proc/4242/fdinfo/3", fdinfo);
  tree.Write("/proc/4242/fdinfo/4", fdinfo);
  const auto r =
      backend->Collect({std::string(m::kPeerLinkThroughput), std::string(m::kClockEventActive),
                        std::string(m::kProcessEngineBusy)});
  const Reading& peer = ReadingOf(r, m::kPeerLinkThroughput, "amd0");
  EXPECT_EQ(ValueOf(peer, "amd0", {{"direction", "rx"}}), 36000 * 1000.0);
  EXPECT_EQ(ValueOf(peer, "amd0", {{"direction", "tx"}}), 18000 * 1000.0);
  const Reading& throttle = ReadingOf(r, m::kClockEventActive, "amd0");
  ASSERT_EQ(throttle.state, ReadingState::kOk) << throttle.reason;
  EXPECT_EQ(throttle.samples.size(), 5u);
  EXPECT_EQ(ValueOf(throttle, "amd0", {{"reason", "ppt"}}), 1);
  EXPECT_EQ(ValueOf(throttle, "amd0", {{"reason", "prochot"}}), 0);
  EXPECT_EQ(ValueOf(throttle, "amd0", {{"reason", "hbm_thermal"}}), 0);
  const Reading& busy = ReadingOf(r, m::kProcessEngineBusy, "amd0");
  EXPECT_DOUBLE_EQ(ValueOf(busy, "amd0", {{"pid", "4242"}, {"engine", "gfx"}}), 50.0);
  EXPECT_DOUBLE_EQ(ValueOf(busy, "amd0", {{"pid", "5151"}, {"engine", "compute"}}), 0.0);
  EXPECT_DOUBLE_EQ(ValueOf(busy, "amd0", {{"pid", "5151"}, {"engine", "dma"}}), 0.0);
}

TEST(AmdBackend, Navi31ConsumerPart) {
  ManualClock clock;
  auto backend = Open(Tree("navi31"), clock);
  ASSERT_NE(backend, nullptr);
  ASSERT_EQ(backend->devices().size(), 1u);  // card0-DP-1 is a connector
  const Device& d = backend->devices()[0];
  EXPECT_EQ(d.model, "AMD Radeon RX 7900 XT/7900 XTX");  // PCI id table: no product_name
  EXPECT_EQ(d.uuid, "");
  EXPECT_EQ(d.bus_id, "0000:03:00.0");
  EXPECT_EQ(d.memory_bytes, 25753026560u);
  EXPECT_TRUE(HasFeature(d, "driver_version:kernel-6.1.0-26-amd64"));
  EXPECT_TRUE(HasFeature(d, "gpu_metrics:1.3"));
  EXPECT_FALSE(std::any_of(d.features.begin(), d.features.end(),
                           [](const std::string& f) { return f.starts_with("numa_node"); }));

  const auto r = backend->Collect({});
  auto value = [&](std::string_view metric, Labels labels = {}) {
    return ValueOf(ReadingOf(r, metric, "amd0"), "amd0", labels);
  };
  EXPECT_EQ(value(m::kDutyCycle), 35);
  EXPECT_EQ(value(m::kMemoryBandwidthUtilization), 20);
  EXPECT_EQ(value(m::kMemoryUsed), 1073741824.0);
  EXPECT_EQ(value(m::kPower, {{"domain", "gpu"}}), 212);  // power1_average
  EXPECT_DOUBLE_EQ(value(m::kEnergy, {{"domain", "gpu"}}), 50.0);
  EXPECT_EQ(ReadingOf(r, m::kTemperature, "amd0").samples.size(), 6u);
  EXPECT_EQ(value(m::kTemperature, {{"sensor", "edge"}}), 45);
  EXPECT_EQ(value(m::kTemperature, {{"sensor", "junction"}}), 58);
  EXPECT_EQ(value(m::kTemperature, {{"sensor", "memory"}}), 50);
  EXPECT_EQ(value(m::kTemperature, {{"sensor", "vrgfx"}}), 44);
  EXPECT_EQ(value(m::kClock, {{"type", "gfx"}}), 2.5e9);       // hwmon freq1_input (Hz)
  EXPECT_EQ(value(m::kClock, {{"type", "memory"}}), 1.249e9);  // hwmon freq2_input
  EXPECT_EQ(value(m::kClock, {{"type", "soc"}}), 1100e6);      // gpu_metrics
  const Reading& errors = ReadingOf(r, m::kErrors, "amd0");
  ASSERT_EQ(errors.samples.size(), 1u);  // no RAS on a Radeon
  EXPECT_EQ(value(m::kErrors, {{"type", "pcie_replay"}}), 2);
  const Reading& host = ReadingOf(r, m::kHostLinkThroughput, "amd0");
  EXPECT_EQ(host.state, ReadingState::kUnsupported);
  EXPECT_NE(host.reason.find("before 1.4"), std::string::npos) << host.reason;
  EXPECT_EQ(ReadingOf(r, m::kPeerLinkThroughput, "amd0").state, ReadingState::kUnsupported);
  // gpu_metrics 1.3: ASIC-independent throttler bits PPT0 (0) and TEMP_EDGE (35) are set.
  const Reading& throttle = ReadingOf(r, m::kClockEventActive, "amd0");
  EXPECT_EQ(throttle.samples.size(), 18u);
  EXPECT_EQ(value(m::kClockEventActive, {{"reason", "ppt0"}}), 1);
  EXPECT_EQ(value(m::kClockEventActive, {{"reason", "temp_edge"}}), 1);
  EXPECT_EQ(value(m::kClockEventActive, {{"reason", "temp_hotspot"}}), 0);
  EXPECT_EQ(value(m::kProcessMemory, {{"pid", "900"}}), 524288.0 * 1024);
}

TEST(AmdBackend, UnknownGpuMetricsRevisionFallsBackToTextFiles) {
  TempTree tree(Tree("mi300x"));
  tree.Copy(Blob("v1_9-unknown.bin"), std::string(kCard1) + "/gpu_metrics");
  ManualClock clock;
  auto backend = Open(tree.root(), clock);
  ASSERT_NE(backend, nullptr);
  const auto r = backend->Collect({});
  // Clocks from pp_dpm_sclk / pp_dpm_mclk, power from hwmon; nothing read from the table.
  EXPECT_EQ(ValueOf(ReadingOf(r, m::kClock, "amd0"), "amd0", {{"type", "gfx"}}), 2100e6);
  EXPECT_EQ(ValueOf(ReadingOf(r, m::kClock, "amd0"), "amd0", {{"type", "memory"}}), 1300e6);
  EXPECT_EQ(ReadingOf(r, m::kTemperature, "amd0").samples.size(), 2u);
  const Reading& energy = ReadingOf(r, m::kEnergy, "amd0");
  EXPECT_EQ(energy.state, ReadingState::kUnsupported);
  EXPECT_EQ(energy.reason,
            "unsupported: gpu_metrics revision 1.9 is not known to xpuperf (decodes 1.0-1.6), AMD "
            "SMI: disabled");
  EXPECT_EQ(ReadingOf(r, m::kPeerLinkThroughput, "amd0").state, ReadingState::kUnsupported);
}

TEST(AmdBackend, DeviceThatDisappearsBetweenSamples) {
  TempTree tree(Tree("mi300x"));
  ManualClock clock;
  auto backend = Open(tree.root(), clock);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(ReadingOf(backend->Collect({}), m::kPower, "amd0").state, ReadingState::kOk);
  tree.Remove(kCard1);  // hot-unplug / driver unbind
  clock.AdvanceNs(1'000'000'000);
  const auto r = backend->Collect({});
  ASSERT_EQ(r.size(), backend->metrics().size());
  for (const Reading& reading : r) {
    EXPECT_EQ(reading.state, ReadingState::kNoData) << reading.metric;
    EXPECT_EQ(reading.reason, "no data: amd0 (0000:0c:00.0) is gone: " + tree.root() +
                                  "/sys/class/drm/card1/device no longer exists");
  }
  EXPECT_EQ(backend->devices().size(), 1u);  // still listed, so ids stay stable
}

TEST(AmdBackend, NoAmdGpu) {
  TempTree tree;
  tree.Write("/sys/class/drm/card0/device/uevent", "DRIVER=i915\n");
  BackendOptions options;
  options.root = tree.root();
  auto backend = CreateAmdBackend(options);
  ASSERT_FALSE(backend.ok());
  EXPECT_EQ(backend.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(backend.error().message, "no amdgpu device under " + tree.root() + "/sys/class/drm");
}

}  // namespace
}  // namespace xpuperf::amd
