#include "read_kernel.h"

#include <immintrin.h>

namespace xpuperf::bench {
namespace {

// Two loads per cycle with an add latency of 3-4 cycles: 8 independent vector sums keep the
// load ports busy.
__attribute__((target("avx2"))) double SumAvx2(const double* data, size_t n) {
  __m256d acc[8];
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) acc[j] = _mm256_setzero_pd();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
#pragma GCC unroll 8
    for (size_t j = 0; j < 8; ++j)
      acc[j] = _mm256_add_pd(acc[j], _mm256_loadu_pd(data + i + 4 * j));
  }
  __m256d total = _mm256_setzero_pd();
  for (int j = 0; j < 8; ++j) total = _mm256_add_pd(total, acc[j]);
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, total);
  double sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
  for (; i < n; ++i) sum += data[i];
  return sum;
}

double SumSse2(const double* data, size_t n) {
  __m128d acc[8];
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) acc[j] = _mm_setzero_pd();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
#pragma GCC unroll 8
    for (size_t j = 0; j < 8; ++j) acc[j] = _mm_add_pd(acc[j], _mm_loadu_pd(data + i + 2 * j));
  }
  __m128d total = _mm_setzero_pd();
  for (int j = 0; j < 8; ++j) total = _mm_add_pd(total, acc[j]);
  alignas(16) double lanes[2];
  _mm_store_pd(lanes, total);
  double sum = lanes[0] + lanes[1];
  for (; i < n; ++i) sum += data[i];
  return sum;
}

}  // namespace

void FillReadPattern(std::span<double> data) {
  for (size_t i = 0; i < data.size(); ++i) data[i] = 1.0 + static_cast<double>(i % 16) * 0.25;
}

double ExpectedReadSum(uint64_t n) {
  // Sum over a full block of 16: 16 + 0.25 x (0 + 1 + ... + 15) = 46.
  const uint64_t blocks = n / 16;
  const uint64_t rest = n % 16;
  return 46.0 * static_cast<double>(blocks) + static_cast<double>(rest) +
         0.125 * static_cast<double>(rest *
                                     (rest - (rest > 0 ? 1 : 0)));  // 0.25 x (0 + ... + rest - 1)
}

double SumForBandwidth(SimdLevel level, std::span<const double> data) {
  return level == SimdLevel::kAvx2Fma ? SumAvx2(data.data(), data.size())
                                      : SumSse2(data.data(), data.size());
}

}  // namespace xpuperf::bench
