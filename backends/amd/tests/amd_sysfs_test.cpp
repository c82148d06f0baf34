#include "xpuperf/amd/amd_sysfs.h"

#include <gtest/gtest.h>

#include <map>

#include "amd_throttle.h"

namespace xpuperf::amd {
namespace {

TEST(AmdSysfs, RasErrorCount) {
  auto counts = ParseRasErrorCount("ue: 1\nce: 12\n");
  ASSERT_TRUE(counts.has_value());
  EXPECT_EQ(counts->uncorrectable, 1u);
  EXPECT_EQ(counts->correctable, 12u);
  EXPECT_FALSE(counts->deferred.has_value());
  EXPECT_EQ(ParseRasErrorCount("ue: 0\nce: 0\nde: 4\n")->deferred, 4u);
  EXPECT_FALSE(ParseRasErrorCount("ue: 1\n").has_value());
  EXPECT_FALSE(ParseRasErrorCount("ue: x\nce: 1\n").has_value());
  EXPECT_FALSE(ParseRasErrorCount("").has_value());
}

TEST(AmdSysfs, CurrentDpmLevel) {
  EXPECT_EQ(ParseCurrentDpmLevelMhz("0: 500Mhz\n1: 2482Mhz *\n2: 2900Mhz\n"), 2482.0);
  EXPECT_EQ(ParseCurrentDpmLevelMhz("S: 19Mhz *\n0: 500Mhz\n"), 19.0);
  EXPECT_EQ(ParseCurrentDpmLevelMhz("0: 500Mhz\n1: 2482Mhz\n"), std::nullopt);
  EXPECT_EQ(ParseCurrentDpmLevelMhz("1: fastMhz *\n"), std::nullopt);
  EXPECT_EQ(ParseCurrentDpmLevelMhz("1: 100GHz *\n"), std::nullopt);
}

TEST(AmdSysfs, ModelNames) {
  EXPECT_EQ(AmdModelName(0x74a1), "AMD Instinct MI300X");
  EXPECT_EQ(AmdModelName(0x740c), "AMD Instinct MI250X/MI250");
  EXPECT_EQ(AmdModelName(0x744c), "AMD Radeon RX 7900 XT/7900 XTX");
  EXPECT_EQ(AmdModelName(0x1234), "");
}

TEST(AmdThrottle, IndependentBits) {
  const auto reasons =
      DecodeIndependentThrottle((uint64_t{1} << 0) | (uint64_t{1} << 35) | (uint64_t{1} << 40));
  std::map<std::string, bool> by_name(reasons.begin(), reasons.end());
  EXPECT_TRUE(by_name.at("ppt0"));
  EXPECT_TRUE(by_name.at("temp_edge"));
  EXPECT_FALSE(by_name.at("temp_hotspot"));
  EXPECT_FALSE(by_name.at("tdc_gfx"));
  EXPECT_TRUE(by_name.at("bit40"));  // set but not named: still reported
  EXPECT_EQ(reasons.size(), 19u);
}

}  // namespace
}  // namespace xpuperf::amd
