#include "flash_attention.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace xpuperf::bench {
namespace {

// The register tile of both matrix products: 4 rows x 16 columns of C stay in 8 vector registers
// (AVX2) while the shared dimension runs; per step, 2 loads of B and 4 broadcasts of A feed 8
// packed FMAs.
constexpr int kTileRows = 4;
constexpr int kTileCols = 16;

// c[4][16] (row stride ldc) += A x b[0..n)[16] (row stride ldb), where row r of A is
// a[r * a_row + p * a_step] for p in [0, n).
[[gnu::always_inline]] inline void TileMultiplyAdd(int64_t n, const float* __restrict a,
                                                   int64_t a_row, int64_t a_step,
                                                   const float* __restrict b, int64_t ldb,
                                                   float* __restrict c, int64_t ldc) {
  float tile[kTileRows][kTileCols] = {};
  for (int64_t p = 0; p < n; ++p) {
    const float* b_row = b + p * ldb;
#pragma GCC unroll 4
    for (int r = 0; r < kTileRows; ++r) {
      const float a_rp = a[r * a_row + p * a_step];
#pragma omp simd
      for (int j = 0; j < kTileCols; ++j) tile[r][j] += a_rp * b_row[j];
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < kTileRows; ++r) {
#pragma omp simd
    for (int j = 0; j < kTileCols; ++j) c[r * ldc + j] += tile[r][j];
  }
}

// e^x for x <= 0 (Cephes expf: x = n ln2 + r, |r| <= ln2/2, degree-6 polynomial, 2^n from the
// exponent bits), relative error about 2e-7. Written without library calls or branches so that
// loops over it vectorise. Arguments below -87 (and -inf) are clamped to -87 (e^-87 ~ 1.6e-38);
// callers zero masked entries themselves.
[[gnu::always_inline]] inline float ExpNonPositive(float x) {
  // The clamp compares bit patterns, as integers: for x <= 0 a larger pattern is a more negative
  // number, and unlike a float comparison (which may trap on NaN) it is if-converted and
  // vectorised.
  const uint32_t x_bits = std::bit_cast<uint32_t>(x);
  const uint32_t floor_bits = 0xc2ae0000u;  // -87.0f
  x = std::bit_cast<float>(x_bits < floor_bits ? x_bits : floor_bits);
  const float t = x * 1.44269504088896341f;
  const float n = (t + 12582912.0f) - 12582912.0f;  // round to nearest: 1.5 x 2^23
  const float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
  float y = 1.9875691500e-4f;
  y = y * r + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  y = y * (r * r) + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  return y * std::bit_cast<float>(bits);
}

// One query block of one (batch, head). Scores are kept transposed, S^T[key][query]: the query
// block is transposed once (Q^T, pre-scaled by 1/sqrt(d)) and every key block is then used in
// place, K rows being the rows of S^T = K Q^T; the softmax runs over keys for 64 queries at a
// time, i.e. along the vector lanes.
[[gnu::always_inline]] inline void FlashBlock(const AttentionShape& shape, const float* q,
                                              const float* k, const float* v, float* o,
                                              int64_t batch_head, int64_t block,
                                              FlashScratch& scratch) {
  constexpr int64_t kBq = kFlashBlockQ;
  constexpr int64_t kBk = kFlashBlockK;
  const int64_t seq = shape.seq_len;
  const int64_t dim = shape.head_dim;
  const int64_t padded = scratch.padded_dim;
  const int64_t q0 = block * kBq;
  const int64_t rows = std::min(kBq, seq - q0);
  const float* q_head = q + batch_head * seq * dim;
  const float* k_head = k + batch_head * seq * dim;
  const float* v_head = v + batch_head * seq * dim;
  float* o_head = o + batch_head * seq * dim;
  float* __restrict qt = scratch.qt.data();
  float* __restrict st = scratch.st.data();
  float* __restrict acc = scratch.acc.data();
  float* __restrict row_max = scratch.row_max.data();
  float* __restrict row_sum = scratch.row_sum.data();
  float* __restrict block_max = scratch.block_max.data();
  float* __restrict rescale = scratch.rescale.data();
  float* __restrict block_sum = scratch.block_sum.data();

  // Q^T for the block, pre-multiplied by 1/sqrt(d); columns past the last query are zero.
  const float scale = 1.0f / std::sqrt(static_cast<float>(dim));
  std::fill(qt, qt + dim * kBq, 0.0f);
  for (int64_t i = 0; i < rows; ++i) {
    const float* from = q_head + (q0 + i) * dim;
    for (int64_t d = 0; d < dim; ++d) qt[d * kBq + i] = from[d] * scale;
  }
  std::fill(acc, acc + kBq * padded, 0.0f);
  std::fill(row_max, row_max + kBq, -std::numeric_limits<float>::infinity());
  std::fill(row_sum, row_sum + kBq, 0.0f);

  // Causal: keys past the block's last query are masked for every query of it, so they are not
  // visited. Every visited key block starts at or before q0, so each query sees key k0 at least.
  const int64_t key_end = shape.causal ? q0 + rows : seq;
  for (int64_t k0 = 0; k0 < key_end; k0 += kBk) {
    const int64_t keys = std::min(kBk, key_end - k0);
    const int64_t key_rows = (keys + kTileRows - 1) / kTileRows * kTileRows;
    // K and V rows are used in place, except where a tile would read past the tensor (K) or a
    // row is not a multiple of 16 wide (V): those go through zero-padded copies.
    const float* k_block = k_head + k0 * dim;
    if (batch_head * seq + k0 + key_rows > shape.batch * shape.heads * seq) {
      float* padded_k = scratch.k.data();
      std::fill(padded_k, padded_k + key_rows * dim, 0.0f);
      std::memcpy(padded_k, k_block, static_cast<size_t>(keys * dim) * sizeof(float));
      k_block = padded_k;
    }
    const float* v_block = v_head + k0 * dim;
    if (padded != dim) {
      float* padded_v = scratch.v.data();
      for (int64_t j = 0; j < keys; ++j) {
        std::memcpy(padded_v + j * padded, v_block + j * dim, static_cast<size_t>(dim) * 4);
        std::fill(padded_v + j * padded + dim, padded_v + (j + 1) * padded, 0.0f);
      }
      v_block = padded_v;
    }

    // S^T = K Q^T / sqrt(d) for the block.
    std::fill(st, st + key_rows * kBq, 0.0f);
    for (int64_t j0 = 0; j0 < keys; j0 += kTileRows) {
      for (int64_t c0 = 0; c0 < rows; c0 += kTileCols) {
        TileMultiplyAdd(dim, k_block + j0 * dim, dim, 1, qt + c0, kBq, st + j0 * kBq + c0, kBq);
      }
    }

    // Online softmax, all queries of the block at once: the block's maximum per query (masked
    // keys excluded), the new running maximum, P = e^(S - max) with masked entries 0, and the
    // factor e^(old max - new max) for the running sum and the accumulator. `visible` is 1 or
    // 0; multiplying by it (rather than branching) keeps the loops vectorisable, and zeroing the
    // argument keeps masked entries finite.
    std::fill(block_max, block_max + kBq, -std::numeric_limits<float>::infinity());
    for (int64_t j = 0; j < keys; ++j) {
      const float* s_row = st + j * kBq;
      const int64_t first_visible = shape.causal ? k0 + j - q0 : 0;  // queries i >= this see j
#pragma omp simd
      for (int64_t i = 0; i < kBq; ++i) {
        const float score = i >= first_visible ? s_row[i] : -std::numeric_limits<float>::infinity();
        block_max[i] = score > block_max[i] ? score : block_max[i];
      }
    }
#pragma omp simd
    for (int64_t i = 0; i < kBq; ++i) {
      const float new_max = block_max[i] > row_max[i] ? block_max[i] : row_max[i];
      rescale[i] = ExpNonPositive(row_max[i] - new_max);
      row_max[i] = new_max;
      block_sum[i] = 0.0f;
    }
    for (int64_t j = 0; j < keys; ++j) {
      float* s_row = st + j * kBq;
      const int64_t first_visible = shape.causal ? k0 + j - q0 : 0;
#pragma omp simd
      for (int64_t i = 0; i < kBq; ++i) {
        const float visible = i >= first_visible ? 1.0f : 0.0f;
        const float p = ExpNonPositive((s_row[i] - row_max[i]) * visible) * visible;
        s_row[i] = p;
        block_sum[i] += p;
      }
    }
    for (int64_t i = 0; i < rows; ++i) {
      row_sum[i] = row_sum[i] * rescale[i] + block_sum[i];
      float* acc_row = acc + i * padded;
      const float factor = rescale[i];
#pragma omp simd
      for (int64_t d = 0; d < padded; ++d) acc_row[d] *= factor;
    }

    // acc += P V, P read from S^T (row i of P is column i of S^T).
    for (int64_t i0 = 0; i0 < rows; i0 += kTileRows) {
      for (int64_t d0 = 0; d0 < padded; d0 += kTileCols) {
        TileMultiplyAdd(keys, st + i0, 1, kBq, v_block + d0, padded, acc + i0 * padded + d0,
                        padded);
      }
    }
  }

  for (int64_t i = 0; i < rows; ++i) {
    const float inverse = 1.0f / row_sum[i];
    float* out = o_head + (q0 + i) * dim;
#pragma omp simd
    for (int64_t d = 0; d < dim; ++d) out[d] = acc[i * padded + d] * inverse;
  }
}

}  // namespace

FlashScratch::FlashScratch(int64_t head_dim)
    : padded_dim((head_dim + kTileCols - 1) / kTileCols * kTileCols),
      qt(static_cast<size_t>(head_dim * kFlashBlockQ)),
      k(static_cast<size_t>(kFlashBlockK * head_dim)),
      v(static_cast<size_t>(kFlashBlockK * padded_dim)),
      st(static_cast<size_t>(kFlashBlockK * kFlashBlockQ)),
      acc(static_cast<size_t>(kFlashBlockQ * padded_dim)),
      row_max(kFlashBlockQ),
      row_sum(kFlashBlockQ),
      block_max(kFlashBlockQ),
      rescale(kFlashBlockQ),
      block_sum(kFlashBlockQ) {}

__attribute__((target("avx2,fma"))) void FlashAttentionBlockAvx2(const AttentionShape& shape,
                                                                 const float* q, const float* k,
                                                                 const float* v, float* o,
                                                                 int64_t batch_head, int64_t block,
                                                                 FlashScratch& scratch) {
  FlashBlock(shape, q, k, v, o, batch_head, block, scratch);
}

void FlashAttentionBlockPortable(const AttentionShape& shape, const float* q, const float* k,
                                 const float* v, float* o, int64_t batch_head, int64_t block,
                                 FlashScratch& scratch) {
  FlashBlock(shape, q, k, v, o, batch_head, block, scratch);
}

void FlashAttentionForward(const AttentionShape& shape, const float* q, const float* k,
                           const float* v, float* o, int threads, bool use_avx2) {
  const int team = threads > 0 ? threads : omp_get_max_threads();
  const bool avx2 =
      use_avx2 && __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("fma") != 0;
  const int64_t blocks = (shape.seq_len + kFlashBlockQ - 1) / kFlashBlockQ;
  const int64_t tasks = shape.batch * shape.heads * blocks;
#pragma omp parallel num_threads(team)
  {
    FlashScratch scratch(shape.head_dim);
    // Dynamic: causal query blocks differ in cost; the costly (late) blocks are handed out first.
#pragma omp for schedule(dynamic, 1)
    for (int64_t task = 0; task < tasks; ++task) {
      const int64_t batch_head = task / blocks;
      const int64_t block = blocks - 1 - task % blocks;
      if (avx2) {
        FlashAttentionBlockAvx2(shape, q, k, v, o, batch_head, block, scratch);
      } else {
        FlashAttentionBlockPortable(shape, q, k, v, o, batch_head, block, scratch);
      }
    }
  }
}

Status CheckAttentionShape(const AttentionShape& shape) {
  const int64_t max_elements = int64_t{1} << 28;
  const bool positive =
      shape.batch > 0 && shape.heads > 0 && shape.seq_len > 0 && shape.head_dim > 0;
  if (!positive || shape.head_dim > kMaxAttentionHeadDim || shape.batch > max_elements ||
      shape.heads > max_elements || shape.seq_len > max_elements ||
      shape.batch * shape.heads > max_elements / shape.seq_len ||
      shape.batch * shape.heads * shape.seq_len > max_elements / shape.head_dim) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("attention: batch, heads, seq_len and head_dim must be positive, "
                    "head_dim at most {} and each tensor at most 2^28 elements (got "
                    "batch={} heads={} seq_len={} head_dim={})",
                    kMaxAttentionHeadDim, shape.batch, shape.heads, shape.seq_len, shape.head_dim));
  }
  return Status::Ok();
}

double AttentionFlops(const AttentionShape& shape) {
  const double s = static_cast<double>(shape.seq_len);
  const double per_head_dim = shape.causal ? 4 * s * s - 2 * s * s : 4 * s * s;
  return per_head_dim * static_cast<double>(shape.heads) * static_cast<double>(shape.head_dim) *
         static_cast<double>(shape.batch);
}

std::string AttentionFlopsFormula(const AttentionShape& shape) {
  const int64_t s = shape.seq_len;
  return shape.causal
             ? fmt::format(
                   "FLOP = (4 s_q s_kv - 2 s_q^2) heads head_dim batch = (4 x {} x {} - "
                   "2 x {}^2) x {} x {} x {} = {:.6g} (causal)",
                   s, s, s, shape.heads, shape.head_dim, shape.batch, AttentionFlops(shape))
             : fmt::format(
                   "FLOP = 4 s_q s_kv heads head_dim batch = 4 x {} x {} x {} x {} x {} "
                   "= {:.6g}",
                   s, s, shape.heads, shape.head_dim, shape.batch, AttentionFlops(shape));
}

void NaiveAttentionRow(const AttentionShape& shape, const float* q, const float* k, const float* v,
                       int64_t batch, int64_t head, int64_t row, double* out) {
  const int64_t seq = shape.seq_len;
  const int64_t dim = shape.head_dim;
  const int64_t base = (batch * shape.heads + head) * seq * dim;
  const float* q_row = q + base + row * dim;
  const int64_t keys = shape.causal ? row + 1 : seq;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  std::vector<double> score(static_cast<size_t>(keys));
  double max_score = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < keys; ++j) {
    double dot = 0;
    for (int64_t d = 0; d < dim; ++d) dot += double{q_row[d]} * k[base + j * dim + d];
    score[j] = dot * scale;
    max_score = std::max(max_score, score[j]);
  }
  double sum = 0;
  for (double& x : score) {
    x = std::exp(x - max_score);
    sum += x;
  }
  for (int64_t d = 0; d < dim; ++d) out[d] = 0;
  for (int64_t j = 0; j < keys; ++j) {
    const double p = score[j] / sum;
    for (int64_t d = 0; d < dim; ++d) out[d] += p * v[base + j * dim + d];
  }
}

std::vector<int64_t> VerifiedQueryRows(int64_t seq_len, int64_t rows_per_head) {
  std::vector<int64_t> rows;
  if (rows_per_head >= seq_len || rows_per_head < 2) {
    rows.reserve(static_cast<size_t>(std::max<int64_t>(seq_len, 0)));
    for (int64_t r = 0; r < seq_len; ++r) rows.push_back(r);
  } else {
    rows.reserve(static_cast<size_t>(rows_per_head));
    for (int64_t i = 0; i < rows_per_head; ++i) {
      rows.push_back(i * (seq_len - 1) / (rows_per_head - 1));
    }
  }
  return rows;
}

Status VerifyAttention(const AttentionShape& shape, const float* q, const float* k, const float* v,
                       const float* o, int64_t rows_per_head) {
  // Tolerance. Each output is a convex combination of V's entries, so |o| <= max|v|. The fp32
  // kernel differs from the double reference by (1) rounding in the q.k dot products (at most
  // head_dim x 2^-24 relative, ~1.5e-5 for d = 256, typically sqrt(d) x 2^-24), which exp turns
  // into relative errors of the weights, (2) the polynomial exp (~2e-7 relative) and (3) fp32
  // sums of up to seq_len weights and weighted values (relative ~sqrt(n) x 2^-24, ~4e-6 for
  // n = 4096). Measured with inputs uniform in [-1, 1): at most 8e-8 x max|v| absolute on shapes
  // up to s = 4096, d = 256. 2e-5 x max|v| + 1e-4 x |ref| leaves a margin of over 100 for other
  // data, while a wrong mask, a missed rescale or a dropped block changes outputs by 1e-3 x max|v|
  // or more.
  double max_v = 0;
  for (int64_t i = 0; i < shape.elements(); ++i) max_v = std::max(max_v, double{std::fabs(v[i])});
  const double absolute = 2e-5 * max_v;
  const double relative = 1e-4;
  const int64_t seq = shape.seq_len;
  const int64_t dim = shape.head_dim;
  const std::vector<int64_t> rows = VerifiedQueryRows(seq, rows_per_head);
  std::vector<double> expected(static_cast<size_t>(dim));
  for (int64_t b = 0; b < shape.batch; ++b) {
    for (int64_t h = 0; h < shape.heads; ++h) {
      for (int64_t row : rows) {
        NaiveAttentionRow(shape, q, k, v, b, h, row, expected.data());
        const float* got = o + ((b * shape.heads + h) * seq + row) * dim;
        for (int64_t d = 0; d < dim; ++d) {
          const double error = std::fabs(got[d] - expected[d]);
          if (!(error <= absolute + relative * std::fabs(expected[d]))) {
            return MakeError(
                ErrorCode::kInternal,
                fmt::format("attention verification failed: O[batch {}][head {}][row {}][{}] = "
                            "{:.9g}, reference {:.9g} (error {:.3g} > {:.3g} + {:.3g} x |ref|)",
                            b, h, row, d, got[d], expected[d], error, absolute, relative));
          }
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace xpuperf::bench
