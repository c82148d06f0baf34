// The NVIDIA backend against the fake libnvidia-ml.so.1 (tests/fake_nvml), loaded through the same
// dlopen path as the real library. Expected values are computed by hand from the scenario files in
// tests/data.
#include "xpuperf/nvidia/nvidia_backend.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "xpuperf/core/clock.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::nvidia {
namespace {

const std::string kData = XPUPERF_TEST_DATA_DIR;
constexpr double kMiB = 1024.0 * 1024.0;

class NvidiaBackendTest : public ::testing::Test {
 protected:
  void SetUp() override { ::unsetenv("XPUPERF_NVML_LIBRARY"); }
  void TearDown() override { ::unsetenv("XPUPERF_FAKE_NVML_SCENARIO"); }

  Result<std::unique_ptr<Backend>> Open(const std::string& scenario,
                                        const std::string& library = XPUPERF_FAKE_NVML) {
    ::setenv("XPUPERF_FAKE_NVML_SCENARIO", (kData + "/" + scenario).c_str(), 1);
    BackendOptions options;
    options.clock = &clock_;
    NvidiaBackendConfig config;
    config.library = library;
    return CreateNvidiaBackend(options, config);
  }

  std::unique_ptr<Backend> OpenOk(const std::string& scenario,
                                  const std::string& library = XPUPERF_FAKE_NVML) {
    auto backend = Open(scenario, library);
    EXPECT_TRUE(backend.ok()) << backend.error().ToString();
    return backend.ok() ? std::move(backend).value() : nullptr;
  }

  static Reading One(Backend& backend, std::string_view metric, std::string_view device) {
    for (Reading& r : backend.Collect({std::string(metric)})) {
      if (r.device == device) return r;
    }
    ADD_FAILURE() << "no " << metric << " reading for " << device;
    return {};
  }

  // The value of the sample with label key=value (or the only sample when key is empty).
  static double Value(const Reading& reading, std::string_view key = {},
                      std::string_view value = {}) {
    EXPECT_EQ(reading.state, ReadingState::kOk) << reading.metric << ": " << reading.reason;
    for (const Sample& s : reading.samples) {
      if (key.empty() || s.labels.Get(key) == value) return s.scalar();
    }
    ADD_FAILURE() << reading.metric << " has no sample " << key << "=" << value;
    return -1;
  }

  ManualClock clock_;
};

TEST_F(NvidiaBackendTest, DiscoversTwoGpusWithTheirIdentity) {
  auto backend = OpenOk("two-gpus.conf");
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->name(), "nvidia");
  const auto& devices = backend->devices();
  ASSERT_EQ(devices.size(), 2u);
  const Device& h100 = devices[0];
  EXPECT_EQ(h100.backend, "nvidia");
  EXPECT_EQ(h100.id, "nvidia0");
  EXPECT_EQ(h100.index, 0);
  EXPECT_EQ(h100.vendor, "NVIDIA");
  EXPECT_EQ(h100.model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h100.uuid, "GPU-5d1a8b2c-7e3f-4a6b-9c0d-1e2f3a4b5c6d");
  EXPECT_EQ(h100.bus_id, "00000000:19:00.0");
  EXPECT_EQ(h100.memory_bytes, 85520809984ull);
  EXPECT_EQ(h100.topology.packages, 1);
  EXPECT_EQ(h100.topology.source, "nvml");
  // 0xf0f = CPUs 0-3 and 8-11; CUDA 12040 = 12.4.
  EXPECT_EQ(h100.features, (std::vector<std::string>{"compute_capability:9.0",
                                                     "architecture:hopper", "driver:550.54.15",
                                                     "cuda_driver:12.4", "cpu_affinity:0-3,8-11"}));
  const Device& a100 = devices[1];
  EXPECT_EQ(a100.id, "nvidia1");
  EXPECT_EQ(a100.index, 1);
  EXPECT_EQ(a100.model, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(a100.bus_id, "00000000:3B:00.0");
  EXPECT_EQ(a100.memory_bytes, 42949672960ull);
  EXPECT_EQ(a100.features,
            (std::vector<std::string>{"compute_capability:8.0", "architecture:ampere",
                                      "driver:550.54.15", "cuda_driver:12.4"}));
}

TEST_F(NvidiaBackendTest, AnswersEveryMappedMetricOncePerGpuInCatalogOrder) {
  auto backend = OpenOk("two-gpus.conf");
  ASSERT_NE(backend, nullptr);
  const auto names = backend->metrics();
  EXPECT_EQ(names.size(), 26u);
  size_t last_position = 0;
  for (std::string_view name : names) {
    const MetricInfo* info = FindMetric(name);
    ASSERT_NE(info, nullptr) << name;
    const size_t position = static_cast<size_t>(info - MetricCatalog().data());
    EXPECT_GE(position, last_position) << name;
    last_position = position;
  }
  const std::vector<Reading> readings = backend->Collect({});
  ASSERT_EQ(readings.size(), 2 * names.size());
  for (size_t i = 0; i < readings.size(); ++i) {
    EXPECT_EQ(readings[i].metric, names[i / 2]);
    EXPECT_EQ(readings[i].device, i % 2 == 0 ? "nvidia0" : "nvidia1");
    EXPECT_EQ(readings[i].state == ReadingState::kOk, readings[i].reason.empty())
        << readings[i].metric << " " << readings[i].reason;
    for (const Sample& s : readings[i].samples) {
      EXPECT_EQ(s.labels.Get("device"), readings[i].device);
      EXPECT_EQ(s.timestamp_ns, clock_.WallNs());
    }
  }
  Reading queue = One(*backend, metrics::kQueueSize, "nvidia0");
  EXPECT_EQ(queue.state, ReadingState::kUnsupported);
  EXPECT_EQ(queue.reason, "unsupported: not a metric the NVIDIA backend reports");
}

TEST_F(NvidiaBackendTest, UtilisationMemoryPowerEnergyTemperatureClocks) {
  auto backend = OpenOk("two-gpus.conf");
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(Value(One(*backend, metrics::kDutyCycle, "nvidia0")), 87.0);
  EXPECT_EQ(Value(One(*backend, metrics::kDutyCycle, "nvidia1")), 12.0);
  EXPECT_EQ(Value(One(*backend, metrics::kMemoryTotal, "nvidia0")), 85520809984.0);
  // nvmlDeviceGetMemoryInfo_v2: used excludes the reserved memory.
  EXPECT_EQ(Value(One(*backend, metrics::kMemoryUsed, "nvidia0")), 42949672960.0);
  EXPECT_EQ(Value(One(*backend, metrics::kMemoryReserved, "nvidia0")), 567279616.0);
  EXPECT_EQ(Value(One(*backend, metrics::kMemoryReserved, "nvidia1")), 0.0);
  // 350125 mW, 123456789 mJ.
  EXPECT_EQ(Value(One(*backend, metrics::kPower, "nvidia0"), "domain", "gpu"), 350.125);
  EXPECT_EQ(Value(One(*backend, metrics::kEnergy, "nvidia0"), "domain", "gpu"), 123456.789);
  EXPECT_EQ(Value(One(*backend, metrics::kPower, "nvidia1")), 61.0);
  const Reading energy = One(*backend, metrics::kEnergy, "nvidia1");
  EXPECT_EQ(energy.state, ReadingState::kUnsupported);
  EXPECT_EQ(energy.reason,
            "unsupported: nvmlDeviceGetTotalEnergyConsumption refused: Insufficient Permissions "
            "(NVML_ERROR_NO_PERMISSION)");
  const Reading temperature = One(*backend, metrics::kTemperature, "nvidia0");
  ASSERT_EQ(temperature.samples.size(), 2u);
  EXPECT_EQ(Value(temperature, "sensor", "gpu"), 54.0);
  EXPECT_EQ(Value(temperature, "sensor", "memory"), 61.0);
  const Reading a100_temperature = One(*backend, metrics::kTemperature, "nvidia1");
  ASSERT_EQ(a100_temperature.samples.size(), 1u);  // no memory sensor (field 82) on this one
  EXPECT_EQ(Value(a100_temperature, "sensor", "gpu"), 35.0);
  const Reading clocks = One(*backend, metrics::kClock, "nvidia0");
  EXPECT_EQ(Value(clocks, "type", "sm"), 1980e6);
  EXPECT_EQ(Value(clocks, "type", "memory"), 2619e6);
}

TEST_F(NvidiaBackendTest, MaximumClocksAndModes) {
  auto backend = OpenOk("two-gpus.conf");
  ASSERT_NE(backend, nullptr);
  const Reading max = One(*backend, metrics::kClockMax, "nvidia1");
  EXPECT_EQ(Value(max, "type", "sm"), 1410e6);
  EXPECT_EQ(Value(max, "type", "memory"), 1215e6);
  const Reading h100 = One(*backend, metrics::kDeviceMode, "nvidia0");
  EXPECT_EQ(Value(h100, "mode", "persistence"), 1.0);
  EXPECT_EQ(Value(h100, "mode", "ecc"), 1.0);
  EXPECT_EQ(Value(h100, "mode", "ecc_pending"), 1.0);  // no change pending
  const Reading a100 = One(*backend, metrics::kDeviceMode, "nvidia1");
  EXPECT_EQ(Value(a100, "mode", "persistence"), 0.0);
  EXPECT_EQ(Value(a100, "mode", "ecc_pending"), 0.0);  // ECC off after the next reset
}

TEST_F(NvidiaBackendTest, PowerLimitsPerformanceStateAndPcieLink) {
  auto backend = OpenOk("two-gpus.conf");
  ASSERT_NE(backend, nullptr);
  const Reading limits = One(*backend, metrics::kPowerLimit, "nvidia0");
  EXPECT_EQ(Value(limits, "type", "current"), 500.0);
  EXPECT_EQ(Value(limits, "type", "enforced"), 500.0);
  EXPECT_EQ(Value(limits, "type", "default"), 700.0);
  EXPECT_EQ(Value(limits, "type", "min"), 200.0);
  EXPECT_EQ(Value(limits, "type", "max"), 700.0);
  // No limit range on the second: current, enforced and default only.
  EXPECT_EQ(One(*backend, metrics::kPowerLimit, "nvidia1").samples.size(), 3u);
  EXPECT_EQ(Value(One(*backend, metrics::kPerformanceState, "nvidia1")), 8.0);
  const Reading generation = One(*backend, metrics::kHostLinkGeneration, "nvidia1");
  EXPECT_EQ(Value(generation, "type", "current"), 1.0);
  EXPECT_EQ(Value(generation, "type", "max"), 4.0);
  const Reading width = One(*backend, metrics::kHostLinkWidth, "nvidia1");
  EXPECT_EQ(Value(width, "type", "current"), 8.0);
  EXPECT_EQ(Value(width, "type", "max"), 16.0);
}

TEST_F(NvidiaBackendTest, ClockEventReasonsAreDecodedToNames) {
  auto backend = OpenOk("two-gpus.conf");
  ASSERT_NE(backend, nullptr);
  // Supported 0x1fd: every reason but applications_clocks_setting; active 0x24.
  const Reading h100 = One(*backend, metrics::kClockEventActive, "nvidia0");
  std::vector<std::pair<std::string, double>> got;
  for (const Sample& s : h100.samples) got.emplace_back(s.labels.Get("reason"), s.scalar());
  EXPECT_EQ(got, (std::vector<std::pair<std::string, double>>{{"gpu_idle", 0},
                                                              {"sw_power_cap", 1},
                                                              {"hw_slowdown", 0},
                                                              {"sync_boost", 0},
                                                              {"sw_thermal_slowdown", 1},
                                                              {"hw_thermal_slowdown", 0},
                                                              {"hw_power_brake_slowdown", 0},
                                                              {"display_clock_setting", 0}}));
  // Without a supported mask every defined reason is listed; only gpu_idle (0x1) is active.
  const Reading a100 = One(*backend, metrics::kClockEventActive, "nvidia1");
  ASSERT_EQ(a100.samples.size(), 11u);  // every reason NVML defines
  EXPECT_EQ(Value(a100, "reason", "gpu_idle"), 1.0);
  EXPECT_EQ(Value(a100, "reason", "applications_clocks_setting"), 0.0);
  EXPECT_EQ(Value(a100, "reason", "sw_power_cap"), 0.0);
}

TEST_F(NvidiaBackendTest, PcieThroughputAndWhatAGpuLacks) {
  auto backend = OpenOk("two-gpus.conf");
  ASSERT_NE(backend, nullptr);
  // Before a GPM interval: nvmlDeviceGetPcieThroughput, KB/s x 1024.
  const Reading link = One(*backend, metrics::kHostLinkThroughput, "nvidia0");
  EXPECT_EQ(Value(link, "direction", "tx"), 1024000.0);
  EXPECT_EQ(Value(link, "direction", "rx"), 2048000.0);
  const Reading a100 = One(*backend, metrics::kHostLinkThroughput, "nvidia1");
  EXPECT_EQ(a100.state, ReadingState::kUnsupported);
  EXPECT_EQ(a100.reason,
            "unsupported: nvmlDeviceGetPcieThroughput not supported on NVIDIA A100-SXM4-40GB");
}

TEST_F(NvidiaBackendTest, EccRetiredAndRemappedPages) {
  auto backend = OpenOk("two-gpus.conf");
  ASSERT_NE(backend, nullptr);
  const Reading h100 = One(*backend, metrics::kErrors, "nvidia0");
  std::vector<std::pair<std::string, double>> got;
  for (const Sample& s : h100.samples) got.emplace_back(s.labels.Get("type"), s.scalar());
  // XIDs 13 and 31 are pending events: the Collect drains both.
  EXPECT_EQ(got, (std::vector<std::pair<std::string, double>>{{"ecc_corrected_volatile", 12},
                                                              {"ecc_uncorrected_volatile", 0},
                                                              {"ecc_corrected_aggregate", 345},
                                                              {"ecc_uncorrected_aggregate", 1},
                                                              {"remapped_rows_correctable", 2},
                                                              {"remapped_rows_uncorrectable", 0},
                                                              {"remapped_rows_pending", 0},
                                                              {"remapped_rows_failure", 0},
                                                              {"xid_since_start", 2}}));
  const Reading a100 = One(*backend, metrics::kErrors, "nvidia1");
  got.clear();
  for (const Sample& s : a100.samples) got.emplace_back(s.labels.Get("type"), s.scalar());
  EXPECT_EQ(got, (std::vector<std::pair<std::string, double>>{{"ecc_corrected_volatile", 0},
                                                              {"ecc_uncorrected_volatile", 0},
                                                              {"ecc_corrected_aggregate", 7},
                                                              {"ecc_uncorrected_aggregate", 0},
                                                              {"retired_pages_sbe", 1},
                                                              {"retired_pages_dbe", 0},
                                                              {"retired_pages_pending", 0}}));
}

TEST_F(NvidiaBackendTest, LastXidFromEvents) {
  auto backend = OpenOk("two-gpus.conf");
  ASSERT_NE(backend, nullptr);
  const Reading h100 = One(*backend, metrics::kLastErrorCode, "nvidia0");
  EXPECT_EQ(Value(h100, "type", "xid"), 31.0);
  const Reading a100 = One(*backend, metrics::kLastErrorCode, "nvidia1");
  EXPECT_EQ(a100.state, ReadingState::kUnsupported);
  EXPECT_EQ(a100.reason, "unsupported: XID events not supported on NVIDIA A100-SXM4-40GB");
}

TEST_F(NvidiaBackendTest, PerProcessGpuMemory) {
  auto backend = OpenOk("two-gpus.conf");
  ASSERT_NE(backend, nullptr);
  const Reading h100 = One(*backend, metrics::kProcessMemory, "nvidia0");
  ASSERT_EQ(h100.samples.size(), 2u);
  EXPECT_EQ(Value(h100, "pid", "4242"), 1073741824.0);
  EXPECT_EQ(Value(h100, "pid", "4343"), 2147483648.0);
  // Command names from nvmlSystemGetProcessName (the host's pids); none where the driver has none.
  for (const Sample& s : h100.samples) {
    EXPECT_EQ(s.labels.Get("command"), s.labels.Get("pid") == "4242" ? "python3" : "")
        << s.labels.Get("pid");
  }
  const Reading a100 = One(*backend, metrics::kProcessMemory, "nvidia1");
  EXPECT_EQ(a100.state, ReadingState::kNoData);
  EXPECT_EQ(a100.reason, "no data: no compute process is using nvidia1");
}

TEST_F(NvidiaBackendTest, PerProcessEngineBusyFromTheNewestSample) {
  auto backend = OpenOk("two-gpus.conf");
  ASSERT_NE(backend, nullptr);
  const Reading h100 = One(*backend, metrics::kProcessEngineBusy, "nvidia0");
  ASSERT_EQ(h100.state, ReadingState::kOk) << h100.reason;
  ASSERT_EQ(h100.samples.size(), 8u);  // two processes x sm, memory, encoder, decoder
  std::map<std::string, double> by_key;
  for (const Sample& s : h100.samples) {
    by_key[std::string(s.labels.Get("pid")) + "/" + std::string(s.labels.Get("engine"))] =
        s.scalar();
    EXPECT_EQ(s.labels.Get("command"), s.labels.Get("pid") == "4242" ? "python3" : "");
  }
  EXPECT_EQ(by_key["4242/sm"], 71);
  EXPECT_EQ(by_key["4242/memory"], 38);
  EXPECT_EQ(by_key["4343/sm"], 12);
  EXPECT_EQ(by_key["4343/decoder"], 0);
  // No sample in the driver's window: NOT_FOUND is no data, not an error.
  const Reading a100 = One(*backend, metrics::kProcessEngineBusy, "nvidia1");
  EXPECT_EQ(a100.state, ReadingState::kNoData);
  EXPECT_EQ(a100.reason,
            "no data: no process used nvidia1 in the last 5 s (nvmlDeviceGetProcessUtilization)");
}

TEST_F(NvidiaBackendTest, GpmMetricsFromTwoSamplesAtLeast100MsApart) {
  auto backend = OpenOk("two-gpus.conf");
  ASSERT_NE(backend, nullptr);
  // The first sample was taken at open; 50 ms later there is no pair yet.
  clock_.AdvanceNs(50'000'000);
  const Reading early = One(*backend, metrics::kTensorCoreUtilization, "nvidia0");
  EXPECT_EQ(early.state, ReadingState::kNoData);
  EXPECT_EQ(early.reason,
            "no data: GPM needs two samples at least 100 ms apart; the previous one is 50 ms old");
  clock_.AdvanceNs(150'000'000);
  const std::vector<Reading> readings = backend->Collect(
      {"tensorcore_utilization_percent", "sm_occupancy_percent", "pipe_utilization_percent",
       "memory_bandwidth_utilization_percent", "host_link_throughput_bytes_per_second",
       "peer_link_throughput_bytes_per_second"});
  ASSERT_EQ(readings.size(), 12u);
  // Scripted samples 0 and 1: 200 ms apart, 1e6 SM cycles elapsed.
  EXPECT_DOUBLE_EQ(Value(readings[0]), 62.5);   // tensor: 625000 / 1e6
  EXPECT_DOUBLE_EQ(Value(readings[2]), 43.75);  // occupancy: 437500 / 1e6
  EXPECT_DOUBLE_EQ(Value(readings[4], "pipe", "fp64"), 12.5);
  EXPECT_DOUBLE_EQ(Value(readings[4], "pipe", "fp32"), 25.0);
  EXPECT_DOUBLE_EQ(Value(readings[4], "pipe", "fp16"), 5.0);
  // 3.35e11 bytes in 0.2 s against a 3.35e12 B/s peak.
  EXPECT_DOUBLE_EQ(Value(readings[6]), 50.0);
  // PCIe: 2097152000 B and 1048576000 B in 0.2 s = 10000 and 5000 MiB/s.
  EXPECT_DOUBLE_EQ(Value(readings[8], "direction", "tx"), 10000 * kMiB);
  EXPECT_DOUBLE_EQ(Value(readings[8], "direction", "rx"), 5000 * kMiB);
  // NVLink: 20971520000 B and 10485760000 B in 0.2 s.
  EXPECT_DOUBLE_EQ(Value(readings[10], "direction", "tx"), 100000 * kMiB);
  EXPECT_DOUBLE_EQ(Value(readings[10], "direction", "rx"), 50000 * kMiB);
  // The next interval pairs sample 1 (now the older) with sample 2: 250000 / 1e6 tensor cycles
  // (sample 0 to 2 would give 875000 / 2e6 = 43.75%); past sample 2 the rates stay those of 1 to 2.
  clock_.AdvanceNs(200'000'000);
  EXPECT_DOUBLE_EQ(Value(One(*backend, metrics::kTensorCoreUtilization, "nvidia0")), 25.0);
  clock_.AdvanceNs(200'000'000);
  const std::vector<Reading> fourth =
      backend->Collect({"tensorcore_utilization_percent", "pipe_utilization_percent"});
  EXPECT_DOUBLE_EQ(Value(fourth[0]), 25.0);
  EXPECT_DOUBLE_EQ(Value(fourth[2], "pipe", "fp32"), 25.0);
  for (size_t i = 1; i < readings.size(); i += 2) {
    EXPECT_EQ(readings[i].device, "nvidia1");
    if (readings[i].metric == metrics::kHostLinkThroughput) continue;  // not a GPM-only metric
    EXPECT_EQ(readings[i].state, ReadingState::kUnsupported);
    EXPECT_EQ(readings[i].reason,
              "unsupported: GPM not supported on NVIDIA A100-SXM4-40GB (it needs Hopper or "
              "newer)");
  }
}

TEST_F(NvidiaBackendTest, OlderDriverWithoutGpmSymbolsStillWorks) {
  auto backend = OpenOk("two-gpus.conf", XPUPERF_FAKE_NVML_NO_GPM);
  ASSERT_NE(backend, nullptr);
  clock_.AdvanceNs(200'000'000);
  const Reading tensor = One(*backend, metrics::kTensorCoreUtilization, "nvidia0");
  EXPECT_EQ(tensor.state, ReadingState::kUnsupported);
  EXPECT_EQ(tensor.reason, "unsupported: driver has no GPM (nvmlGpmMetricsGet missing)");
  // The fallbacks of an older driver: nvmlDeviceGetTemperature, ...ClocksThrottleReasons.
  EXPECT_EQ(Value(One(*backend, metrics::kTemperature, "nvidia0"), "sensor", "gpu"), 54.0);
  EXPECT_EQ(Value(One(*backend, metrics::kClockEventActive, "nvidia0"), "reason", "sw_power_cap"),
            1.0);
  EXPECT_EQ(Value(One(*backend, metrics::kDutyCycle, "nvidia0")), 87.0);
}

TEST_F(NvidiaBackendTest, GpuThatFallsOffTheBusIsReportedAndTheOtherStillMonitored) {
  auto backend = OpenOk("two-gpus.conf");
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(Value(One(*backend, metrics::kDutyCycle, "nvidia1")), 12.0);
  // The library the backend opened (already loaded: RTLD_NOLOAD) exports a test switch.
  void* library = ::dlopen(XPUPERF_FAKE_NVML, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(library, nullptr);
  auto set_lost = reinterpret_cast<void (*)(unsigned)>(::dlsym(library, "xpuperfFakeNvmlSetLost"));
  ASSERT_NE(set_lost, nullptr);
  set_lost(1);
  ::dlclose(library);
  for (int round = 0; round < 2; ++round) {
    const std::vector<Reading> readings = backend->Collect({"duty_cycle_percent", "power_watts"});
    ASSERT_EQ(readings.size(), 4u);
    EXPECT_EQ(Value(readings[0]), 87.0);
    EXPECT_EQ(readings[1].state, ReadingState::kNoData);
    EXPECT_EQ(readings[1].reason,
              "no data: GPU lost (fell off the bus) (nvmlDeviceGetUtilizationRates returned "
              "NVML_ERROR_GPU_IS_LOST)");
    EXPECT_EQ(Value(readings[2]), 350.125);
    // Not queried again: the reason names the call that found it lost.
    EXPECT_EQ(readings[3].reason, readings[1].reason);
  }
}

TEST_F(NvidiaBackendTest, GpuLostBeforeStartIsListedAndReportedAsLost) {
  auto backend = OpenOk("lost-gpu.conf");
  ASSERT_NE(backend, nullptr);
  ASSERT_EQ(backend->devices().size(), 2u);
  EXPECT_EQ(backend->devices()[1].id, "nvidia1");
  EXPECT_EQ(backend->devices()[1].model, "NVIDIA GPU (lost)");
  const std::vector<Reading> readings = backend->Collect({});
  for (const Reading& r : readings) {
    if (r.device != "nvidia1") continue;
    EXPECT_EQ(r.state, ReadingState::kNoData) << r.metric;
    EXPECT_EQ(r.reason,
              "no data: GPU lost (fell off the bus) (nvmlDeviceGetName returned "
              "NVML_ERROR_GPU_IS_LOST)");
  }
  EXPECT_EQ(Value(One(*backend, metrics::kDutyCycle, "nvidia0")), 50.0);
}

TEST_F(NvidiaBackendTest, MissingLibraryIsUnavailableWithTheLoaderReason) {
  auto backend = Open("two-gpus.conf", "/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(backend.ok());
  EXPECT_EQ(backend.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(backend.error().message,
            "/nonexistent/libnvidia-ml.so.1 not found (/nonexistent/libnvidia-ml.so.1: cannot open "
            "shared object file: No such file or directory)");
  // The same through the environment variable, as the CLI uses it.
  ::setenv("XPUPERF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  auto from_env = Open("two-gpus.conf", "");
  ASSERT_FALSE(from_env.ok());
  EXPECT_EQ(from_env.error().message, backend.error().message);
}

TEST_F(NvidiaBackendTest, EnvironmentVariableSelectsTheLibrary) {
  ::setenv("XPUPERF_NVML_LIBRARY", XPUPERF_FAKE_NVML, 1);
  auto backend = Open("two-gpus.conf", "");
  ASSERT_TRUE(backend.ok()) << backend.error().ToString();
  EXPECT_EQ((*backend)->devices().size(), 2u);
}

TEST_F(NvidiaBackendTest, ALibraryThatIsNotNvmlIsRefusedBeforeLoading) {
  // A truncated copy of the library: dlopen would fault (SIGBUS) on the missing pages.
  const std::string dir = ::testing::TempDir();
  std::ifstream whole(XPUPERF_FAKE_NVML, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(whole)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 8192u);
  const std::string truncated = dir + "/truncated-libnvidia-ml.so.1";
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 3);
  const std::string text = dir + "/text-libnvidia-ml.so.1";
  std::ofstream(text) << "not a library\n";
  for (const auto& [path, why] : std::vector<std::pair<std::string, std::string>>{
           {truncated, "truncated"},
           {text, "not an ELF file"},
           // An ELF that is not NVML (this test's own executable) is never loaded: its
           // constructors would run inside this process.
           {"/proc/self/exe", "defines none of nvmlInit_v2, nvmlInit"},
           {dir, "is a directory"}}) {
    ::setenv("XPUPERF_NVML_LIBRARY", path.c_str(), 1);
    auto backend = Open("two-gpus.conf", "");
    ASSERT_FALSE(backend.ok()) << path;
    EXPECT_EQ(backend.error().code, ErrorCode::kUnavailable);
    EXPECT_NE(backend.error().message.find(why), std::string::npos) << backend.error().message;
  }
  ::unsetenv("XPUPERF_NVML_LIBRARY");
}

TEST_F(NvidiaBackendTest, InitFailureAndNoGpuAreUnavailable) {
  auto not_loaded = Open("driver-not-loaded.conf");
  ASSERT_FALSE(not_loaded.ok());
  EXPECT_EQ(not_loaded.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(not_loaded.error().message,
            "nvmlInit_v2 failed: Driver Not Loaded (NVML_ERROR_DRIVER_NOT_LOADED)");
  auto uncounted = Open("count-error.conf");
  ASSERT_FALSE(uncounted.ok());
  EXPECT_EQ(uncounted.error().message,
            "nvmlDeviceGetCount_v2 failed: Unknown Error (NVML_ERROR_UNKNOWN)");
  auto none = Open("no-gpu.conf");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "NVML reports no NVIDIA GPU");
}

}  // namespace
}  // namespace xpuperf::nvidia
