// -b/-e/-f/-i size sweeps and K/M/G sizes.
#include "xpuperf/collectives/size_sweep.h"

#include <gtest/gtest.h>

namespace xpuperf::collectives {
namespace {

std::vector<int64_t> Sweep(const std::string& begin, const std::string& end, int64_t factor,
                           const std::string& increment = "") {
  SizeSweepSpec spec;
  spec.begin = begin;
  spec.end = end;
  spec.factor = factor;
  spec.increment = increment;
  Result<std::vector<int64_t>> sizes = MakeSizeSweep(spec);
  EXPECT_TRUE(sizes.ok()) << sizes.error().message;
  return sizes.ok() ? *sizes : std::vector<int64_t>{};
}

Error SweepError(const std::string& begin, const std::string& end, int64_t factor,
                 const std::string& increment = "") {
  SizeSweepSpec spec{begin, end, factor, increment};
  Result<std::vector<int64_t>> sizes = MakeSizeSweep(spec);
  EXPECT_FALSE(sizes.ok());
  return sizes.ok() ? Error{} : sizes.error();
}

TEST(SizeSweepTest, ParsesSuffixesAsPowersOf1024) {
  EXPECT_EQ(*ParseByteSize("8"), 8);
  EXPECT_EQ(*ParseByteSize("64K"), 65536);
  EXPECT_EQ(*ParseByteSize("64k"), 65536);
  EXPECT_EQ(*ParseByteSize("8M"), 8388608);
  EXPECT_EQ(*ParseByteSize("2G"), 2147483648);
}

TEST(SizeSweepTest, RejectsMalformedSizes) {
  for (const char* bad : {"", "M", "-8", "8MB", "8T", "1.5M", "0", " 8", "8 ", "0x10",
                          "99999999999999999999", "9999999999999G"}) {
    Result<int64_t> size = ParseByteSize(bad);
    EXPECT_FALSE(size.ok()) << bad;
    if (!size.ok()) {
      EXPECT_EQ(size.error().code, ErrorCode::kInvalidArgument) << bad;
    }
  }
}

TEST(SizeSweepTest, MultipliesFromBeginToEndInclusive) {
  EXPECT_EQ(Sweep("8", "64", 2), (std::vector<int64_t>{8, 16, 32, 64}));
  EXPECT_EQ(Sweep("8", "64", 0), (std::vector<int64_t>{8, 16, 32, 64}));  // default factor 2
  EXPECT_EQ(Sweep("1K", "1M", 32), (std::vector<int64_t>{1024, 32768, 1048576}));
  // End not on the grid: stop at the last size below it.
  EXPECT_EQ(Sweep("3", "10", 3), (std::vector<int64_t>{3, 9}));
  EXPECT_EQ(Sweep("8M", "8M", 2), (std::vector<int64_t>{8388608}));
}

TEST(SizeSweepTest, AddsTheIncrementInstead) {
  EXPECT_EQ(Sweep("1K", "4K", 0, "1K"), (std::vector<int64_t>{1024, 2048, 3072, 4096}));
  EXPECT_EQ(Sweep("10", "25", 0, "10"), (std::vector<int64_t>{10, 20}));
}

TEST(SizeSweepTest, BadSweepsNameTheOption) {
  EXPECT_NE(SweepError("8x", "64", 2).message.find("-b"), std::string::npos);
  EXPECT_NE(SweepError("8", "", 2).message.find("-e"), std::string::npos);
  EXPECT_NE(SweepError("64", "8", 2).message.find("smaller"), std::string::npos);
  EXPECT_NE(SweepError("8", "64", 1).message.find("-f"), std::string::npos);
  EXPECT_NE(SweepError("8", "64", 2, "8").message.find("not both"), std::string::npos);
  EXPECT_NE(SweepError("8", "64", 0, "0").message.find("-i"), std::string::npos);
  // 1 byte steps over 1 GiB: too many sizes.
  EXPECT_NE(SweepError("1", "1G", 0, "1").message.find("more than"), std::string::npos);
}

TEST(SizeSweepTest, FormatsInBinaryUnits) {
  EXPECT_EQ(FormatByteSize(8), "8 B");
  EXPECT_EQ(FormatByteSize(65536), "64 KiB");
  EXPECT_EQ(FormatByteSize(3 << 19), "1.5 MiB");
}

}  // namespace
}  // namespace xpuperf::collectives
