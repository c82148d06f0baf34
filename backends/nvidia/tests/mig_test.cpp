// MIG: the NVIDIA backend against the fake libnvidia-ml.so.1 with tests/data/mig.conf (an H100 in
// MIG mode with two MIG devices, an A100 with MIG mode off). Expected values are the scenario's.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <string>

#include "nvidia_gpu.h"
#include "xpuperf/core/clock.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/nvidia/nvidia_backend.h"

namespace xpuperf::nvidia {
namespace {

const std::string kData = XPUPERF_TEST_DATA_DIR;
constexpr const char* kMig3g = "nvidia0/gi1/ci0";
constexpr const char* kMig1g = "nvidia0/gi9/ci0";

class NvidiaMigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("XPUPERF_NVML_LIBRARY");
    ::setenv("XPUPERF_FAKE_NVML_SCENARIO", (kData + "/mig.conf").c_str(), 1);
  }
  void TearDown() override { ::unsetenv("XPUPERF_FAKE_NVML_SCENARIO"); }

  std::unique_ptr<Backend> OpenOk(const std::string& library = XPUPERF_FAKE_NVML) {
    BackendOptions options;
    options.clock = &clock_;
    NvidiaBackendConfig config;
    config.library = library;
    auto backend = CreateNvidiaBackend(options, config);
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

  static double Value(const Reading& reading) {
    EXPECT_EQ(reading.state, ReadingState::kOk) << reading.metric << ": " << reading.reason;
    return reading.samples.empty() ? -1 : reading.samples.front().scalar();
  }

  ManualClock clock_;
};

TEST(MigProfileTest, IsTheLastWordAfterMig) {
  EXPECT_EQ(MigProfileFromName("NVIDIA A100-SXM4-40GB MIG 1g.5gb"), "1g.5gb");
  EXPECT_EQ(MigProfileFromName("NVIDIA H100 80GB HBM3 MIG 1c.3g.40gb"), "1c.3g.40gb");
  EXPECT_EQ(MigProfileFromName("NVIDIA H100 80GB HBM3"), "");
  EXPECT_EQ(MigProfileFromName("NVIDIA H100 MIG "), "");
  EXPECT_EQ(MigProfileFromName("NVIDIA X MIG 1g.5gb extra"), "");
}

TEST_F(NvidiaMigTest, ListsEachMigDeviceRightAfterItsGpu) {
  auto backend = OpenOk();
  ASSERT_NE(backend, nullptr);
  const auto& devices = backend->devices();
  ASSERT_EQ(devices.size(), 4u);
  EXPECT_EQ(devices[0].id, "nvidia0");
  EXPECT_FALSE(devices[0].is_partition());
  EXPECT_NE(std::find(devices[0].features.begin(), devices[0].features.end(), "mig:on"),
            devices[0].features.end());
  EXPECT_EQ(devices[1].id, kMig3g);
  EXPECT_EQ(devices[2].id, kMig1g);  // slot 1 has no instance and is skipped
  EXPECT_EQ(devices[3].id, "nvidia1");
  EXPECT_FALSE(devices[3].is_partition());  // MIG mode off: no MIG devices

  const Device& mig = devices[1];
  EXPECT_EQ(mig.uuid, "MIG-2a4c6e8f-1b3d-5f70-9a2b-4c6d8e0f1a2b");
  EXPECT_EQ(mig.model, "NVIDIA H100 80GB HBM3 MIG 3g.40gb");
  EXPECT_EQ(mig.memory_bytes, 42144366592ull);
  EXPECT_EQ(mig.bus_id, "00000000:19:00.0");
  EXPECT_EQ(mig.index, 0);
  EXPECT_EQ(mig.partition.parent, "nvidia0");
  EXPECT_EQ(mig.partition.parent_uuid, "GPU-5d1a8b2c-7e3f-4a6b-9c0d-1e2f3a4b5c6d");
  EXPECT_EQ(mig.partition.gpu_instance_id, 1);
  EXPECT_EQ(mig.partition.compute_instance_id, 0);
  EXPECT_EQ(mig.partition.profile, "3g.40gb");
  EXPECT_EQ(devices[2].partition.gpu_instance_id, 9);
  EXPECT_EQ(devices[2].partition.profile, "1g.10gb");
}

TEST_F(NvidiaMigTest, MigDevicesHaveTheirOwnMemoryAndProcesses) {
  auto backend = OpenOk();
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(Value(One(*backend, metrics::kMemoryTotal, kMig3g)), 42144366592.0);
  EXPECT_EQ(Value(One(*backend, metrics::kMemoryUsed, kMig3g)), 4294967296.0);
  EXPECT_EQ(Value(One(*backend, metrics::kMemoryUsed, kMig1g)), 8589934592.0);
  EXPECT_EQ(Value(One(*backend, metrics::kMemoryTotal, "nvidia0")), 85520809984.0);
  const Reading processes = One(*backend, metrics::kProcessMemory, kMig1g);
  ASSERT_EQ(processes.state, ReadingState::kOk) << processes.reason;
  ASSERT_EQ(processes.samples.size(), 1u);
  EXPECT_EQ(processes.samples[0].labels.Get(labels::kPid), "4343");
  EXPECT_EQ(processes.samples[0].scalar(), 8589934592.0);
  // The GPU's own readings are unchanged.
  EXPECT_EQ(Value(One(*backend, metrics::kPower, "nvidia0")), 350.125);
  EXPECT_EQ(Value(One(*backend, metrics::kDutyCycle, "nvidia1")), 12.0);
}

TEST_F(NvidiaMigTest, WhatNvmlDoesNotGivePerMigDeviceIsUnsupportedWithTheReason) {
  auto backend = OpenOk();
  ASSERT_NE(backend, nullptr);
  const Reading busy = One(*backend, metrics::kDutyCycle, kMig3g);
  EXPECT_EQ(busy.state, ReadingState::kUnsupported);
  EXPECT_NE(busy.reason.find("NVML has no utilisation rates for MIG devices"), std::string::npos)
      << busy.reason;
  const Reading power = One(*backend, metrics::kPower, kMig3g);
  EXPECT_EQ(power.state, ReadingState::kUnsupported);
  EXPECT_EQ(power.reason,
            "unsupported: NVML reports board power for the whole GPU, not per MIG device (see "
            "nvidia0)");
  EXPECT_EQ(One(*backend, metrics::kProcessEngineBusy, kMig1g).state, ReadingState::kUnsupported);
  // The GPU in MIG mode: NVML refuses its utilisation rates.
  const Reading parent = One(*backend, metrics::kDutyCycle, "nvidia0");
  EXPECT_EQ(parent.state, ReadingState::kUnsupported);
  EXPECT_EQ(parent.reason,
            "unsupported: nvmlDeviceGetUtilizationRates not supported on a GPU in MIG mode "
            "(NVIDIA H100 80GB HBM3)");
}

TEST_F(NvidiaMigTest, GpmIsReadPerMigDevice) {
  auto backend = OpenOk();
  ASSERT_NE(backend, nullptr);
  clock_.AdvanceNs(200'000'000);
  // 400000 tensor-active of 1000000 cycles between the two scripted samples.
  EXPECT_DOUBLE_EQ(Value(One(*backend, metrics::kTensorCoreUtilization, kMig3g)), 40.0);
  EXPECT_EQ(One(*backend, metrics::kTensorCoreUtilization, kMig1g).state,
            ReadingState::kUnsupported);
}

TEST_F(NvidiaMigTest, MigDevicesAreLostWithTheirGpu) {
  auto backend = OpenOk();
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(Value(One(*backend, metrics::kMemoryUsed, kMig3g)), 4294967296.0);
  void* library = ::dlopen(XPUPERF_FAKE_NVML, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(library, nullptr);
  auto set_lost = reinterpret_cast<void (*)(unsigned)>(::dlsym(library, "xpuperfFakeNvmlSetLost"));
  ASSERT_NE(set_lost, nullptr);
  set_lost(0);
  ::dlclose(library);
  for (int round = 0; round < 2; ++round) {
    for (const Reading& r : backend->Collect({std::string(metrics::kMemoryUsed)})) {
      if (r.device == "nvidia1") {
        EXPECT_EQ(r.state, ReadingState::kOk);
      } else {
        EXPECT_EQ(r.state, ReadingState::kNoData) << r.device;
        EXPECT_NE(r.reason.find("GPU lost"), std::string::npos) << r.reason;
      }
    }
  }
}

}  // namespace
}  // namespace xpuperf::nvidia
