// What the bf16 flash-attention block kernels (flash_attention_bf16_kernel.h) share with their
// driver: the shape and the per-thread working memory. Plain data only: included by files compiled
// with AVX-512 flags, it must define no function the linker could merge with another file's.
#pragma once

#include <cstdint>

namespace xpuperf::bench {

// Query and key block sizes: 64 queries are the 4 vectors of a register tile's row.
inline constexpr int64_t kBf16BlockQ = 64;
inline constexpr int64_t kBf16BlockK = 64;

// One (batch, head) slice of the [batch][heads][seq_len][head_dim] tensors.
struct Bf16BlockShape {
  int64_t seq_len = 1;
  int64_t head_dim = 1;
  bool causal = false;
};

// Per-thread working memory for one query block (the driver owns the storage):
//   qp  [dim_pairs][64]          Q block transposed, bf16 pairs along head_dim
//   kp  [64][dim_pairs]          K block, bf16 pairs along head_dim
//   vp  [32][padded_dim]         V block, bf16 pairs along keys
//   st  [64 keys][64 queries]    S^T, then the fp32 softmax weights P^T
//   pp  [64 queries][32]         P in bf16 pairs along keys
//   acc [64][padded_dim]         the fp32 output accumulator
//   row_max, row_sum, block_max, rescale, block_sum [64]: per query
struct Bf16Scratch {
  int64_t dim_pairs = 0;   // ceil(head_dim / 2)
  int64_t padded_dim = 0;  // head_dim rounded up to 16
  float scale = 1.0f;      // 1 / sqrt(head_dim)
  uint32_t* qp = nullptr;
  uint32_t* kp = nullptr;
  uint32_t* vp = nullptr;
  float* st = nullptr;
  uint32_t* pp = nullptr;
  float* acc = nullptr;
  float* row_max = nullptr;
  float* row_sum = nullptr;
  float* block_max = nullptr;
  float* rescale = nullptr;
  float* block_sum = nullptr;
};

// Rows [block * 64, ...) of O for one (batch, head) of bf16 Q, K, V (row-major, head_dim per row);
// o is fp32. The AVX-512 one needs avx512f and avx512_bf16 (the caller checks CPUID).
void FlashBf16BlockAvx512(const Bf16BlockShape& shape, const uint16_t* q, const uint16_t* k,
                          const uint16_t* v, float* o, int64_t batch_head, int64_t block,
                          const Bf16Scratch& scratch);
void FlashBf16BlockEmulated(const Bf16BlockShape& shape, const uint16_t* q, const uint16_t* k,
                            const uint16_t* v, float* o, int64_t batch_head, int64_t block,
                            const Bf16Scratch& scratch);

}  // namespace xpuperf::bench
