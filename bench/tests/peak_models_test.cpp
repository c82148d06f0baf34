// The scalar models the peak kernels are verified against, checked on their own: rounding,
// ordering, denormal handling, wrap-around and saturation.
#include "peak_models.h"

#include <gtest/gtest.h>

#include <cmath>

namespace xpuperf::bench {
namespace {

TEST(PeakModelsTest, Bf16RoundsToNearestEven) {
  EXPECT_EQ(Bf16FromFloat(1.0f), 0x3f80);
  EXPECT_EQ(Bf16FromFloat(-2.0f), 0xc000);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1.0).
  EXPECT_EQ(Bf16FromFloat(1.0f + 0x1p-8f), 0x3f80);
  // 1 + 3 x 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): rounds up.
  EXPECT_EQ(Bf16FromFloat(1.0f + 3 * 0x1p-8f), 0x3f82);
  EXPECT_EQ(Bf16FromFloat(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
  EXPECT_TRUE(std::isnan(FloatFromBf16(Bf16FromFloat(NAN))));
  EXPECT_EQ(FloatFromBf16(0x4049), 3.140625f);
}

TEST(PeakModelsTest, HalfRoundsToNearestEvenAndOverflows) {
  EXPECT_EQ(HalfFromDouble(1.0), 0x3c00);
  EXPECT_EQ(HalfFromDouble(-0.5), 0xb800);
  EXPECT_EQ(HalfFromDouble(65504.0), 0x7bff);
  EXPECT_EQ(HalfFromDouble(65520.0), 0x7c00);        // rounds past the largest finite: infinity
  EXPECT_EQ(HalfFromDouble(1.0 + 0x1p-11), 0x3c00);  // tie to even
  EXPECT_EQ(HalfFromDouble(1.0 + 3 * 0x1p-11), 0x3c02);
  EXPECT_EQ(HalfFromDouble(0x1p-24), 0x0001);  // smallest subnormal
  EXPECT_EQ(HalfFromDouble(0x1p-26), 0x0000);
  for (const uint16_t bits : {0x0001, 0x03ff, 0x0400, 0x3c01, 0x7bff, 0xfbff}) {
    EXPECT_EQ(HalfFromDouble(DoubleFromHalf(bits)), bits) << bits;
  }
  EXPECT_EQ(FmaHalfLane(HalfFromDouble(1.5), HalfFromDouble(1.0), HalfFromDouble(0x1p-10)),
            HalfFromDouble(1.5 + 0x1p-10));
}

TEST(PeakModelsTest, DpBf16AddsTheOddProductFirstAndRoundsEachSum) {
  const auto pair = [](float low, float high) {
    return uint32_t{Bf16FromFloat(low)} | (uint32_t{Bf16FromFloat(high)} << 16);
  };
  EXPECT_EQ(DpBf16Lane(1.0f, pair(1, 1), pair(0x1p-23f, 0x1p-22f)), 1.0f + 3 * 0x1p-23f);
  // Order matters when a sum rounds (ties to even): the odd element goes first, so with (low
  // 2^-23, high 2^-24) 1 + 2^-24 rounds to 1, then + 2^-23 gives 1 + 2^-23 ...
  EXPECT_EQ(DpBf16Lane(1.0f, pair(1, 1), pair(0x1p-23f, 0x1p-24f)), 1.0f + 0x1p-23f);
  // ... and with (low 2^-24, high 2^-23) 1 + 2^-23, then + 2^-24 ties up to 1 + 2^-22.
  EXPECT_EQ(DpBf16Lane(1.0f, pair(1, 1), pair(0x1p-24f, 0x1p-23f)), 1.0f + 0x1p-22f);
  // Denormal products are flushed: 2^-70 x 2^-70 = 2^-140 contributes nothing.
  EXPECT_EQ(DpBf16Lane(0.0f, pair(0x1p-70f, 0), pair(0x1p-70f, 0)), 0.0f);
}

TEST(PeakModelsTest, DpBusdWrapsAndMaddubsSaturatesPairs) {
  // u8 200 x s8 (2, -1, 1, 1) = 400 - 200 + 200 + 200.
  EXPECT_EQ(DpBusdLane(7, 0xc8c8c8c8u, 0x0101ff02u), 7 + 600);
  EXPECT_EQ(MaddubsLane(7, 0xc8c8c8c8u, 0x0101ff02u), 7 + 600);
  // 255 x 127 x 2 = 64770 per pair: vpdpbusd keeps it, vpmaddubsw saturates each pair to 32767.
  EXPECT_EQ(DpBusdLane(0, 0xffffffffu, 0x7f7f7f7fu), 4 * 255 * 127);
  EXPECT_EQ(MaddubsLane(0, 0xffffffffu, 0x7f7f7f7fu), 2 * 32767);
  EXPECT_EQ(MaddubsLane(0, 0xffffffffu, 0x80808080u), 2 * -32768);
  // Wraps modulo 2^32 (the non-saturating vpdpbusd, not vpdpbusds).
  EXPECT_EQ(DpBusdLane(INT32_MAX, 0x00000001u, 0x00000001u), INT32_MIN);
}

}  // namespace
}  // namespace xpuperf::bench
