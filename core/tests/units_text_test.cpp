// How durations and half-precision values read (units_text.h, half_float.h).
#include "xpuperf/core/units_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "xpuperf/core/half_float.h"

namespace xpuperf {
namespace {

TEST(UnitsTextTest, DurationsForProgressLines) {
  EXPECT_EQ(FormatDuration(0.4), "0 s");
  EXPECT_EQ(FormatDuration(45), "45 s");
  EXPECT_EQ(FormatDuration(89), "89 s");
  EXPECT_EQ(FormatDuration(90), "2 min");
  EXPECT_EQ(FormatDuration(5399), "90 min");
  EXPECT_EQ(FormatDuration(5400), "1.5 h");
}

TEST(HalfFloatTest, RoundToNearestEvenBothWays) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(1e6f), 0x7c00);                   // overflow: infinity
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(HalfToFloat(FloatToHalf(2049.0f)), 2048.0f);  // halfway: to the even mantissa
  EXPECT_EQ(HalfToFloat(0xc000), -2.0f);
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(FloatToBfloat16(1.0f), 0x3f80);
  EXPECT_EQ(Bfloat16ToFloat(FloatToBfloat16(257.0f)), 256.0f);  // halfway: to even
  EXPECT_EQ(FloatToBfloat16(std::numeric_limits<float>::quiet_NaN()), 0x7fc0);
}

}  // namespace
}  // namespace xpuperf
