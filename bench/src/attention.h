// Attention forward on the CPU in fp32: a flash-attention kernel (tiled over query and key blocks,
// online softmax) and the naive reference it is verified against.
//
// Tensors are row-major [batch][heads][seq_len][head_dim]; O = softmax(Q K^T / sqrt(head_dim)) V,
// where causal attention lets query i see keys 0..i only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xpuperf/bench/benchmark.h"
#include "xpuperf/bench/isa.h"
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

// The query rows the verifiers check in each (batch, head): all of them when rows_per_head >=
// seq_len (or < 2); otherwise the first, the last and evenly spaced ones in between.
std::vector<int64_t> VerifiedQueryRows(int64_t seq_len, int64_t rows_per_head);

// Compares o with the reference for the given rows of every (batch, head) (all rows when
// rows_per_head >= seq_len; otherwise the first, the last and evenly spaced ones in between).
// kInternal naming the first element outside the tolerance.
Status VerifyAttention(const AttentionShape& shape, const float* q, const float* k, const float* v,
                       const float* o, int64_t rows_per_head);

// bf16 attention: Q, K, V bf16 (uint16_t bit patterns), O fp32; both products with vdpbf16ps
// (bf16 pairs into fp32), the softmax in fp32, P rounded to bf16 for the P V product.
enum class Bf16AttentionKernel {
  kAvx512Bf16,  // vdpbf16ps zmm: needs avx512f and avx512_bf16 (Bf16AttentionSupport)
  kEmulated,    // the same code with vdpbf16ps emulated by its scalar model: tests only
};
// Ok where the AVX512_BF16 kernel can run; kUnsupported naming what the CPU lacks otherwise.
Status Bf16AttentionSupport(const IsaFeatures& features);
void FlashAttentionBf16Forward(const AttentionShape& shape, const uint16_t* q, const uint16_t* k,
                               const uint16_t* v, float* o, int threads,
                               Bf16AttentionKernel kernel);
// The largest |O - reference| VerifyAttentionBf16 accepts for one output element, where
// weighted_abs = sum_j w_j |V[j][d]| (w the exact softmax weights) and max_abs_dot = the largest
// sum_d |q_d k_jd| over the row's keys. A bound, not an estimate (docs/BENCHMARKS.md derives it):
// weighted_abs x (2^-8 (P rounded to bf16) + 2 s 2^-24 (fp32 sums over s keys) + 2 x the score
// error d 2^-24 max_abs_dot / sqrt(d) + 1e-6 (1 + s / 64) (exp polynomial and rescales)).
double Bf16AttentionTolerance(const AttentionShape& shape, double weighted_abs, double max_abs_dot);
// As VerifyAttention for the bf16 kernel: the reference in double from the bf16 values.
Status VerifyAttentionBf16(const AttentionShape& shape, const uint16_t* q, const uint16_t* k,
                           const uint16_t* v, const float* o, int64_t rows_per_head);

// The benchmark "attention" (component attention) running FlashAttentionForward. Sweep point:
// {batch, heads, seq_len, head_dim, causal, precision: fp32|bf16}; reports <precision>_flops in
// GFLOP/s and, when a gemm measurement of the same precision ran earlier in the same run
// (RunContext::earlier), <precision>_percent_of_gemm: 100 x attention / the best of them (also the
// parameter fraction_of_<precision>_gemm). bf16 runs only where Bf16AttentionSupport is ok.
std::unique_ptr<Benchmark> MakeAttentionBenchmark();

// The best GEMM rate (GFLOP/s) among `measurements` with benchmark "gemm" and the given metric
// ("fp32_flops", "bf16_flops"), with the measurement it came from; nullopt when there is none.
std::optional<std::pair<double, const Measurement*>> BestGemmRate(
    const std::vector<Measurement>& measurements, std::string_view metric);

}  // namespace xpuperf::bench
