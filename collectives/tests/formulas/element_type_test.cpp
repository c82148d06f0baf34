// nccl-tests' datatypes and reductions: names, encodings (half and bfloat16 rounding), expected
// reductions and their tolerances.
#include "xpuperf/collectives/element_type.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace xpuperf::collectives {
namespace {

TEST(ElementTypeTest, NamesRoundTripAndAliases) {
  for (DataType type : AllDataTypes()) {
    auto parsed = ParseDataType(DataTypeName(type));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, type);
  }
  EXPECT_EQ(*ParseDataType("int"), DataType::kInt32);
  EXPECT_EQ(*ParseDataType("bf16"), DataType::kBfloat16);
  EXPECT_EQ(*ParseDataType("fp16"), DataType::kHalf);
  EXPECT_EQ(ParseDataType("int8").error().message,
            "unknown datatype 'int8' (known: float, double, half, bfloat16, int32; also int, "
            "fp32, fp64, fp16, bf16)");
  for (ReduceOp op : AllReduceOps()) EXPECT_EQ(*ParseReduceOp(ReduceOpName(op)), op);
  EXPECT_FALSE(ParseReduceOp("mean").ok());
  EXPECT_EQ(DataTypeSize(DataType::kHalf), 2);
  EXPECT_EQ(DataTypeSize(DataType::kDouble), 8);
  EXPECT_TRUE(Reduces(CollectiveOp::kReduceScatter));
  EXPECT_FALSE(Reduces(CollectiveOp::kAllGather));
}

uint16_t Bits16(DataType type, double value) {
  uint16_t bits = 0;
  EncodeValue(type, value, &bits);
  return bits;
}

TEST(ElementTypeTest, HalfAndBfloat16RoundToNearestEven) {
  EXPECT_EQ(Bits16(DataType::kHalf, 1.0), 0x3c00);
  EXPECT_EQ(Bits16(DataType::kHalf, -2.0), 0xc000);
  EXPECT_EQ(Bits16(DataType::kHalf, 65504.0), 0x7bff);               // the largest half
  EXPECT_EQ(Bits16(DataType::kHalf, 1e6), 0x7c00);                   // overflows to infinity
  EXPECT_EQ(Bits16(DataType::kHalf, std::ldexp(1.0, -24)), 0x0001);  // the smallest subnormal
  // 2049 lies halfway between 2048 and 2050: to the even mantissa, 2048.
  EXPECT_EQ(
      DecodeValue(DataType::kHalf, std::array<uint16_t, 1>{Bits16(DataType::kHalf, 2049)}.data()),
      2048.0);
  EXPECT_EQ(Bits16(DataType::kBfloat16, 1.0), 0x3f80);
  // 257 lies halfway between 256 and 258 in bfloat16: to the even one, 256.
  const uint16_t b = Bits16(DataType::kBfloat16, 257);
  EXPECT_EQ(DecodeValue(DataType::kBfloat16, &b), 256.0);
  for (DataType type : AllDataTypes()) {
    alignas(8) unsigned char bytes[8] = {};
    EncodeValue(type, 17, bytes);
    EXPECT_EQ(DecodeValue(type, bytes), 17.0) << DataTypeName(type);
  }
  int32_t truncated = 0;
  EncodeValue(DataType::kInt32, 2.75, &truncated);
  EXPECT_EQ(truncated, 2);
}

TEST(ElementTypeTest, ExpectedReductionsAndTheirTolerance) {
  // Index 0: rank r contributes (7r mod 17) + 1: 1, 8, 15, 5 over 4 ranks.
  EXPECT_EQ(ExpectedReduction(ReduceOp::kSum, DataType::kFloat, 4, 0), 29);
  EXPECT_EQ(ExpectedReduction(ReduceOp::kMin, DataType::kFloat, 4, 0), 1);
  EXPECT_EQ(ExpectedReduction(ReduceOp::kMax, DataType::kFloat, 4, 0), 15);
  EXPECT_EQ(ExpectedReduction(ReduceOp::kAvg, DataType::kFloat, 4, 0), 7.25);
  EXPECT_EQ(ExpectedReduction(ReduceOp::kAvg, DataType::kInt32, 4, 0), 7);
  // prod: 2 where (7r + 3i) mod 17 is 0 (rank 0 at index 0; at index 2 rank 4, not among 4),
  // else 1.
  EXPECT_EQ(ExpectedReduction(ReduceOp::kProd, DataType::kHalf, 4, 0), 2);
  EXPECT_EQ(ExpectedReduction(ReduceOp::kProd, DataType::kHalf, 4, 2), 1);
  // Exact: sums of small integers within the type's exact range, min, max, prod, integers.
  EXPECT_EQ(Tolerance(ReduceOp::kSum, DataType::kHalf, 8, 100), 0);
  EXPECT_EQ(Tolerance(ReduceOp::kSum, DataType::kInt32, 1000, 9000), 0);
  EXPECT_EQ(Tolerance(ReduceOp::kMax, DataType::kBfloat16, 64, 17), 0);
  // bfloat16 sums past 256 round: (n - 1) x 2^-8 of the sum.
  EXPECT_DOUBLE_EQ(Tolerance(ReduceOp::kSum, DataType::kBfloat16, 32, 512), 31 * 512 / 256.0);
  EXPECT_GT(Tolerance(ReduceOp::kAvg, DataType::kFloat, 4, 7.25), 0);
}

}  // namespace
}  // namespace xpuperf::collectives
