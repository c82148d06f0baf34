// Attention forward on the CPU in fp32: a flash-attention kernel (tiled over query and key blocks,
// online softmax) and the naive reference it is verified against.
//
// Tensors are row-major [batch][heads][seq_len][head_dim]; O = softmax(Q K^T / sqrt(head_dim)) V,
// where causal attention lets query i see keys 0..i only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "xpuperf/bench/benchmark.h"
#include "xpuperf/core/status.h"

namespace xpuperf::bench {

struct AttentionShape {
  int64_t batch = 1;
  int64_t heads = 1;
  int64_t seq_len = 1;  // queries and keys alike (self-attention)
  int64_t head_dim = 1;
  bool causal = false;
  int64_t elements() const { return batch * heads * seq_len * head_dim; }  // per tensor
};

// kInvalidArgument unless every dimension is positive, head_dim <= kMaxAttentionHeadDim and each
// tensor has at most 2^28 elements.
inline constexpr int64_t kMaxAttentionHeadDim = 256;
Status CheckAttentionShape(const AttentionShape& shape);

// Forward FLOPs by the usual formula (two matmuls of 2 s^2 d each, softmax not counted):
// non-causal 4 s_q s_kv h d b; causal (4 s_q s_kv - 2 s_q^2) h d b (about half).
double AttentionFlops(const AttentionShape& shape);
// The formula with this shape's numbers, for Measurement::formula.
std::string AttentionFlopsFormula(const AttentionShape& shape);

// The flash-attention forward on `threads` OpenMP threads (0 = the current team size), split over
// (batch, head, query block). Uses AVX2+FMA when the CPU has them (use_avx2 = false forces the
// portable build of the same code, for tests). The shape must pass CheckAttentionShape.
void FlashAttentionForward(const AttentionShape& shape, const float* q, const float* k,
                           const float* v, float* o, int threads, bool use_avx2 = true);

// The reference for one query row: the full score row in double, a standard softmax (subtract
// the maximum, exponentiate, divide by the sum), then the weighted sum of V. out has head_dim
// entries.
void NaiveAttentionRow(const AttentionShape& shape, const float* q, const float* k, const float* v,
                       int64_t batch, int64_t head, int64_t row, double* out);

// Compares o with the reference for the given rows of every (batch, head) (all rows when
// rows_per_head >= seq_len; otherwise the first, the last and evenly spaced ones in between).
// kInternal naming the first element outside the tolerance.
Status VerifyAttention(const AttentionShape& shape, const float* q, const float* k, const float* v,
                       const float* o, int64_t rows_per_head);

// The benchmark "attention" (component attention) running FlashAttentionForward. Sweep point:
// {batch, heads, seq_len, head_dim, causal}; reports fp32_flops in GFLOP/s and, when a gemm
// fp32_flops measurement ran earlier in the same run (RunContext::earlier), fp32_percent_of_gemm:
// 100 x attention / the best of them (also the parameter fraction_of_fp32_gemm).
std::unique_ptr<Benchmark> MakeAttentionBenchmark();

}  // namespace xpuperf::bench
