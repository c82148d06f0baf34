// Device time from a plugin profiler's XSpace: which events count, in which order, and what is
// said when the profile cannot give one per sample.
#include "device_timing.h"

#include <gtest/gtest.h>

#include "xspace_builder.h"

namespace xpuperf::pjrt_bench {
namespace {

using trace::testing::XEventSpec;
using trace::testing::XLineSpec;
using trace::testing::XPlaneSpec;
using trace::testing::XSpaceBuilder;

// Three executions on /device:TPU:1 (out of order in the line), one on /device:TPU:0, host work.
std::string ProfileOfThreeExecutions() {
  XLineSpec modules{1, "XLA Modules", 1000, {}};
  modules.events = {{"jit_gemm(1)", 5'000'000, 2'000'000, {}},
                    {"jit_gemm(1)", 1'000'000, 1'000'000, {}},
                    {"jit_gemm(1)", 9'000'000, 3'000'000, {}}};
  XLineSpec ops{2, "XLA Ops", 1000, {{"dot.1", 1'000'000, 900'000, {}}}};
  XLineSpec other{1, "XLA Modules", 1000, {{"jit_gemm(1)", 0, 7'000'000, {}}}};
  XLineSpec host{7, "python", 1000, {{"Execute", 0, 50'000'000, {}}}};
  return XSpaceBuilder()
      .Plane(XPlaneSpec{1, "/device:TPU:1", {modules, ops}, {}})
      .Plane(XPlaneSpec{2, "/device:TPU:0", {other}, {}})
      .Plane(XPlaneSpec{3, "/host:CPU", {host}, {}})
      .Build();
}

TEST(DeviceTiming, ModulesOfTheMeasuredDeviceInStartOrder) {
  auto seconds = ModuleSecondsFromXSpace(ProfileOfThreeExecutions(), 1);
  ASSERT_TRUE(seconds.ok()) << seconds.error().message;
  ASSERT_EQ(seconds->size(), 3u);
  EXPECT_DOUBLE_EQ((*seconds)[0], 1e-6);  // 1,000,000 ps
  EXPECT_DOUBLE_EQ((*seconds)[1], 2e-6);
  EXPECT_DOUBLE_EQ((*seconds)[2], 3e-6);
  auto other = ModuleSecondsFromXSpace(ProfileOfThreeExecutions(), 0);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->size(), 1u);
  auto none = ModuleSecondsFromXSpace(ProfileOfThreeExecutions(), 5);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(DeviceTiming, TrailingZeroByteOfXlaPluginsIsTolerated) {
  std::string bytes = ProfileOfThreeExecutions();
  bytes.push_back('\0');
  auto seconds = ModuleSecondsFromXSpace(bytes, 1);
  ASSERT_TRUE(seconds.ok()) << seconds.error().message;
  EXPECT_EQ(seconds->size(), 3u);
}

TEST(DeviceTiming, MalformedProfileIsAnError) {
  auto seconds = ModuleSecondsFromXSpace(std::string("\x0a\x7f\x01", 3), 0);
  EXPECT_FALSE(seconds.ok());
}

TEST(DeviceTiming, LastSamplesPerRepetition) {
  // Calibration and warm-up executions come first; the kept samples are the last ones.
  const DeviceTiming timing = DeviceTimingFromModules({9.0, 1.0, 2.0, 4.0}, 3, 2);
  EXPECT_TRUE(timing.note.empty());
  ASSERT_EQ(timing.seconds_per_rep.size(), 3u);
  EXPECT_DOUBLE_EQ(timing.seconds_per_rep[0], 0.5);
  EXPECT_DOUBLE_EQ(timing.seconds_per_rep[2], 2.0);
  const DeviceTiming short_profile = DeviceTimingFromModules({1.0}, 3, 2);
  EXPECT_TRUE(short_profile.seconds_per_rep.empty());
  EXPECT_NE(short_profile.note.find("holds 1 XLA Modules events on the device for 3 samples"),
            std::string::npos)
      << short_profile.note;
}

}  // namespace
}  // namespace xpuperf::pjrt_bench
