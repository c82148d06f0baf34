// Attention forward in bf16: a flash-attention kernel (tiles of 64 queries x 64 keys, tensor-core
// products through WMMA, online softmax in fp32) and a plain reference kernel to check it.
#include <cuda_bf16.h>
#include <mma.h>

#include <cmath>

#include "kernels.h"

namespace xpuperf::cuda_bench::kernels {
namespace {

using bf16 = __nv_bfloat16;
namespace wmma = nvcuda::wmma;

constexpr int kBlockM = 64;  // queries per block
constexpr int kBlockN = 64;  // keys per tile
constexpr int kWarps = 4;    // each warp owns 16 query rows
constexpr int kWarpM = 16;
// Row strides of the per-warp shared tiles, padded off multiples of 32 banks so that the lanes
// of a warp reading down a column land in different banks (at most 2-way conflicts). WMMA needs
// them to be multiples of 16 bytes and every tile to start 32-byte aligned, which they keep.
constexpr int kScoreStride = kBlockN + 4;  // floats
constexpr int kProbStride = kBlockN + 8;   // bf16
template <int D>
constexpr int kOutStride = D + 4;  // floats

template <int D>
constexpr size_t FlashSharedBytes() {
  return sizeof(bf16) * (kBlockM * D + 2 * kBlockN * D) +   // Q, K, V tiles
         sizeof(float) * kWarps * kWarpM * kScoreStride +   // scores
         sizeof(bf16) * kWarps * kWarpM * kProbStride +     // probabilities
         sizeof(float) * kWarps * kWarpM * kOutStride<D> +  // output accumulators
         sizeof(float) * kWarps * kWarpM;                   // per-row factors
}

template <int D>
__global__ void __launch_bounds__(kWarps * 32)
    FlashAttention(const bf16* __restrict__ q, const bf16* __restrict__ k,
                   const bf16* __restrict__ v, bf16* __restrict__ o, int64_t seq, bool causal,
                   float scale_log2) {
  constexpr int kOut = kOutStride<D>;
  extern __shared__ __align__(128) unsigned char shared[];
  bf16* s_q = reinterpret_cast<bf16*>(shared);
  bf16* s_k = s_q + kBlockM * D;
  bf16* s_v = s_k + kBlockN * D;
  float* s_scores = reinterpret_cast<float*>(s_v + kBlockN * D);
  bf16* s_p = reinterpret_cast<bf16*>(s_scores + kWarps * kWarpM * kScoreStride);
  float* s_o = reinterpret_cast<float*>(s_p + kWarps * kWarpM * kProbStride);
  float* s_factor = s_o + kWarps * kWarpM * kOut;

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int q_tile = blockIdx.x;
  const int64_t base = static_cast<int64_t>(blockIdx.y) * seq * D;
  const int64_t q0 = static_cast<int64_t>(q_tile) * kBlockM;

  for (int i = threadIdx.x; i < kBlockM * D / 8; i += blockDim.x) {
    reinterpret_cast<uint4*>(s_q)[i] = reinterpret_cast<const uint4*>(q + base + q0 * D)[i];
  }
  for (int i = threadIdx.x; i < kWarps * kWarpM * kOut; i += blockDim.x) s_o[i] = 0.0f;

  float* w_scores = s_scores + warp * kWarpM * kScoreStride;
  bf16* w_p = s_p + warp * kWarpM * kProbStride;
  float* w_o = s_o + warp * kWarpM * kOut;
  float* w_factor = s_factor + warp * kWarpM;
  const bf16* w_q = s_q + warp * kWarpM * D;

  // Each pair of lanes owns one row of the warp's 16: lane / 2 is the row, lane % 2 picks the
  // even or the odd columns of the 64 keys (interleaved, so the two lanes hit different banks).
  const int row = lane / 2;
  const int half = lane % 2;
  const int64_t query = q0 + warp * kWarpM + row;
  float row_max = -INFINITY;
  float row_sum = 0.0f;

  const int64_t tiles = causal ? q_tile + 1 : seq / kBlockN;
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t k0 = t * kBlockN;
    __syncthreads();  // the previous tile's K and V are no longer read
    for (int i = threadIdx.x; i < kBlockN * D / 8; i += blockDim.x) {
      reinterpret_cast<uint4*>(s_k)[i] = reinterpret_cast<const uint4*>(k + base + k0 * D)[i];
      reinterpret_cast<uint4*>(s_v)[i] = reinterpret_cast<const uint4*>(v + base + k0 * D)[i];
    }
    __syncthreads();

    // Scores of the warp's 16 queries against the 64 keys.
    for (int nb = 0; nb < kBlockN / 16; ++nb) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.0f);
#pragma unroll
      for (int kb = 0; kb < D / 16; ++kb) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> b;
        wmma::load_matrix_sync(a, w_q + kb * 16, D);
        wmma::load_matrix_sync(b, s_k + nb * 16 * D + kb * 16, D);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(w_scores + nb * 16, acc, kScoreStride, wmma::mem_row_major);
    }
    __syncwarp();

    // Online softmax in base 2: p = 2^(s log2(e) scale - max).
    float* scores = w_scores + row * kScoreStride + half;
    float tile_max = -INFINITY;
    for (int c = 0; c < kBlockN / 2; ++c) {
      float s = scores[2 * c] * scale_log2;
      if (causal && k0 + 2 * c + half > query) s = -INFINITY;
      scores[2 * c] = s;
      tile_max = fmaxf(tile_max, s);
    }
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    const float new_max = fmaxf(row_max, tile_max);
    float tile_sum = 0.0f;
    bf16* p = w_p + row * kProbStride + half;
    for (int c = 0; c < kBlockN / 2; ++c) {
      const float e = exp2f(scores[2 * c] - new_max);
      tile_sum += e;
      p[2 * c] = __float2bfloat16_rn(e);
    }
    tile_sum += __shfl_xor_sync(0xffffffffu, tile_sum, 1);
    const float factor = exp2f(row_max - new_max);
    row_sum = row_sum * factor + tile_sum;
    row_max = new_max;
    if (half == 0) w_factor[row] = factor;
    __syncwarp();
    for (int i = lane; i < kWarpM * D; i += 32) w_o[(i / D) * kOut + i % D] *= w_factor[i / D];
    __syncwarp();

    // O += P V, the accumulators going through shared memory.
    for (int db = 0; db < D / 16; ++db) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::load_matrix_sync(acc, w_o + db * 16, kOut, wmma::mem_row_major);
#pragma unroll
      for (int kb = 0; kb < kBlockN / 16; ++kb) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> b;
        wmma::load_matrix_sync(a, w_p + kb * 16, kProbStride);
        wmma::load_matrix_sync(b, s_v + kb * 16 * D + db * 16, D);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(w_o + db * 16, acc, kOut, wmma::mem_row_major);
    }
    __syncwarp();
  }

  if (half == 0) w_factor[row] = 1.0f / row_sum;
  __syncwarp();
  for (int i = lane; i < kWarpM * D; i += 32) {
    const int r = i / D;
    const int c = i % D;
    o[base + (q0 + warp * kWarpM + r) * D + c] =
        __float2bfloat16_rn(w_o[r * kOut + c] * w_factor[r]);
  }
}

constexpr int kReferenceThreads = 128;

__global__ void AttentionReference(const bf16* q, const bf16* k, const bf16* v, float* o,
                                   int64_t seq, int d, bool causal, float scale) {
  extern __shared__ float scores[];  // seq entries
  __shared__ float partial[kReferenceThreads];
  const int64_t row = static_cast<int64_t>(blockIdx.y) * seq + blockIdx.x;
  const int64_t first_key = static_cast<int64_t>(blockIdx.y) * seq;
  const int64_t keys = causal ? blockIdx.x + 1 : seq;
  const bf16* qi = q + row * d;

  float local_max = -INFINITY;
  for (int64_t j = threadIdx.x; j < keys; j += blockDim.x) {
    float s = 0.0f;
    for (int c = 0; c < d; ++c) {
      s += __bfloat162float(qi[c]) * __bfloat162float(k[(first_key + j) * d + c]);
    }
    scores[j] = s * scale;
    local_max = fmaxf(local_max, s * scale);
  }
  partial[threadIdx.x] = local_max;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step)
      partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + step]);
    __syncthreads();
  }
  const float max = partial[0];
  __syncthreads();
  float local_sum = 0.0f;
  for (int64_t j = threadIdx.x; j < keys; j += blockDim.x) {
    scores[j] = expf(scores[j] - max);
    local_sum += scores[j];
  }
  partial[threadIdx.x] = local_sum;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) partial[threadIdx.x] += partial[threadIdx.x + step];
    __syncthreads();
  }
  const float sum = partial[0];
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    float acc = 0.0f;
    for (int64_t j = 0; j < keys; ++j)
      acc += scores[j] * __bfloat162float(v[(first_key + j) * d + c]);
    o[row * d + c] = acc / sum;
  }
}

template <int D>
cudaError_t LaunchFlash(const bf16* q, const bf16* k, const bf16* v, bf16* o, int64_t batch_heads,
                        int64_t seq, bool causal, float scale, cudaStream_t stream) {
  constexpr size_t kShared = FlashSharedBytes<D>();
  if (cudaError_t e =
          cudaFuncSetAttribute(FlashAttention<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(kShared));
      e != cudaSuccess) {
    return e;
  }
  const dim3 grid(static_cast<unsigned>(seq / kBlockM), static_cast<unsigned>(batch_heads));
  FlashAttention<D><<<grid, kWarps * 32, kShared, stream>>>(q, k, v, o, seq, causal,
                                                            scale * 1.4426950408889634f);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchFlashAttention(const void* q, const void* k, const void* v, void* o,
                                 int64_t batch_heads, int64_t seq, int head_dim, bool causal,
                                 float scale, cudaStream_t stream) {
  if (seq % kBlockM != 0 || batch_heads < 1 || batch_heads > 65535) return cudaErrorInvalidValue;
  const auto* qb = static_cast<const bf16*>(q);
  const auto* kb = static_cast<const bf16*>(k);
  const auto* vb = static_cast<const bf16*>(v);
  auto* ob = static_cast<bf16*>(o);
  if (head_dim == 64)
    return LaunchFlash<64>(qb, kb, vb, ob, batch_heads, seq, causal, scale, stream);
  if (head_dim == 128) {
    return LaunchFlash<128>(qb, kb, vb, ob, batch_heads, seq, causal, scale, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchAttentionReference(const void* q, const void* k, const void* v, float* o,
                                     int64_t batch_heads, int64_t seq, int head_dim, bool causal,
                                     float scale, cudaStream_t stream) {
  if (batch_heads < 1 || batch_heads > 65535 || seq > 8192) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(seq), static_cast<unsigned>(batch_heads));
  AttentionReference<<<grid, kReferenceThreads, seq * sizeof(float), stream>>>(
      static_cast<const bf16*>(q), static_cast<const bf16*>(k), static_cast<const bf16*>(v), o, seq,
      head_dim, causal, scale);
  return cudaGetLastError();
}

}  // namespace xpuperf::cuda_bench::kernels
