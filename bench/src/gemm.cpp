#include "xpuperf/bench/gemm.h"

#include <cblas.h>
#include <fmt/format.h>

#include <cmath>
#include <type_traits>

namespace xpuperf::bench {

double GemmFlops(const GemmShape& s) {
  return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
}

double GemmBytes(const GemmShape& s, Precision precision) {
  const double element = PrecisionBytes(precision);
  // bf16 and int8 GEMMs write fp32 and s32 results.
  const bool widened = precision == Precision::kBf16 || precision == Precision::kInt8;
  const double output = widened ? 4 : element;
  return element * static_cast<double>(s.m * s.k + s.k * s.n) +
         output * static_cast<double>(s.m * s.n);
}

void RunGemm(const GemmShape& s, std::span<const double> a, std::span<const double> b,
             std::span<double> c) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(s.m),
              static_cast<blasint>(s.n), static_cast<blasint>(s.k), 1.0, a.data(),
              static_cast<blasint>(s.k), b.data(), static_cast<blasint>(s.n), 0.0, c.data(),
              static_cast<blasint>(s.n));
}

void RunGemm(const GemmShape& s, std::span<const float> a, std::span<const float> b,
             std::span<float> c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(s.m),
              static_cast<blasint>(s.n), static_cast<blasint>(s.k), 1.0f, a.data(),
              static_cast<blasint>(s.k), b.data(), static_cast<blasint>(s.n), 0.0f, c.data(),
              static_cast<blasint>(s.n));
}

template <typename T>
Status VerifyGemmSample(const GemmShape& s, std::span<const T> a, std::span<const T> b,
                        std::span<const T> c, int samples) {
  const double tolerance = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  const int64_t entries = s.m * s.n;
  const int64_t stride = std::max<int64_t>(1, entries / std::max(1, samples));
  // An odd offset so the samples do not all fall in the same columns.
  for (int64_t index = stride / 2; index < entries; index += stride) {
    const int64_t i = index / s.n;
    const int64_t j = index % s.n;
    double expected = 0;
    double magnitude = 0;
    for (int64_t p = 0; p < s.k; ++p) {
      const double term = static_cast<double>(a[i * s.k + p]) * static_cast<double>(b[p * s.n + j]);
      expected += term;
      magnitude += std::abs(term);
    }
    const double got = static_cast<double>(c[index]);
    if (!(std::abs(got - expected) <= tolerance * magnitude + 1e-30)) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("gemm verification failed: C[{}][{}] = {:.9g}, naive inner "
                                   "product {:.9g} (m={} n={} k={})",
                                   i, j, got, expected, s.m, s.n, s.k));
    }
  }
  return Status::Ok();
}

template Status VerifyGemmSample<float>(const GemmShape&, std::span<const float>,
                                        std::span<const float>, std::span<const float>, int);
template Status VerifyGemmSample<double>(const GemmShape&, std::span<const double>,
                                         std::span<const double>, std::span<const double>, int);

Status VerifyInt8GemmSample(const GemmShape& s, std::span<const uint8_t> a,
                            std::span<const int8_t> b, std::span<const int32_t> c, int samples) {
  const int64_t entries = s.m * s.n;
  const int64_t stride = std::max<int64_t>(1, entries / std::max(1, samples));
  for (int64_t index = stride / 2; index < entries; index += stride) {
    const int64_t i = index / s.n;
    const int64_t j = index % s.n;
    int64_t expected = 0;
    for (int64_t p = 0; p < s.k; ++p) {
      expected += int64_t{a[i * s.k + p]} * int64_t{b[p * s.n + j]};
    }
    if (c[index] != expected) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("gemm int8 verification failed: C[{}][{}] = {}, integer inner "
                                   "product {} (m={} n={} k={})",
                                   i, j, c[index], expected, s.m, s.n, s.k));
    }
  }
  return Status::Ok();
}

std::string OpenBlasConfig() { return openblas_get_config(); }
int OpenBlasThreads() { return openblas_get_num_threads(); }
void SetOpenBlasThreads(int threads) { openblas_set_num_threads(threads); }

}  // namespace xpuperf::bench
