#include "xpuperf/bench/fma_kernels.h"

#include <algorithm>
#include <array>

namespace xpuperf::bench {
namespace {

constexpr std::array<std::string_view, 5> kPrecisionNames = {"fp64", "fp32", "bf16", "fp16",
                                                             "int8"};

}  // namespace

std::string_view PrecisionName(Precision precision) {
  return kPrecisionNames[static_cast<size_t>(precision)];
}

std::optional<Precision> ParsePrecision(std::string_view name) {
  for (size_t i = 0; i < kPrecisionNames.size(); ++i) {
    if (kPrecisionNames[i] == name) return static_cast<Precision>(i);
  }
  return std::nullopt;
}

int PrecisionBytes(Precision precision) {
  constexpr std::array<int, 5> kBytes = {8, 4, 2, 2, 1};
  return kBytes[static_cast<size_t>(precision)];
}

std::string ComputeMetricName(Precision precision) {
  return std::string(PrecisionName(precision)) +
         (precision == Precision::kInt8 ? "_ops" : "_flops");
}

std::string_view SimdLevelName(SimdLevel level) {
  return level == SimdLevel::kAvx2Fma ? "avx2_fma" : "sse2";
}

SimdLevel BestSimdLevel(const std::vector<std::string>& flags) {
  const auto has = [&](std::string_view f) {
    return std::find(flags.begin(), flags.end(), f) != flags.end();
  };
  return has("avx2") && has("fma") ? SimdLevel::kAvx2Fma : SimdLevel::kSse2;
}

}  // namespace xpuperf::bench
