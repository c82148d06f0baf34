// The FMA chain kernels. Intrinsics, not plain arithmetic: in ISO C++ mode g++ does not contract
// a * b + c into an FMA (-ffp-contract=off), and the chains must be FMAs.
#include "xpuperf/bench/fma_kernels.h"

#include <fmt/format.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>

namespace xpuperf::bench {
namespace {

constexpr double kFp64Step = 0x1p-40;
constexpr float kFp32Step = 0x1p-23f;

// Chain c starts at 1 + c/16: distinct starts keep the compiler from merging identical chains into
// one (it does, when they all start equal), and keep every value in [1, 2) where steps are exact.
constexpr double ChainStart(int chain) { return 1.0 + chain / 16.0; }

// Each function keeps kFmaChains accumulators in registers; the unrolled inner loop issues
// kFmaChains independent FMAs per iteration.
__attribute__((target("avx2,fma"))) void ChainsAvx2Fp64(int64_t iterations, double multiplier,
                                                        double* out) {
  const __m256d a = _mm256_set1_pd(multiplier);
  const __m256d b = _mm256_set1_pd(kFp64Step);
  __m256d acc[kFmaChains];
#pragma GCC unroll 12
  for (int c = 0; c < kFmaChains; ++c) acc[c] = _mm256_set1_pd(ChainStart(c));
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kFmaChains; ++c) acc[c] = _mm256_fmadd_pd(acc[c], a, b);
  }
  for (int c = 0; c < kFmaChains; ++c) _mm256_storeu_pd(out + 4 * c, acc[c]);
}

__attribute__((target("avx2,fma"))) void ChainsAvx2Fp32(int64_t iterations, float multiplier,
                                                        float* out) {
  const __m256 a = _mm256_set1_ps(multiplier);
  const __m256 b = _mm256_set1_ps(kFp32Step);
  __m256 acc[kFmaChains];
#pragma GCC unroll 12
  for (int c = 0; c < kFmaChains; ++c) acc[c] = _mm256_set1_ps(static_cast<float>(ChainStart(c)));
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kFmaChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  }
  for (int c = 0; c < kFmaChains; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}

void ChainsSse2Fp64(int64_t iterations, double multiplier, double* out) {
  const __m128d a = _mm_set1_pd(multiplier);
  const __m128d b = _mm_set1_pd(kFp64Step);
  __m128d acc[kFmaChains];
#pragma GCC unroll 12
  for (int c = 0; c < kFmaChains; ++c) acc[c] = _mm_set1_pd(ChainStart(c));
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kFmaChains; ++c) acc[c] = _mm_add_pd(_mm_mul_pd(acc[c], a), b);
  }
  for (int c = 0; c < kFmaChains; ++c) _mm_storeu_pd(out + 2 * c, acc[c]);
}

void ChainsSse2Fp32(int64_t iterations, float multiplier, float* out) {
  const __m128 a = _mm_set1_ps(multiplier);
  const __m128 b = _mm_set1_ps(kFp32Step);
  __m128 acc[kFmaChains];
#pragma GCC unroll 12
  for (int c = 0; c < kFmaChains; ++c) acc[c] = _mm_set1_ps(static_cast<float>(ChainStart(c)));
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kFmaChains; ++c) acc[c] = _mm_add_ps(_mm_mul_ps(acc[c], a), b);
  }
  for (int c = 0; c < kFmaChains; ++c) _mm_storeu_ps(out + 4 * c, acc[c]);
}

}  // namespace

std::string_view PrecisionName(Precision precision) {
  return precision == Precision::kFp64 ? "fp64" : "fp32";
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

int VectorLanes(Precision precision, SimdLevel level) {
  const int bits = level == SimdLevel::kAvx2Fma ? 256 : 128;
  return bits / (precision == Precision::kFp64 ? 64 : 32);
}

int FmaOutputCount(Precision precision, SimdLevel level) {
  return kFmaChains * VectorLanes(precision, level);
}

double FmaFlopsPerCall(Precision precision, SimdLevel level, int64_t iterations) {
  return 2.0 * static_cast<double>(iterations) * FmaOutputCount(precision, level);
}

int64_t MaxExactFmaIterations(Precision precision) {
  // The largest start is 1 + 11/16, so iterations x step must stay below 5/16.
  return precision == Precision::kFp64 ? int64_t{1} << 40 : int64_t{1} << 21;
}

void RunFmaChains(Precision precision, SimdLevel level, int64_t iterations, double multiplier,
                  std::span<double> out) {
  const size_t count = static_cast<size_t>(FmaOutputCount(precision, level));
  if (out.size() < count) std::abort();
  if (precision == Precision::kFp64) {
    if (level == SimdLevel::kAvx2Fma) {
      ChainsAvx2Fp64(iterations, multiplier, out.data());
    } else {
      ChainsSse2Fp64(iterations, multiplier, out.data());
    }
    return;
  }
  alignas(32) float values[kFmaChains * 8];
  if (level == SimdLevel::kAvx2Fma) {
    ChainsAvx2Fp32(iterations, static_cast<float>(multiplier), values);
  } else {
    ChainsSse2Fp32(iterations, static_cast<float>(multiplier), values);
  }
  std::copy(values, values + count, out.begin());
}

Status VerifyFmaChains(Precision precision, SimdLevel level, int64_t iterations,
                       std::span<const double> values) {
  const double step = precision == Precision::kFp64 ? kFp64Step : kFp32Step;
  const size_t lanes = static_cast<size_t>(VectorLanes(precision, level));
  const auto expected_at = [&](size_t i) {
    const int chain = static_cast<int>((i / lanes) % kFmaChains);
    return ChainStart(chain) + static_cast<double>(iterations) * step;
  };
  size_t wrong = 0;
  size_t first = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] != expected_at(i)) {
      if (wrong++ == 0) first = i;
    }
  }
  if (wrong == 0) return Status::Ok();
  return MakeError(ErrorCode::kInternal,
                   fmt::format("peak_fma {} verification failed: {} of {} values wrong; value {} "
                               "is {:.17g}, expected {:.17g}",
                               PrecisionName(precision), wrong, values.size(), first, values[first],
                               expected_at(first)));
}

}  // namespace xpuperf::bench
