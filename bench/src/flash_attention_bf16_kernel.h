// The bf16 flash-attention forward for one query block, over a lane-traits type, so that the
// AVX512_BF16 build (vdpbf16ps) and the emulated build (the scalar model of vdpbf16ps in
// peak_models.h, run by the tests on any CPU) are the same code. Included only by
// flash_attention_bf16_avx512.cpp (compiled with -mavx512f -mavx512bf16) and
// flash_attention_bf16_emulated.cpp: everything here has internal linkage and calls no inline
// library template, so no function built with AVX-512 enabled can be picked by the linker for code
// that runs on a CPU without it.
//
// Q, K and V are bf16, the products bf16 pairs into fp32 (vdpbf16ps), the scores, the softmax, the
// running maximum and sum and the output accumulator fp32. P is rounded to bf16 for the second
// product, as bf16 attention kernels do; the softmax sum adds the unrounded fp32 weights.
//
// A traits type T provides (16 fp32 lanes per vector):
//   Vec, Pairs            an fp32 accumulator vector; a vector of 16 bf16 pairs
//   Zero()                an accumulator of zeros
//   Load(const uint32_t*) 16 pairs from memory; Broadcast(uint32_t): one pair in every lane
//   Dot(acc, a, b)        acc + a.bf16[2i] b.bf16[2i] + a.bf16[2i+1] b.bf16[2i+1] per lane
//   AddStore(float*, v)   c[0..16) += v
#pragma once

#include <cstddef>
#include <cstdint>

#include "flash_attention_bf16_scratch.h"

namespace xpuperf::bench {
namespace {

constexpr int kBf16TileRows = 4;  // rows of the register tile; its columns are 1-4 vectors of 16

// c[r][0..16 kVecs) (row stride ldc) += sum over p < pairs of a[r a_row + p] . b[p ldb ...], the
// dot of bf16 pairs: a's pair broadcast, b's 16 pairs per vector. 4 x kVecs accumulators stay in
// registers (16 for kVecs = 4: enough independent chains to hide vdpbf16ps's latency).
template <class T, int kVecs>
[[gnu::always_inline]] inline void DotTile(int64_t pairs, const uint32_t* __restrict a,
                                           int64_t a_row, const uint32_t* __restrict b, int64_t ldb,
                                           float* __restrict c, int64_t ldc) {
  typename T::Vec acc[kBf16TileRows][kVecs];
#pragma GCC unroll 4
  for (int r = 0; r < kBf16TileRows; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) acc[r][v] = T::Zero();
  }
  for (int64_t p = 0; p < pairs; ++p) {
    typename T::Pairs column[kVecs];
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v)
      column[v] = T::Load(b + p * ldb + 16 * static_cast<std::ptrdiff_t>(v));
#pragma GCC unroll 4
    for (int r = 0; r < kBf16TileRows; ++r) {
      const typename T::Pairs row = T::Broadcast(a[r * a_row + p]);
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) acc[r][v] = T::Dot(acc[r][v], row, column[v]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < kBf16TileRows; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v)
      T::AddStore(c + r * ldc + 16 * static_cast<std::ptrdiff_t>(v), acc[r][v]);
  }
}

// As DotTile over `width` columns (a multiple of 16), in tiles of up to 64.
template <class T>
[[gnu::always_inline]] inline void DotRows(int64_t width, int64_t pairs, const uint32_t* a,
                                           int64_t a_row, const uint32_t* b, int64_t ldb, float* c,
                                           int64_t ldc) {
  int64_t c0 = 0;
  for (; c0 + 64 <= width; c0 += 64) DotTile<T, 4>(pairs, a, a_row, b + c0, ldb, c + c0, ldc);
  switch ((width - c0) / 16) {
    case 3:
      DotTile<T, 3>(pairs, a, a_row, b + c0, ldb, c + c0, ldc);
      break;
    case 2:
      DotTile<T, 2>(pairs, a, a_row, b + c0, ldb, c + c0, ldc);
      break;
    case 1:
      DotTile<T, 1>(pairs, a, a_row, b + c0, ldb, c + c0, ldc);
      break;
    default:
      break;
  }
}

inline uint32_t Bits(float x) { return __builtin_bit_cast(uint32_t, x); }
inline float FromBits(uint32_t x) { return __builtin_bit_cast(float, x); }
inline int64_t Smaller(int64_t a, int64_t b) { return a < b ? a : b; }

// fp32 -> bf16 to nearest even, for the finite non-negative softmax weights (no NaN case).
inline uint32_t RoundToBf16(float x) {
  const uint32_t bits = Bits(x);
  return (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
}

// Two bf16 values of a row-major tensor as a pair (element `index` low, `index + 1` high); zero
// past `count` elements.
inline uint32_t PairAt(const uint16_t* row, int64_t index, int64_t count) {
  const uint32_t low = index < count ? row[index] : 0u;
  const uint32_t high = index + 1 < count ? row[index + 1] : 0u;
  return low | (high << 16);
}

// e^x for x <= 0, as flash_attention.cpp's (Cephes expf, relative error about 2e-7; arguments
// below -87 clamped), branch-free so that the softmax loops vectorise.
inline float Exp(float x) {
  const uint32_t floor_bits = 0xc2ae0000u;  // -87.0f; for x <= 0 larger patterns are smaller
  x = FromBits(Bits(x) < floor_bits ? Bits(x) : floor_bits);
  const float t = x * 1.44269504088896341f;
  const float n = (t + 12582912.0f) - 12582912.0f;
  const float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
  float y = 1.9875691500e-4f;
  y = y * r + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  y = y * (r * r) + r + 1.0f;
  return y * FromBits(static_cast<uint32_t>((static_cast<int32_t>(n) + 127) << 23));
}

// Rows [block * kBf16BlockQ, ...) of O for one (batch, head); see Bf16Scratch for the layouts.
template <class T>
void FlashBlockBf16(const Bf16BlockShape& shape, const uint16_t* q, const uint16_t* k,
                    const uint16_t* v, float* o, int64_t batch_head, int64_t block,
                    const Bf16Scratch& s) {
  constexpr int64_t kBq = kBf16BlockQ;
  constexpr int64_t kBk = kBf16BlockK;
  const int64_t seq = shape.seq_len;
  const int64_t dim = shape.head_dim;
  const int64_t dim_pairs = s.dim_pairs;
  const int64_t width = s.padded_dim;
  const int64_t q0 = block * kBq;
  const int64_t rows = Smaller(kBq, seq - q0);
  const int64_t head = batch_head * seq * dim;
  const float scale = s.scale;
  const float minus_infinity = FromBits(0xff800000u);

  // Q block as pairs along head_dim, transposed: qp[p][i] = (Q[i][2p], Q[i][2p+1]).
  for (int64_t p = 0; p < dim_pairs; ++p) {
    for (int64_t i = 0; i < kBq; ++i) {
      s.qp[p * kBq + i] = i < rows ? PairAt(q + head + (q0 + i) * dim, 2 * p, dim) : 0u;
    }
  }
  for (int64_t x = 0; x < kBq * width; ++x) s.acc[x] = 0.0f;
  for (int64_t i = 0; i < kBq; ++i) {
    s.row_max[i] = minus_infinity;
    s.row_sum[i] = 0.0f;
  }

  const int64_t key_end = shape.causal ? q0 + rows : seq;
  for (int64_t k0 = 0; k0 < key_end; k0 += kBk) {
    const int64_t keys = Smaller(kBk, key_end - k0);
    const int64_t key_rows = (keys + kBf16TileRows - 1) / kBf16TileRows * kBf16TileRows;
    const int64_t key_pairs = (keys + 1) / 2;
    // K rows as pairs along head_dim (rows past the last key zero), V as pairs along keys:
    // vp[jp][d] = (V[2jp][d], V[2jp+1][d]), columns past head_dim zero.
    for (int64_t j = 0; j < key_rows; ++j) {
      for (int64_t p = 0; p < dim_pairs; ++p) {
        s.kp[j * dim_pairs + p] = j < keys ? PairAt(k + head + (k0 + j) * dim, 2 * p, dim) : 0u;
      }
    }
    for (int64_t jp = 0; jp < key_pairs; ++jp) {
      const uint16_t* even = v + head + (k0 + 2 * jp) * dim;
      const bool has_odd = 2 * jp + 1 < keys;
      for (int64_t d = 0; d < width; ++d) {
        const uint32_t low = d < dim ? even[d] : 0u;
        const uint32_t high = has_odd && d < dim ? even[dim + d] : 0u;
        s.vp[jp * width + d] = low | (high << 16);
      }
    }

    // S^T[j][i] = K[j] . Q[i] (unscaled), 4 keys x 64 queries per tile.
    for (int64_t x = 0; x < key_rows * kBq; ++x) s.st[x] = 0.0f;
    for (int64_t j0 = 0; j0 < keys; j0 += kBf16TileRows) {
      DotTile<T, 4>(dim_pairs, s.kp + j0 * dim_pairs, dim_pairs, s.qp, kBq, s.st + j0 * kBq, kBq);
    }

    // Online softmax over the block, along the query lanes (as the fp32 kernel).
    for (int64_t i = 0; i < kBq; ++i) s.block_max[i] = minus_infinity;
    for (int64_t j = 0; j < keys; ++j) {
      const float* s_row = s.st + j * kBq;
      const int64_t first_visible = shape.causal ? k0 + j - q0 : 0;
      for (int64_t i = 0; i < kBq; ++i) {
        const float score = i >= first_visible ? s_row[i] * scale : minus_infinity;
        s.block_max[i] = score > s.block_max[i] ? score : s.block_max[i];
      }
    }
    for (int64_t i = 0; i < kBq; ++i) {
      const float new_max = s.block_max[i] > s.row_max[i] ? s.block_max[i] : s.row_max[i];
      s.rescale[i] = Exp(s.row_max[i] - new_max);
      s.row_max[i] = new_max;
      s.block_sum[i] = 0.0f;
    }
    for (int64_t j = 0; j < keys; ++j) {
      float* s_row = s.st + j * kBq;
      const int64_t first_visible = shape.causal ? k0 + j - q0 : 0;
      for (int64_t i = 0; i < kBq; ++i) {
        const float visible = i >= first_visible ? 1.0f : 0.0f;
        const float p = Exp((s_row[i] * scale - s.row_max[i]) * visible) * visible;
        s_row[i] = p;
        s.block_sum[i] += p;
      }
    }
    // P in bf16 pairs along keys, per query: pp[i][jp] = (P[i][2jp], P[i][2jp+1]).
    for (int64_t jp = 0; jp < key_pairs; ++jp) {
      const float* even = s.st + 2 * jp * kBq;
      const bool has_odd = 2 * jp + 1 < keys;
      for (int64_t i = 0; i < kBq; ++i) {
        const uint32_t high = has_odd ? RoundToBf16(even[kBq + i]) : 0u;
        s.pp[i * (kBk / 2) + jp] = RoundToBf16(even[i]) | (high << 16);
      }
    }
    for (int64_t i = 0; i < rows; ++i) {
      s.row_sum[i] = s.row_sum[i] * s.rescale[i] + s.block_sum[i];
      float* acc_row = s.acc + i * width;
      const float factor = s.rescale[i];
      for (int64_t d = 0; d < width; ++d) acc_row[d] *= factor;
    }

    // acc += P V, 4 queries x up to 64 head_dim columns per tile.
    for (int64_t i0 = 0; i0 < rows; i0 += kBf16TileRows) {
      DotRows<T>(width, key_pairs, s.pp + i0 * (kBk / 2), kBk / 2, s.vp, width, s.acc + i0 * width,
                 width);
    }
  }

  for (int64_t i = 0; i < rows; ++i) {
    const float inverse = 1.0f / s.row_sum[i];
    float* out = o + head + (q0 + i) * dim;
    for (int64_t d = 0; d < dim; ++d) out[d] = s.acc[i * width + d] * inverse;
  }
}

}  // namespace
}  // namespace xpuperf::bench
