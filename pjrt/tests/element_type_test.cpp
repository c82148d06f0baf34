#include "xpuperf/pjrt/element_type.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace xpuperf::pjrt {
namespace {

TEST(ElementType, Bf16RoundsToNearestEven) {
  uint16_t bits = 0;
  StoreElement(ElementType::kBF16, 1.0, &bits);
  EXPECT_EQ(bits, 0x3f80);
  StoreElement(ElementType::kBF16, 1.0 + 1.0 / 256, &bits);  // halfway: ties to even (1.0)
  EXPECT_EQ(bits, 0x3f80);
  StoreElement(ElementType::kBF16, 1.0 + 3.0 / 256, &bits);  // halfway above odd: up
  EXPECT_EQ(bits, 0x3f82);
  EXPECT_EQ(LoadElement(ElementType::kBF16, &bits), 1.0 + 2.0 / 128);
}

TEST(ElementType, NamesAndSizes) {
  EXPECT_EQ(ElementBytes(ElementType::kS8), 1u);
  EXPECT_EQ(ElementBytes(ElementType::kS64), 8u);
  EXPECT_EQ(MlirName(ElementType::kBF16), "bf16");
  EXPECT_EQ(MlirName(ElementType::kS8), "i8");
  ASSERT_TRUE(ParsePrecision("int8").ok());
  EXPECT_EQ(*ParsePrecision("int8"), ElementType::kS8);
  EXPECT_FALSE(ParsePrecision("fp8").ok());
  int8_t i = 0;
  StoreElement(ElementType::kS8, -7, &i);
  EXPECT_EQ(i, -7);
}

}  // namespace
}  // namespace xpuperf::pjrt
