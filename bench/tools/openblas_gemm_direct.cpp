// The GEMM baseline: cblas_dgemm/sgemm called directly in a timed loop, with no xpuperf code in the
// way, so `xpuperf bench compute -b gemm` can be compared with it (scripts/bench-compare.sh).
// Usage: openblas_gemm_direct fp64|fp32 M N K [SAMPLES]. Prints the median GFLOP/s (2 m n k FLOPs).
#include <cblas.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bare_loop_timing.h"

namespace {

template <typename T>
double MedianGflops(long m, long n, long k, int samples) {
  std::mt19937_64 random(42);
  std::uniform_real_distribution<T> uniform(T(-1), T(1));
  std::vector<T> a(m * k), b(k * n), c(m * n);
  for (T& x : a) x = uniform(random);
  for (T& x : b) x = uniform(random);
  const auto gemm = [&] {
    if constexpr (sizeof(T) == 8) {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a.data(), k, b.data(), n,
                  0.0, c.data(), n);
    } else {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), k, b.data(),
                  n, 0.0f, c.data(), n);
    }
  };
  const double median = MedianSecondsPerRepetition(gemm, samples);
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / median /
         1e9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s fp64|fp32 M N K [SAMPLES]\n", argv[0]);
    return 2;
  }
  const std::string precision = argv[1];
  const long m = std::atol(argv[2]), n = std::atol(argv[3]), k = std::atol(argv[4]);
  const int samples = argc > 5 ? std::atoi(argv[5]) : 10;
  if (m < 1 || n < 1 || k < 1 || samples < 1 || (precision != "fp64" && precision != "fp32")) {
    std::fprintf(stderr, "%s: bad arguments\n", argv[0]);
    return 2;
  }
  const double gflops = precision == "fp64" ? MedianGflops<double>(m, n, k, samples)
                                            : MedianGflops<float>(m, n, k, samples);
  std::printf("openblas direct %s m=%ld n=%ld k=%ld: %.2f GFLOP/s (median of %d)\n",
              precision.c_str(), m, n, k, gflops, samples);
  return 0;
}
