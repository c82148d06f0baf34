// The Intel backend on recorded trees: an Arc A770 on i915 and an Arc B580 on xe.
#include "xpuperf/intel/intel_backend.h"

#include <gtest/gtest.h>

#include "drm_test_tree.h"
#include "intel_sysfs.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::intel {
namespace {

namespace m = metrics;
using drm::testing::ReadingOf;
using drm::testing::RecordedFdIsDrm;
using drm::testing::TempTree;
using drm::testing::ValueOf;

std::string Tree(const std::string& name) {
  return std::string(XPUPERF_TEST_DATA_DIR) + "/trees/" + name;
}

std::unique_ptr<Backend> Open(const std::string& root, const Clock& clock) {
  BackendOptions options;
  options.root = root;
  options.clock = &clock;
  IntelBackendConfig config;
  config.is_drm_fd = RecordedFdIsDrm;
  config.level_zero_library = "none";  // level_zero_test.cpp covers Level Zero
  auto backend = CreateIntelBackend(options, config);
  EXPECT_TRUE(backend.ok()) << backend.error().message;
  return backend.ok() ? std::move(backend).value() : nullptr;
}

void ExpectReasonsEverywhere(const std::vector<Reading>& readings) {
  for (const Reading& reading : readings) {
    EXPECT_NE(FindMetric(reading.metric), nullptr) << reading.metric;
    if (reading.state != ReadingState::kOk) {
      EXPECT_FALSE(reading.reason.empty()) << reading.metric;
    }
  }
}

TEST(IntelBackend, I915ArcA770) {
  TempTree tree(Tree("arc-a770-i915"));
  ManualClock clock;
  auto backend = Open(tree.root(), clock);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->name(), "intel");
  ASSERT_EQ(backend->devices().size(), 1u);
  const Device& d = backend->devices()[0];
  EXPECT_EQ(d.id, "intel0");
  EXPECT_EQ(d.vendor, "Intel");
  EXPECT_EQ(d.model, "Intel Arc A770");
  EXPECT_EQ(d.bus_id, "0000:03:00.0");
  EXPECT_EQ(d.memory_bytes, 0u);  // i915 has no sysfs file for it
  EXPECT_EQ(d.features, (std::vector<std::string>{"pci_id:8086:56a0", "driver:i915"}));

  auto r = backend->Collect({});
  ExpectReasonsEverywhere(r);
  auto value = [&](std::string_view metric, Labels labels = {}) {
    return ValueOf(ReadingOf(r, metric, "intel0"), "intel0", labels);
  };
  EXPECT_EQ(value(m::kClock, {{"type", "gt0"}}), 2400e6);     // gt/gt0/rps_act_freq_mhz
  EXPECT_EQ(value(m::kClockMax, {{"type", "gt0"}}), 2400e6);  // gt/gt0/rps_max_freq_mhz
  const Reading& throttle = ReadingOf(r, m::kClockEventActive, "intel0");
  EXPECT_EQ(throttle.samples.size(), 9u);
  EXPECT_EQ(value(m::kClockEventActive, {{"reason", "pl1"}}), 1);
  EXPECT_EQ(value(m::kClockEventActive, {{"reason", "thermal"}}), 0);
  EXPECT_EQ(value(m::kClockEventActive, {{"reason", "any"}}), 1);
  EXPECT_EQ(value(m::kTemperature, {{"sensor", "gpu"}}), 52);
  EXPECT_EQ(value(m::kEnergy, {{"domain", "gpu"}}), 4294.0);             // 4294000000 µJ
  EXPECT_EQ(value(m::kProcessMemory, {{"pid", "3100"}}), 4294967296.0);  // drm-total-local0
  EXPECT_EQ(value(m::kProcessMemory, {{"pid", "3200"}}), 67108864.0);
  EXPECT_EQ(ReadingOf(r, m::kPower, "intel0").state, ReadingState::kNoData);  // one sample only
  EXPECT_EQ(ReadingOf(r, m::kDutyCycle, "intel0").state, ReadingState::kNoData);
  for (auto metric : {m::kMemoryTotal, m::kMemoryUsed, m::kHostLinkThroughput, m::kErrors,
                      m::kTensorCoreUtilization}) {
    EXPECT_EQ(ReadingOf(r, metric, "intel0").state, ReadingState::kUnsupported) << metric;
  }
  EXPECT_NE(ReadingOf(r, m::kMemoryTotal, "intel0").reason.find("DRM_I915_QUERY_MEMORY_REGIONS"),
            std::string::npos);

  // One second later: the 32-bit energy register wrapped (4294000000 -> 99032704 µJ, i.e. 100 J
  // used), ollama's render engine ran 0.25 s and its compute engines 0.5 s (capacity 4), the
  // desktop's render engine 0.5 s.
  clock.AdvanceNs(1'000'000'000);
  tree.Write("/sys/class/drm/card1/device/hwmon/hwmon5/energy1_input", "99032704\n");
  tree.Write("/proc/3100/fdinfo/8",
             "drm-driver:\ti915\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t41\n"
             "drm-engine-render:\t1250000000 ns\ndrm-engine-compute:\t3500000000 ns\n"
             "drm-engine-capacity-compute:\t4\ndrm-total-local0:\t4194304 KiB\n");
  tree.Write("/proc/3200/fdinfo/12",
             "drm-driver:\ti915\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t42\n"
             "drm-engine-render:\t1000000000 ns\ndrm-total-local0:\t65536 KiB\n");
  r = backend->Collect({});
  EXPECT_DOUBLE_EQ(value(m::kPower, {{"domain", "gpu"}}), 100.0);
  EXPECT_DOUBLE_EQ(value(m::kEnergy, {{"domain", "gpu"}}), 4394.0);
  const Reading& busy = ReadingOf(r, m::kProcessEngineBusy, "intel0");
  EXPECT_DOUBLE_EQ(ValueOf(busy, "intel0", {{"pid", "3100"}, {"engine", "render"}}), 25.0);
  EXPECT_DOUBLE_EQ(ValueOf(busy, "intel0", {{"pid", "3100"}, {"engine", "compute"}}), 12.5);
  EXPECT_DOUBLE_EQ(ValueOf(busy, "intel0", {{"pid", "3200"}, {"engine", "render"}}), 50.0);
  // Device busy: the busiest engine class, summed over clients (render 25 + 50).
  EXPECT_DOUBLE_EQ(value(m::kDutyCycle), 75.0);
}

TEST(IntelBackend, XeArcB580) {
  TempTree tree(Tree("arc-b580-xe"));
  ManualClock clock;
  auto backend = Open(tree.root(), clock);
  ASSERT_NE(backend, nullptr);
  const Device& d = backend->devices()[0];
  EXPECT_EQ(d.model, "Intel Arc B580");
  EXPECT_EQ(d.bus_id, "0000:04:00.0");
  EXPECT_EQ(d.memory_bytes, 12884901888u);  // tile0/physical_vram_size_bytes
  EXPECT_EQ(d.features, (std::vector<std::string>{"pci_id:8086:e20b", "driver:xe"}));

  auto r = backend->Collect({});
  ExpectReasonsEverywhere(r);
  auto value = [&](std::string_view metric, Labels labels = {}) {
    return ValueOf(ReadingOf(r, metric, "intel0"), "intel0", labels);
  };
  EXPECT_EQ(value(m::kMemoryTotal), 12884901888.0);
  EXPECT_EQ(value(m::kClock, {{"type", "gt0"}}), 2850e6);     // tile0/gt0/freq0/act_freq
  EXPECT_EQ(value(m::kClock, {{"type", "gt1"}}), 0.0);        // the media GT sleeps
  EXPECT_EQ(value(m::kClockMax, {{"type", "gt0"}}), 2850e6);  // tile0/gt0/freq0/max_freq
  EXPECT_EQ(ReadingOf(r, m::kClockEventActive, "intel0").samples.size(), 9u);
  EXPECT_EQ(value(m::kClockEventActive, {{"reason", "any"}}), 0);
  EXPECT_EQ(value(m::kTemperature, {{"sensor", "pkg"}}), 48);
  EXPECT_EQ(value(m::kTemperature, {{"sensor", "vram"}}), 44);
  EXPECT_DOUBLE_EQ(value(m::kEnergy, {{"domain", "card"}}), 123.456789);
  EXPECT_DOUBLE_EQ(value(m::kEnergy, {{"domain", "pkg"}}), 100.0);
  // Two fds of one client (id 5): its VRAM counted once.
  EXPECT_EQ(ReadingOf(r, m::kProcessMemory, "intel0").samples.size(), 1u);
  EXPECT_EQ(value(m::kProcessMemory, {{"pid", "4100"}}), 2147483648.0);

  clock.AdvanceNs(1'000'000'000);
  const std::string hwmon = "/sys/class/drm/card0/device/hwmon/hwmon6";
  tree.Write(hwmon + "/energy1_input", "273456789\n");  // +150 J
  tree.Write(hwmon + "/energy2_input", "220000000\n");  // +120 J
  const std::string fdinfo =
      "drm-driver:\txe\ndrm-client-id:\t5\ndrm-pdev:\t0000:04:00.0\n"
      "drm-total-vram0:\t2097152 KiB\ndrm-cycles-rcs:\t26000\ndrm-total-cycles-rcs:\t200000\n"
      "drm-cycles-bcs:\t0\ndrm-total-cycles-bcs:\t200000\ndrm-cycles-ccs:\t240000\n"
      "drm-total-cycles-ccs:\t200000\ndrm-engine-capacity-ccs:\t4\n";
  tree.Write("/proc/4100/fdinfo/6", fdinfo);
  tree.Write("/proc/4100/fdinfo/7", fdinfo);
  r = backend->Collect({});
  EXPECT_DOUBLE_EQ(value(m::kPower, {{"domain", "card"}}), 150.0);
  EXPECT_DOUBLE_EQ(value(m::kPower, {{"domain", "pkg"}}), 120.0);
  const Reading& busy = ReadingOf(r, m::kProcessEngineBusy, "intel0");
  EXPECT_DOUBLE_EQ(ValueOf(busy, "intel0", {{"pid", "4100"}, {"engine", "rcs"}}), 25.0);
  EXPECT_DOUBLE_EQ(ValueOf(busy, "intel0", {{"pid", "4100"}, {"engine", "ccs"}}), 50.0);
  EXPECT_DOUBLE_EQ(ValueOf(busy, "intel0", {{"pid", "4100"}, {"engine", "bcs"}}), 0.0);
  EXPECT_DOUBLE_EQ(value(m::kDutyCycle), 50.0);
}

TEST(IntelBackend, DeviceThatDisappearsBetweenSamples) {
  TempTree tree(Tree("arc-b580-xe"));
  ManualClock clock;
  auto backend = Open(tree.root(), clock);
  ASSERT_NE(backend, nullptr);
  tree.Remove("/sys/class/drm/card0/device");
  const auto r = backend->Collect({});
  for (const Reading& reading : r) {
    EXPECT_EQ(reading.state, ReadingState::kNoData) << reading.metric;
    EXPECT_EQ(reading.reason, "no data: intel0 (0000:04:00.0) is gone: " + tree.root() +
                                  "/sys/class/drm/card0/device no longer exists");
  }
}

TEST(IntelBackend, OlderI915WithoutPerGtDirectories) {
  TempTree tree(Tree("arc-a770-i915"));
  tree.Remove("/sys/class/drm/card1/gt");
  ManualClock clock;
  auto backend = Open(tree.root(), clock);
  ASSERT_NE(backend, nullptr);
  const auto r = backend->Collect({std::string(m::kClock), std::string(m::kClockEventActive)});
  EXPECT_EQ(ValueOf(ReadingOf(r, m::kClock, "intel0"), "intel0", {{"type", "gt0"}}), 2400e6);
  EXPECT_EQ(ReadingOf(r, m::kClockEventActive, "intel0").state, ReadingState::kUnsupported);
}

TEST(IntelBackend, NoIntelGpu) {
  TempTree tree;
  BackendOptions options;
  options.root = tree.root();
  auto backend = CreateIntelBackend(options);
  ASSERT_FALSE(backend.ok());
  EXPECT_EQ(backend.error().message,
            "no i915 or xe device under " + tree.root() + "/sys/class/drm");
  EXPECT_EQ(IntelModelName(0x56a0), "Intel Arc A770");
  EXPECT_EQ(IntelModelName(0x1), "");
}

}  // namespace
}  // namespace xpuperf::intel
