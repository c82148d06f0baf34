// The CPU backend where sources are missing (a VM), partial (AMD desktop) or real (this host):
// every reading is a value or says why not.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "test_tree.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/cpu/cpu_backend.h"

namespace xpuperf::cpu {
namespace {

using testing::FindSample;
using testing::ReadingOf;
using testing::RecordedTree;
using testing::TempTree;

constexpr int64_t kSecondNs = 1'000'000'000;

// Opens on `root` with a manual clock; the FP sampler fails as it does on a host without a PMU.
Result<std::unique_ptr<Backend>> OpenWithoutPmu(const std::string& root, const Clock& clock,
                                                std::vector<int> pids = {}) {
  BackendOptions options;
  options.root = root;
  options.clock = &clock;
  options.pids = std::move(pids);
  CpuBackendDependencies dependencies;
  dependencies.open_simd_utilization = [](const std::string& root) {
    return Result<std::unique_ptr<SimdUtilization>>(MakeError(
        ErrorCode::kUnsupported, "no PMU: " + root + "/sys/bus/event_source/devices/cpu absent"));
  };
  return CreateCpuBackend(options, dependencies);
}

TEST(CpuBackendVmTest, EveryMissingSourceHasItsReason) {
  ManualClock clock;
  auto backend = OpenWithoutPmu(RecordedTree("vm"), clock);
  ASSERT_TRUE(backend.ok()) << backend.error().ToString();
  std::vector<Reading> readings = (*backend)->Collect({});
  auto expect_reason = [&](std::string_view metric, ReadingState state, const std::string& reason) {
    const Reading& reading = ReadingOf(readings, metric);
    EXPECT_EQ(reading.state, state) << metric;
    EXPECT_EQ(reading.reason, reason) << metric;
    EXPECT_TRUE(reading.samples.empty()) << metric;
  };
  const std::string none =
      "unsupported: no RAPL domain under /sys/class/powercap and no hwmon power sensor";
  const std::string sdk = "no data: recorded in-process through the xpuperf SDK only";
  using S = ReadingState;
  expect_reason(
      metrics::kTensorCoreUtilization, S::kUnsupported,
      "unsupported: no PMU: " + RecordedTree("vm") + "/sys/bus/event_source/devices/cpu absent");
  expect_reason(metrics::kDutyCycle, S::kNoData,
                "no data: no /proc/stat ticks elapsed since the previous sample");
  expect_reason(metrics::kTransferLatency, S::kNoData, sdk);
  expect_reason(metrics::kOpExecutionTime, S::kNoData, sdk);
  expect_reason(metrics::kPower, S::kUnsupported, none);
  expect_reason(metrics::kEnergy, S::kUnsupported, none);
  expect_reason(metrics::kTemperature, S::kUnsupported,
                "unsupported: no hwmon temperature sensor under /sys/class/hwmon");
  expect_reason(metrics::kMemoryBandwidthUtilization, S::kUnsupported,
                "unsupported: needs uncore memory-controller counters (not readable here)");
  expect_reason(metrics::kHostLinkThroughput, S::kUnsupported,
                "unsupported: the CPU backend has no host link");
  expect_reason(metrics::kErrors, S::kUnsupported,
                "unsupported: no EDAC memory controller under /sys/devices/system/edac/mc");
  expect_reason(metrics::kProcessCpu, S::kNoData, "no data: no process selected (use --pid)");
  expect_reason(metrics::kProcessMemory, S::kNoData, "no data: no process selected (use --pid)");
  // What a VM does have: /proc.
  EXPECT_EQ(ReadingOf(readings, metrics::kMemoryTotal).Overall()->scalar(), 16369604.0 * 1024);
  EXPECT_EQ(ReadingOf(readings, metrics::kQueueSize).Overall()->scalar(), 1.0);
  const Reading& clock_hertz = ReadingOf(readings, metrics::kClock);
  ASSERT_EQ(clock_hertz.samples.size(), 4u);  // no cpufreq: "cpu MHz" of /proc/cpuinfo
  EXPECT_DOUBLE_EQ(FindSample(clock_hertz, {{"core", "2"}})->scalar(), 2593.906e6);
}

TEST(CpuBackendVmTest, RealFpSamplerExplainsTheMissingPmuOnEveryCollect) {
  BackendOptions options;
  options.root = RecordedTree("vm");
  auto backend = CreateCpuBackend(options);  // the real SimdUtilization::Open
  ASSERT_TRUE(backend.ok()) << backend.error().ToString();
  for (int collect = 0; collect < 2; ++collect) {
    Reading simd = (*backend)->Collect({"tensorcore_utilization_percent"})[0];
    EXPECT_EQ(simd.state, ReadingState::kUnsupported);
    EXPECT_TRUE(simd.reason.starts_with("unsupported: ")) << simd.reason;
  }
}

TEST(CpuBackendVmTest, DeviceFromCpuinfoWhenSysfsHasNoTopology) {
  ManualClock clock;
  auto backend = OpenWithoutPmu(RecordedTree("vm"), clock, {4242});
  ASSERT_TRUE(backend.ok());
  const Device& device = (*backend)->devices().at(0);
  EXPECT_EQ(device.model, "Intel Xeon Processor (Icelake)");
  EXPECT_EQ(device.topology.source, "cpuinfo");
  EXPECT_EQ(device.topology.packages, 1);
  EXPECT_EQ(device.topology.cores, 4);
  EXPECT_EQ(device.topology.threads, 4);
  EXPECT_EQ(device.features.back(), "hypervisor");
  EXPECT_EQ((*backend)->Collect({"process_memory_bytes"})[0].reason,
            "no data: process 4242 not found");
}

TEST(CpuBackendVmTest, DutyCycleOverallAndPerCoreFromTwoSnapshots) {
  TempTree tree("vm");
  tree.Write("/proc/stat",
             "cpu  1000 0 500 8000 500 0 0 100 0 0\n"
             "cpu0 600 0 200 3800 300 0 0 50 0 0\n"
             "cpu1 400 0 300 4200 200 0 0 50 0 0\nprocs_running 2\n");
  ManualClock clock;
  auto backend = OpenWithoutPmu(tree.root(), clock);
  ASSERT_TRUE(backend.ok());
  // Δ overall: user 600 (50 of it guest, not added again), system 200, idle 300, iowait 100,
  // steal 200 (left out): busy 800 of 1200 ticks.
  tree.Write("/proc/stat",
             "cpu  1600 0 700 8300 600 0 0 300 50 0\n"
             "cpu0 1100 0 300 3850 350 0 0 150 50 0\n"
             "cpu1 500 0 400 4450 250 0 0 200 0 0\nprocs_running 2\n");
  Reading duty = (*backend)->Collect({"duty_cycle_percent"})[0];
  ASSERT_EQ(duty.state, ReadingState::kOk) << duty.reason;
  ASSERT_EQ(duty.samples.size(), 3u);
  EXPECT_DOUBLE_EQ(duty.Overall()->scalar(), 100.0 * 800 / 1200);
  EXPECT_DOUBLE_EQ(FindSample(duty, {{"core", "0"}})->scalar(), 100.0 * 600 / 700);  // 500+100 busy
  EXPECT_DOUBLE_EQ(FindSample(duty, {{"core", "1"}})->scalar(), 40.0);               // 200 of 500
  // The window restarts at every Collect: nothing changed since.
  EXPECT_EQ((*backend)->Collect({"duty_cycle_percent"})[0].state, ReadingState::kNoData);
}

TEST(CpuBackendVmTest, HwmonPowerMeterIsTheFallbackWithoutRapl) {
  TempTree tree("vm");
  tree.Write("/sys/class/hwmon/hwmon0/name", "power_meter\n");
  tree.Write("/sys/class/hwmon/hwmon0/power1_average", "215500000\n");  // µW
  tree.Write("/sys/class/hwmon/hwmon1/name", "amd_energy\n");
  tree.Write("/sys/class/hwmon/hwmon1/energy1_label", "Esocket0\n");
  tree.Write("/sys/class/hwmon/hwmon1/energy1_input", "7000000\n");  // µJ
  ManualClock clock;
  auto backend = OpenWithoutPmu(tree.root(), clock);
  ASSERT_TRUE(backend.ok());
  clock.AdvanceNs(4 * kSecondNs);
  tree.Write("/sys/class/hwmon/hwmon1/energy1_input", "407000000\n");  // +400 J in 4 s
  std::vector<Reading> readings = (*backend)->Collect({"power_watts", "energy_joules"});
  const Reading& power = ReadingOf(readings, "power_watts");
  EXPECT_EQ(FindSample(power, {{"domain", "power_meter"}})->scalar(), 215.5);
  EXPECT_EQ(FindSample(power, {{"domain", "amd_energy"}})->scalar(), 100.0);
  EXPECT_EQ(FindSample(ReadingOf(readings, "energy_joules"), {{"domain", "amd_energy"}})->scalar(),
            400.0);
}

TEST(CpuBackendVmTest, PowerOnlyHwmonHasNoEnergy) {
  TempTree tree("vm");
  tree.Write("/sys/class/hwmon/hwmon0/name", "power_meter\n");
  tree.Write("/sys/class/hwmon/hwmon0/power1_average", "100000000\n");
  ManualClock clock;
  auto backend = OpenWithoutPmu(tree.root(), clock);
  ASSERT_TRUE(backend.ok());
  Reading energy = (*backend)->Collect({"energy_joules"})[0];
  EXPECT_EQ(energy.state, ReadingState::kUnsupported);
  EXPECT_EQ(energy.reason,
            "unsupported: the hwmon power sensors have no energy counter (energyN_input)");
}

TEST(CpuBackendOpenTest, UnreadableProcStatIsAnIoError) {
  TempTree empty;
  ManualClock clock;
  auto backend = OpenWithoutPmu(empty.root(), clock);
  ASSERT_FALSE(backend.ok());
  EXPECT_EQ(backend.error().code, ErrorCode::kIo);
  EXPECT_EQ(backend.error().message, empty.root() + "/proc/stat: No such file or directory");
}

TEST(CpuBackendOpenTest, VanishedFilesBecomeReasonsNotCrashes) {
  TempTree tree("amd-zen", {"/proc/", "/sys/class/"});
  ManualClock clock;
  auto backend = OpenWithoutPmu(tree.root(), clock);
  ASSERT_TRUE(backend.ok());
  tree.Remove("/proc");
  tree.Remove("/sys");
  for (const Reading& reading : (*backend)->Collect({})) {
    EXPECT_NE(reading.state, ReadingState::kOk) << reading.metric;
    EXPECT_FALSE(reading.reason.empty()) << reading.metric;
  }
  EXPECT_EQ((*backend)->Collect({"memory_total_bytes"})[0].reason,
            "unsupported: " + tree.root() + "/proc/meminfo: No such file or directory");
}

TEST(CpuBackendAmdTest, PackageOnlyRaplAndK10temp) {
  TempTree tree("amd-zen", {"/proc/", "/sys/class/"});
  ManualClock clock;
  auto backend = OpenWithoutPmu(tree.root(), clock);
  ASSERT_TRUE(backend.ok());
  const Device& device = (*backend)->devices().at(0);
  EXPECT_EQ(device.vendor, "AuthenticAMD");
  EXPECT_EQ(device.model, "AMD Ryzen 5 5600X 6-Core Processor");
  EXPECT_EQ(device.topology.cores, 6);
  EXPECT_EQ(device.topology.threads, 12);
  clock.AdvanceNs(kSecondNs);
  tree.Write("/sys/class/powercap/intel-rapl:0/energy_uj", "12410678901\n");  // +65 J
  std::vector<Reading> readings = (*backend)->Collect({"power_watts", "temperature_celsius"});
  const Reading& power = ReadingOf(readings, "power_watts");
  ASSERT_EQ(power.samples.size(), 1u);
  EXPECT_EQ(FindSample(power, {{"domain", "package-0"}})->scalar(), 65.0);
  const Reading& temperature = ReadingOf(readings, "temperature_celsius");
  EXPECT_EQ(FindSample(temperature, {{"sensor", "k10temp/Tctl"}})->scalar(), 61.25);
  EXPECT_EQ(FindSample(temperature, {{"sensor", "k10temp/Tccd1"}})->scalar(), 54.5);
  EXPECT_EQ(FindSample(temperature, {{"sensor", "nvme/Composite"}})->scalar(), 38.85);
}

TEST(CpuBackendRealHostTest, OpensOnTheRealRootAndExplainsEveryGap) {
  BackendOptions options;
  options.pids = {static_cast<int>(::getpid())};
  auto backend = CreateCpuBackend(options);
  ASSERT_TRUE(backend.ok()) << backend.error().ToString();
  std::vector<Reading> readings = (*backend)->Collect({});
  // Every catalog metric up to process_memory_bytes; the GPU detail after it has no CPU source.
  ASSERT_EQ(readings.size(),
            static_cast<size_t>(FindMetric(metrics::kProcessMemory) - MetricCatalog().data()) + 1);
  EXPECT_GT(ReadingOf(readings, metrics::kMemoryTotal).Overall()->scalar(), 0.0);
  EXPECT_GT(ReadingOf(readings, metrics::kProcessMemory).samples.at(0).scalar(), 0.0);
  for (const Reading& reading : readings) {
    if (reading.state == ReadingState::kOk) {
      EXPECT_FALSE(reading.samples.empty()) << reading.metric;
    } else {
      EXPECT_FALSE(reading.reason.empty()) << reading.metric;
    }
  }
}

}  // namespace
}  // namespace xpuperf::cpu
