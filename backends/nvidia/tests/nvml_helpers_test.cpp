// Pure helpers of the NVIDIA backend: clock-event names, CPU lists, NVML return names.
#include <gtest/gtest.h>

#include "clock_events.h"
#include "nvidia_gpu.h"
#include "nvml_abi.h"

namespace xpuperf::nvidia {
namespace {

TEST(ClockEventsTest, DecodesEachBitLowestFirst) {
  EXPECT_EQ(DecodeClockEvents(0), std::vector<std::string>{});
  EXPECT_EQ(DecodeClockEvents(0x24),
            (std::vector<std::string>{"sw_power_cap", "sw_thermal_slowdown"}));
  EXPECT_EQ(DecodeClockEvents(0x1ff).size(), 9u);
  EXPECT_EQ(DecodeClockEvents(0x1ff).back(), "display_clock_setting");
  EXPECT_EQ(DecodeClockEvents(0x88),
            (std::vector<std::string>{"hw_slowdown", "hw_power_brake_slowdown"}));
  EXPECT_EQ(DecodeClockEvents(0x600), (std::vector<std::string>{"board_limit", "reliability"}));
  // A bit NVML does not define keeps its value.
  EXPECT_EQ(DecodeClockEvents(0x40 | 0x800),
            (std::vector<std::string>{"hw_thermal_slowdown", "bit_0x800"}));
}

TEST(CpuListTest, RangesFromTheMaskWords) {
  const unsigned long none[2] = {0, 0};
  EXPECT_EQ(CpuListFromMask(none, 2), "");
  const unsigned long mixed[2] = {0xf0f, 0x1};
  EXPECT_EQ(CpuListFromMask(mixed, 2), "0-3,8-11,64");
  const unsigned long across[2] = {1UL << 63, 0x3};
  EXPECT_EQ(CpuListFromMask(across, 2), "63-65");
}

TEST(NvmlAbiTest, ReturnNamesAndArchitectures) {
  EXPECT_STREQ(nvml::ReturnName(nvml::kErrorGpuIsLost), "NVML_ERROR_GPU_IS_LOST");
  EXPECT_STREQ(nvml::ReturnName(nvml::kErrorNotSupported), "NVML_ERROR_NOT_SUPPORTED");
  EXPECT_STREQ(nvml::ReturnName(12345), "NVML_ERROR_(unknown code)");
  EXPECT_EQ(ArchitectureName(9), "hopper");
  EXPECT_EQ(ArchitectureName(10), "blackwell");
  EXPECT_EQ(ArchitectureName(77), "");
}

}  // namespace
}  // namespace xpuperf::nvidia
