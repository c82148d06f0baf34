#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attention.h"
#include "flash_attention_bf16_scratch.h"
#include "peak_models.h"

namespace xpuperf::bench {
namespace {

// Owns one thread's Bf16Scratch.
class ScratchStorage {
 public:
  explicit ScratchStorage(int64_t head_dim) {
    view_.dim_pairs = (head_dim + 1) / 2;
    view_.padded_dim = (head_dim + 15) / 16 * 16;
    view_.scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    const auto size = [](int64_t n) { return static_cast<size_t>(n); };
    pairs_.resize(size(view_.dim_pairs * kBf16BlockQ + kBf16BlockK * view_.dim_pairs +
                       kBf16BlockK / 2 * view_.padded_dim + kBf16BlockQ * kBf16BlockK / 2));
    floats_.resize(
        size(kBf16BlockK * kBf16BlockQ + kBf16BlockQ * view_.padded_dim + 5 * kBf16BlockQ));
    uint32_t* p = pairs_.data();
    view_.qp = p;
    view_.kp = p += view_.dim_pairs * kBf16BlockQ;
    view_.vp = p += kBf16BlockK * view_.dim_pairs;
    view_.pp = p + kBf16BlockK / 2 * view_.padded_dim;
    float* f = floats_.data();
    view_.st = f;
    view_.acc = f += kBf16BlockK * kBf16BlockQ;
    view_.row_max = f += kBf16BlockQ * view_.padded_dim;
    view_.row_sum = f += kBf16BlockQ;
    view_.block_max = f += kBf16BlockQ;
    view_.rescale = f += kBf16BlockQ;
    view_.block_sum = f + kBf16BlockQ;
  }
  const Bf16Scratch& view() const { return view_; }

 private:
  Bf16Scratch view_;
  std::vector<uint32_t> pairs_;
  std::vector<float> floats_;
};

// The reference for one query row from the bf16 values, in double: the output, sum_j w_j |V[j][d]|
// (w the exact softmax weights) and the largest sum_d |q_d k_jd| over the row's keys.
struct ReferenceRow {
  std::vector<double> out, weighted_abs;
  double max_abs_dot = 0;
};

void Reference(const AttentionShape& shape, const uint16_t* q, const uint16_t* k, const uint16_t* v,
               int64_t batch_head, int64_t row, ReferenceRow& ref) {
  const int64_t seq = shape.seq_len;
  const int64_t dim = shape.head_dim;
  const int64_t base = batch_head * seq * dim;
  const int64_t keys = shape.causal ? row + 1 : seq;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  std::vector<double> score(static_cast<size_t>(keys));
  double max_score = -std::numeric_limits<double>::infinity();
  ref.max_abs_dot = 0;
  for (int64_t j = 0; j < keys; ++j) {
    double dot = 0, abs_dot = 0;
    for (int64_t d = 0; d < dim; ++d) {
      const double product =
          double{FloatFromBf16(q[base + row * dim + d])} * FloatFromBf16(k[base + j * dim + d]);
      dot += product;
      abs_dot += std::fabs(product);
    }
    score[j] = dot * scale;
    max_score = std::max(max_score, score[j]);
    ref.max_abs_dot = std::max(ref.max_abs_dot, abs_dot);
  }
  double sum = 0;
  for (double& x : score) sum += x = std::exp(x - max_score);
  ref.out.assign(static_cast<size_t>(dim), 0.0);
  ref.weighted_abs.assign(static_cast<size_t>(dim), 0.0);
  for (int64_t j = 0; j < keys; ++j) {
    const double w = score[j] / sum;
    for (int64_t d = 0; d < dim; ++d) {
      const double value = FloatFromBf16(v[base + j * dim + d]);
      ref.out[d] += w * value;
      ref.weighted_abs[d] += w * std::fabs(value);
    }
  }
}

}  // namespace

Status Bf16AttentionSupport(const IsaFeatures& features) {
  std::vector<std::string> missing;
  for (IsaExtension needed : {IsaExtension::kAvx512f, IsaExtension::kAvx512Bf16}) {
    if (!features.Has(needed)) missing.emplace_back(IsaExtensionName(needed));
  }
  if (missing.empty()) return Status::Ok();
  return MakeError(ErrorCode::kUnsupported,
                   fmt::format("unsupported: CPU lacks {} (no bf16 attention kernel runs here)",
                               fmt::join(missing, " and ")));
}

void FlashAttentionBf16Forward(const AttentionShape& shape, const uint16_t* q, const uint16_t* k,
                               const uint16_t* v, float* o, int threads,
                               Bf16AttentionKernel kernel) {
  const int team = threads > 0 ? threads : omp_get_max_threads();
  const auto block_kernel =
      kernel == Bf16AttentionKernel::kAvx512Bf16 ? FlashBf16BlockAvx512 : FlashBf16BlockEmulated;
  const Bf16BlockShape slice{shape.seq_len, shape.head_dim, shape.causal};
  const int64_t blocks = (shape.seq_len + kBf16BlockQ - 1) / kBf16BlockQ;
  const int64_t tasks = shape.batch * shape.heads * blocks;
#pragma omp parallel num_threads(team)
  {
    const ScratchStorage scratch(shape.head_dim);
    // Dynamic: causal query blocks differ in cost; the costly (late) blocks are handed out first.
#pragma omp for schedule(dynamic, 1)
    for (int64_t task = 0; task < tasks; ++task) {
      block_kernel(slice, q, k, v, o, task / blocks, blocks - 1 - task % blocks, scratch.view());
    }
  }
}

double Bf16AttentionTolerance(const AttentionShape& shape, double weighted_abs,
                              double max_abs_dot) {
  const double u32 = 0x1p-24;
  const double n = static_cast<double>(shape.seq_len);  // keys a row adds up, at most
  const double scale = 1.0 / std::sqrt(static_cast<double>(shape.head_dim));
  const double score_error = scale * static_cast<double>(shape.head_dim) * u32 * max_abs_dot;
  const double factor =
      0x1p-8 + 2 * n * u32 + 2 * score_error + 1e-6 * (1 + n / static_cast<double>(kBf16BlockK));
  return weighted_abs * factor;
}

Status VerifyAttentionBf16(const AttentionShape& shape, const uint16_t* q, const uint16_t* k,
                           const uint16_t* v, const float* o, int64_t rows_per_head) {
  const int64_t seq = shape.seq_len;
  const int64_t dim = shape.head_dim;
  const std::vector<int64_t> rows = VerifiedQueryRows(seq, rows_per_head);
  ReferenceRow ref;
  for (int64_t bh = 0; bh < shape.batch * shape.heads; ++bh) {
    for (int64_t row : rows) {
      Reference(shape, q, k, v, bh, row, ref);
      const float* got = o + (bh * seq + row) * dim;
      for (int64_t d = 0; d < dim; ++d) {
        const double error = std::fabs(got[d] - ref.out[d]);
        const double tolerance =
            Bf16AttentionTolerance(shape, ref.weighted_abs[d], ref.max_abs_dot);
        if (!(error <= tolerance)) {
          return MakeError(
              ErrorCode::kInternal,
              fmt::format("bf16 attention verification failed: O[batch {}][head {}][row {}][{}] = "
                          "{:.9g}, reference {:.9g} (error {:.3g} > tolerance {:.3g})",
                          bh / shape.heads, bh % shape.heads, row, d, got[d], ref.out[d], error,
                          tolerance));
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace xpuperf::bench
