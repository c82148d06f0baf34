// The pieces of the flash-attention forward (xpuperf/bench/attention.h): one query block of one
// (batch, head) at a time, compiled twice from the same source, for AVX2+FMA and for the baseline
// ISA.
#pragma once

#include <cstdint>
#include <vector>

#include "attention.h"

namespace xpuperf::bench {

// Query and key block sizes. Multiples of the register tile (4 rows x 16 columns).
inline constexpr int64_t kFlashBlockQ = 64;
inline constexpr int64_t kFlashBlockK = 64;

// Per-thread working memory for one query block: the transposed, scaled query block, zero-padded
// copies of a key and a value block (used only where the tensors cannot be read in place), the
// transposed score/probability tile S^T[key][query], the output accumulator and, per query, the
// running softmax maximum and sum and their per-block counterparts.
struct FlashScratch {
  explicit FlashScratch(int64_t head_dim);
  int64_t padded_dim;  // head_dim rounded up to 16
  std::vector<float> qt, k, v, st, acc, row_max, row_sum, block_max, rescale, block_sum;
};

// Computes rows [block * kFlashBlockQ, ...) of O for one (batch, head).
void FlashAttentionBlockAvx2(const AttentionShape& shape, const float* q, const float* k,
                             const float* v, float* o, int64_t batch_head, int64_t block,
                             FlashScratch& scratch);
void FlashAttentionBlockPortable(const AttentionShape& shape, const float* q, const float* k,
                                 const float* v, float* o, int64_t batch_head, int64_t block,
                                 FlashScratch& scratch);

}  // namespace xpuperf::bench
