// Precisions and the SIMD level of the memory kernels. The peak compute kernels themselves are in
// peak_kernels.h (one variant per ISA and precision, chosen at run time).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xpuperf::bench {

enum class Precision { kFp64, kFp32, kBf16, kFp16, kInt8 };
enum class SimdLevel { kSse2, kAvx2Fma };

std::string_view PrecisionName(Precision precision);
// "fp64", "fp32", "bf16", "fp16", "int8"; nullopt for anything else.
std::optional<Precision> ParsePrecision(std::string_view name);
// Bytes of one element: 8, 4, 2, 2, 1.
int PrecisionBytes(Precision precision);
// "<precision>_flops", or "int8_ops" for the integer precision.
std::string ComputeMetricName(Precision precision);

std::string_view SimdLevelName(SimdLevel level);
// The widest variant of the read kernels the ISA flags (as in /proc/cpuinfo) allow: AVX2+FMA needs
// "avx2" and "fma".
SimdLevel BestSimdLevel(const std::vector<std::string>& flags);

}  // namespace xpuperf::bench
