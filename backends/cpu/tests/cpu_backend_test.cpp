// The CPU backend on the recorded Intel two-socket tree: device description and every metric with
// values computed by hand from the recorded and rewritten files.
#include "xpuperf/cpu/cpu_backend.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "test_tree.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::cpu {
namespace {

using testing::FindSample;
using testing::ReadingOf;
using testing::RecordedTree;
using testing::TempTree;

constexpr int64_t kSecondNs = 1'000'000'000;

class IntelTwoSocketTest : public ::testing::Test {
 protected:
  // Opens the backend on `root` with a scripted FP sampler (10/20/30/40 % on four CPUs), USER_HZ
  // 100 and 4 KiB pages.
  std::unique_ptr<Backend> Open(const std::string& root, std::vector<int> pids = {}) {
    BackendOptions options;
    options.root = root;
    options.pids = std::move(pids);
    options.clock = &clock_;
    CpuBackendDependencies dependencies;
    dependencies.open_simd_utilization = [this](const std::string&) {
      return Result<std::unique_ptr<SimdUtilization>>(
          std::make_unique<testing::ScriptedSimdUtilization>(std::vector<double>{10, 20, 30, 40},
                                                             &simd_elapsed_s_));
    };
    dependencies.clock_ticks_per_second = 100;
    dependencies.page_size_bytes = page_size_bytes_;
    auto backend = CreateCpuBackend(options, dependencies);
    EXPECT_TRUE(backend.ok()) << backend.error().ToString();
    return backend.ok() ? std::move(backend).value() : nullptr;
  }
  Reading CollectOne(Backend& backend, std::string_view metric) {
    std::vector<Reading> readings = backend.Collect({std::string(metric)});
    EXPECT_EQ(readings.size(), 1u);
    return readings.at(0);
  }

  ManualClock clock_;
  std::vector<double> simd_elapsed_s_;
  uint64_t page_size_bytes_ = 4096;
};

TEST_F(IntelTwoSocketTest, DescribesTheHostAsOneDevice) {
  auto backend = Open(RecordedTree("intel-2s"));
  ASSERT_EQ(backend->devices().size(), 1u);
  const Device& device = backend->devices()[0];
  EXPECT_EQ(device.backend, "cpu");
  EXPECT_EQ(device.id, "cpu0");
  EXPECT_EQ(device.vendor, "GenuineIntel");
  EXPECT_EQ(device.model, "Intel(R) Xeon(R) Gold 5222 CPU @ 3.80GHz");
  EXPECT_EQ(device.memory_bytes, 197577420ull * 1024);
  EXPECT_EQ(device.features,
            (std::vector<std::string>{"sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw",
                                      "avx512vl", "avx512_vnni"}));
  EXPECT_EQ(device.topology.packages, 2);
  EXPECT_EQ(device.topology.cores, 8);
  EXPECT_EQ(device.topology.threads, 16);
  EXPECT_EQ(device.topology.numa_nodes, 2);
  EXPECT_EQ(device.topology.caches.size(), 4u);  // L1d, L1i, L2, L3 recorded per CPU
}

TEST_F(IntelTwoSocketTest, MapsEveryCatalogMetricAndAnswersEachOnce) {
  auto backend = Open(RecordedTree("intel-2s"));
  // Every catalog metric up to process_memory_bytes; the GPU detail after it has no CPU source.
  const size_t cpu_metrics =
      static_cast<size_t>(FindMetric(metrics::kProcessMemory) - MetricCatalog().data()) + 1;
  EXPECT_EQ(backend->metrics().size(), cpu_metrics);
  std::vector<Reading> readings = backend->Collect({});
  ASSERT_EQ(readings.size(), cpu_metrics);
  for (size_t i = 0; i < readings.size(); ++i) {
    EXPECT_EQ(readings[i].metric, MetricCatalog()[i].name);
    EXPECT_EQ(readings[i].device, "cpu0");
    EXPECT_EQ(readings[i].state == ReadingState::kOk, readings[i].reason.empty())
        << readings[i].metric;
    for (const Sample& sample : readings[i].samples) {
      EXPECT_EQ(sample.labels.Get("device"), "cpu0");
      EXPECT_EQ(sample.timestamp_ns, clock_.WallNs());
    }
  }
  Reading unknown = CollectOne(*backend, "bogus_metric");
  EXPECT_EQ(unknown.state, ReadingState::kUnsupported);
  EXPECT_EQ(unknown.reason, "unsupported: the cpu backend does not provide bogus_metric");
}

TEST_F(IntelTwoSocketTest, MemoryQueueAndErrors) {
  auto backend = Open(RecordedTree("intel-2s"));
  std::vector<Reading> readings =
      backend->Collect({"memory_total_bytes", "memory_used_bytes", "queue_size", "errors_total"});
  EXPECT_EQ(ReadingOf(readings, "memory_total_bytes").Overall()->scalar(), 197577420.0 * 1024);
  EXPECT_EQ(ReadingOf(readings, "memory_used_bytes").Overall()->scalar(),
            (197577420.0 - 186532100.0) * 1024);
  EXPECT_EQ(ReadingOf(readings, "queue_size").Overall()->scalar(), 3.0);
  const Reading& errors = ReadingOf(readings, "errors_total");
  EXPECT_EQ(FindSample(errors, {{"type", "ecc_corrected"}})->scalar(), 3.0);
  EXPECT_EQ(FindSample(errors, {{"type", "ecc_uncorrected"}})->scalar(), 0.0);
}

TEST_F(IntelTwoSocketTest, ClockFromCpufreqWithCpuinfoFallbackPerCpu) {
  std::vector<std::string> copied = {"/proc/"};
  for (int cpu = 0; cpu < 16; ++cpu) {
    if (cpu != 3)
      copied.push_back("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/");
  }
  TempTree tree("intel-2s", copied);  // cpu3 has no cpufreq directory
  auto backend = Open(tree.root());
  Reading clock = CollectOne(*backend, "clock_hertz");
  ASSERT_EQ(clock.state, ReadingState::kOk);
  EXPECT_EQ(clock.samples.size(), 16u);
  EXPECT_EQ(FindSample(clock, {{"core", "0"}})->scalar(), 3.8e9);
  EXPECT_EQ(FindSample(clock, {{"core", "15"}})->scalar(), (3800000.0 - 15 * 25000) * 1000);
  // cpu3 has no cpufreq: "cpu MHz : 3637.500" from /proc/cpuinfo.
  EXPECT_EQ(FindSample(clock, {{"core", "3"}})->scalar(), 3637.5e6);
}

TEST_F(IntelTwoSocketTest, TemperaturePerSensorKeepsTwinChipsApart) {
  auto backend = Open(RecordedTree("intel-2s"));
  Reading temperature = CollectOne(*backend, "temperature_celsius");
  ASSERT_EQ(temperature.state, ReadingState::kOk);
  EXPECT_EQ(temperature.samples.size(), 10u);
  EXPECT_EQ(FindSample(temperature, {{"sensor", "coretemp/Package id 0"}})->scalar(), 52.0);
  EXPECT_EQ(FindSample(temperature, {{"sensor", "coretemp/Core 3"}})->scalar(), 49.0);
  EXPECT_EQ(FindSample(temperature, {{"sensor", "coretemp/Package id 1"}})->scalar(), 55.0);
  // Both packages have a "Core 0"; the second chip's is told apart by its hwmon id.
  EXPECT_EQ(FindSample(temperature, {{"sensor", "coretemp/Core 0@hwmon1"}})->scalar(), 51.0);
}

TEST_F(IntelTwoSocketTest, PowerAndEnergyPerRaplDomain) {
  TempTree tree("intel-2s", {"/proc/", "/sys/class/powercap/"});
  auto backend = Open(tree.root());
  clock_.AdvanceNs(2 * kSecondNs);
  // +100 J, +20 J, +120 J, +16 J in 2 s.
  tree.Write("/sys/class/powercap/intel-rapl:0/energy_uj", "85013456123\n");
  tree.Write("/sys/class/powercap/intel-rapl:0:0/energy_uj", "31275871234\n");
  tree.Write("/sys/class/powercap/intel-rapl:1/energy_uj", "91354567890\n");
  tree.Write("/sys/class/powercap/intel-rapl:1:0/energy_uj", "29892543210\n");
  std::vector<Reading> readings = backend->Collect({"power_watts", "energy_joules"});
  const Reading& power = ReadingOf(readings, "power_watts");
  ASSERT_EQ(power.state, ReadingState::kOk) << power.reason;
  EXPECT_EQ(FindSample(power, {{"domain", "package-0"}})->scalar(), 50.0);
  EXPECT_EQ(FindSample(power, {{"domain", "dram-0"}})->scalar(), 10.0);
  EXPECT_EQ(FindSample(power, {{"domain", "package-1"}})->scalar(), 60.0);
  EXPECT_EQ(FindSample(power, {{"domain", "dram-1"}})->scalar(), 8.0);
  const Reading& energy = ReadingOf(readings, "energy_joules");
  EXPECT_EQ(FindSample(energy, {{"domain", "package-0"}})->scalar(), 100.0);
  EXPECT_EQ(FindSample(energy, {{"domain", "dram-1"}})->scalar(), 16.0);
  // No time has passed since: no rate to report.
  Reading again = CollectOne(*backend, "power_watts");
  EXPECT_EQ(again.state, ReadingState::kNoData);
  EXPECT_EQ(again.reason, "no data: no time elapsed since the previous power sample");
}

TEST_F(IntelTwoSocketTest, PowerAcrossTheCounterWrap) {
  TempTree tree("intel-2s", {"/proc/", "/sys/class/powercap/"});
  // max_energy_range_uj is 262143328850; start 499999 µJ below it.
  tree.Write("/sys/class/powercap/intel-rapl:0/energy_uj", "262142828851\n");
  auto backend = Open(tree.root());
  clock_.AdvanceNs(kSecondNs);
  tree.Write("/sys/class/powercap/intel-rapl:0/energy_uj", "1500000\n");
  Reading power = CollectOne(*backend, "power_watts");
  EXPECT_EQ(FindSample(power, {{"domain", "package-0"}})->scalar(), 2.0);
  clock_.AdvanceNs(kSecondNs / 2);
  tree.Write("/sys/class/powercap/intel-rapl:0/energy_uj", "3500000\n");
  power = CollectOne(*backend, "power_watts");
  EXPECT_EQ(FindSample(power, {{"domain", "package-0"}})->scalar(), 4.0);
  Reading energy = CollectOne(*backend, "energy_joules");
  EXPECT_EQ(FindSample(energy, {{"domain", "package-0"}})->scalar(), 4.0);
}

TEST_F(IntelTwoSocketTest, UnreadableEnergyCounterIsAReason) {
  TempTree tree("intel-2s", {"/proc/", "/sys/class/powercap/"});
  for (const char* zone : {"intel-rapl:0", "intel-rapl:0:0", "intel-rapl:1", "intel-rapl:1:0"}) {
    const std::string path = std::string("/sys/class/powercap/") + zone + "/energy_uj";
    tree.Remove(path);
    tree.Write(path + "/not-a-file", "");  // energy_uj is now a directory: EISDIR
  }
  auto backend = Open(tree.root());
  Reading power = CollectOne(*backend, "power_watts");
  EXPECT_EQ(power.state, ReadingState::kUnsupported);
  EXPECT_EQ(power.reason, "unsupported: " + tree.root() +
                              "/sys/class/powercap/intel-rapl:0/energy_uj: Is a directory");
}

TEST_F(IntelTwoSocketTest, RootOnlyEnergyCounterNamesTheCve) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  TempTree tree("intel-2s", {"/proc/", "/sys/class/powercap/"});
  for (const char* zone : {"intel-rapl:0", "intel-rapl:0:0", "intel-rapl:1", "intel-rapl:1:0"}) {
    std::filesystem::permissions(tree.root() + "/sys/class/powercap/" + zone + "/energy_uj",
                                 std::filesystem::perms::owner_write);
  }
  auto backend = Open(tree.root());
  EXPECT_EQ(CollectOne(*backend, "energy_joules").reason,
            "unsupported: " + tree.root() +
                "/sys/class/powercap/intel-rapl:0/energy_uj not readable (root only since "
                "CVE-2020-8694)");
}

TEST_F(IntelTwoSocketTest, ProcessCpuAndResidentMemory) {
  TempTree tree("intel-2s", {"/proc/"});
  auto backend = Open(tree.root(), {4242, 5555});
  clock_.AdvanceNs(2 * kSecondNs);
  // utime 1500 -> 1700, stime 300 -> 400: 300 ticks = 3 s of CPU in 2 s.
  tree.Write("/proc/4242/stat",
             "4242 (python3) S 4100 4242 4100 34816 4242 4194304 98231 0 12 0 1700 400 0 0 20 0 17 "
             "0 123456 6442450944 131072 18446744073709551615 94123456 94124456 140731234 0 0 0 0");
  std::vector<Reading> readings = backend->Collect({"process_cpu_percent", "process_memory_bytes"});
  const Reading& cpu = ReadingOf(readings, "process_cpu_percent");
  ASSERT_EQ(cpu.samples.size(), 1u);  // 5555 does not exist: omitted
  EXPECT_EQ(FindSample(cpu, {{"pid", "4242"}, {"command", "python3"}})->scalar(), 150.0);
  const Reading& memory = ReadingOf(readings, "process_memory_bytes");
  EXPECT_EQ(FindSample(memory, {{"pid", "4242"}, {"command", "python3"}})->scalar(),
            524288.0 * 1024);

  tree.Remove("/proc/4242");
  Reading gone = CollectOne(*backend, "process_cpu_percent");
  EXPECT_EQ(gone.state, ReadingState::kNoData);
  EXPECT_EQ(gone.reason, "no data: process 4242 not found; process 5555 not found");
}

TEST_F(IntelTwoSocketTest, ProcessMemoryFromStatmAndReusedPid) {
  TempTree tree("intel-2s", {"/proc/"});
  tree.Remove("/proc/4242/status");
  page_size_bytes_ = 16384;
  auto backend = Open(tree.root(), {4242});
  EXPECT_EQ(CollectOne(*backend, "process_memory_bytes").Overall(), nullptr);
  EXPECT_EQ(CollectOne(*backend, "process_memory_bytes").samples.at(0).scalar(), 131072.0 * 16384);
  // Same pid, different start time: another process, so there is no CPU baseline for it yet.
  clock_.AdvanceNs(kSecondNs);
  tree.Write("/proc/4242/stat",
             "4242 (bash) S 1 4242 4242 0 -1 0 0 0 0 0 5 1 0 0 20 0 1 0 999999 1000 50 0");
  Reading cpu = CollectOne(*backend, "process_cpu_percent");
  EXPECT_EQ(cpu.state, ReadingState::kNoData);
  EXPECT_EQ(cpu.reason,
            "no data: process 4242 seen for the first time; CPU% needs a second sample");
}

TEST_F(IntelTwoSocketTest, TensorCoreUtilizationFromTheFpSampler) {
  auto backend = Open(RecordedTree("intel-2s"));
  clock_.AdvanceNs(kSecondNs / 2);
  Reading simd = CollectOne(*backend, "tensorcore_utilization_percent");
  ASSERT_EQ(simd.state, ReadingState::kOk);
  EXPECT_EQ(simd.Overall()->scalar(), 25.0);
  EXPECT_EQ(FindSample(simd, {{"core", "3"}})->scalar(), 40.0);
  EXPECT_EQ(simd_elapsed_s_, (std::vector<double>{0.5}));
}

}  // namespace
}  // namespace xpuperf::cpu
