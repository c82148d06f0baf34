// Typed sweep-point parameters: unknown keys, wrong types, fractional integers and ranges are
// errors naming the benchmark and the key; the resolved point holds every default.
#include "xpuperf/bench/parameters.h"

#include <gtest/gtest.h>

namespace xpuperf::bench {
namespace {

const ParameterSchema kSchema = {
    ChoiceParameter("precision", "fp64", {"fp64", "fp32"}), IntegerParameter("m", 512, 1, 1 << 20),
    NumberParameter("scale", 1.0, 0, 10), BooleanParameter("causal", false),
    IntegerParameter("max_kib", nullptr, 1, 1 << 30)};

std::string ErrorOf(const nlohmann::json& point) {
  auto resolved = ResolvePoint("gemm", kSchema, point);
  return resolved.ok() ? std::string() : resolved.error().message;
}

TEST(ParametersTest, DefaultsAreFilledInAndDerivedOnesLeftOut) {
  auto resolved = ResolvePoint("gemm", kSchema, {{"m", 64}});
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(*resolved,
            (nlohmann::json{{"precision", "fp64"}, {"m", 64}, {"scale", 1.0}, {"causal", false}}));
}

TEST(ParametersTest, EveryKindOfBadValueNamesTheKey) {
  EXPECT_EQ(ErrorOf({{"mm", 64}}),
            "gemm: unknown parameter 'mm' (known: precision, m, scale, causal, max_kib)");
  EXPECT_EQ(ErrorOf({{"m", 64.5}}), "gemm: 'm' must be an integer (got 64.5)");
  EXPECT_EQ(ErrorOf({{"m", 64.0}}), "gemm: 'm' must be an integer (got 64.0)");
  EXPECT_EQ(ErrorOf({{"m", "big"}}), "gemm: 'm' must be an integer (got \"big\")");
  EXPECT_EQ(ErrorOf({{"m", 0}}), "gemm: 'm' must be between 1 and 1048576 (got 0)");
  EXPECT_EQ(ErrorOf({{"precision", 3}}), "gemm: 'precision' must be one of fp64, fp32 (got 3)");
  EXPECT_EQ(ErrorOf({{"precision", "fp16"}}),
            "gemm: 'precision' must be one of fp64, fp32 (got \"fp16\")");
  EXPECT_EQ(ErrorOf({{"causal", 1}}), "gemm: 'causal' must be true or false (got 1)");
  EXPECT_EQ(ErrorOf({{"scale", "x"}}), "gemm: 'scale' must be a number (got \"x\")");
  EXPECT_EQ(ErrorOf({{"scale", 11}}), "gemm: 'scale' must be between 0 and 10 (got 11)");
  EXPECT_EQ(ErrorOf(nlohmann::json::array()), "gemm: a sweep point must be a mapping (got [])");
}

}  // namespace
}  // namespace xpuperf::bench
