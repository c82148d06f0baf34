// GEMM through OpenBLAS (C = A x B, row-major, alpha 1, beta 0): counts and verification.
#pragma once

#include <cstdint>
#include <span>

#include "xpuperf/bench/fma_kernels.h"
#include "xpuperf/core/status.h"

namespace xpuperf::bench {

struct GemmShape {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
};

// 2 m n k: one multiply and one add per inner-product term; alpha = 1 and beta = 0 add no epilogue.
double GemmFlops(const GemmShape& shape);
// A (m x k) + B (k x n) read, C (m x n) written once; beta = 0, so C is not read. bf16 and int8
// write fp32 and s32 results (4 bytes per element of C).
double GemmBytes(const GemmShape& shape, Precision precision);

// C = A B with cblas_dgemm / cblas_sgemm. Spans hold row-major matrices of the shape's sizes.
void RunGemm(const GemmShape& shape, std::span<const double> a, std::span<const double> b,
             std::span<double> c);
void RunGemm(const GemmShape& shape, std::span<const float> a, std::span<const float> b,
             std::span<float> c);

// Recomputes `samples` entries of C spread over the matrix with a naive inner product in double
// and compares them within a tolerance scaled by sum |a_ik b_kj| (fp32 1e-5, fp64 1e-12).
// kInternal naming the first wrong entry.
template <typename T>
Status VerifyGemmSample(const GemmShape& shape, std::span<const T> a, std::span<const T> b,
                        std::span<const T> c, int samples);

// The same for u8 x s8 -> s32 (oneDNN's int8 matmul): the integer inner product must match exactly.
Status VerifyInt8GemmSample(const GemmShape& shape, std::span<const uint8_t> a,
                            std::span<const int8_t> b, std::span<const int32_t> c, int samples);

// The OpenBLAS build ("OpenBLAS 0.3.21 DYNAMIC_ARCH ... Zen MAX_THREADS=64") and its thread count.
std::string OpenBlasConfig();
int OpenBlasThreads();
void SetOpenBlasThreads(int threads);

}  // namespace xpuperf::bench
