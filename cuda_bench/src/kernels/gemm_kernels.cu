// GEMM inputs (uniform random in every element type) and the check of sampled output entries
// against a double-precision inner product of the same stored inputs.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "kernels.h"
#include "pattern.h"

namespace xpuperf::cuda_bench::kernels {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ double Load(ElementType type, const void* data, size_t i) {
  switch (type) {
    case ElementType::kF64:
      return static_cast<const double*>(data)[i];
    case ElementType::kF32:
      return static_cast<const float*>(data)[i];
    case ElementType::kF16:
      return __half2float(static_cast<const __half*>(data)[i]);
    case ElementType::kBf16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(data)[i]);
    case ElementType::kFp8E4M3:
      return static_cast<float>(static_cast<const __nv_fp8_e4m3*>(data)[i]);
  }
  return 0;
}

__global__ void FillUniform(ElementType type, void* data, size_t n, uint64_t seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float v = PatternUniform(seed, i);
    switch (type) {
      case ElementType::kF64:
        static_cast<double*>(data)[i] = v;
        break;
      case ElementType::kF32:
        static_cast<float*>(data)[i] = v;
        break;
      case ElementType::kF16:
        static_cast<__half*>(data)[i] = __float2half_rn(v);
        break;
      case ElementType::kBf16:
        static_cast<__nv_bfloat16*>(data)[i] = __float2bfloat16_rn(v);
        break;
      case ElementType::kFp8E4M3:
        static_cast<__nv_fp8_e4m3*>(data)[i] = __nv_fp8_e4m3(v);
        break;
    }
  }
}

__global__ void GemmCheck(ElementType in, ElementType out, const void* a, const void* b,
                          const void* d, int64_t m, int64_t n, int64_t k, int samples,
                          uint64_t seed, double accumulation_tolerance, double output_tolerance,
                          unsigned long long* wrong, unsigned long long* max_relative) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= samples) return;
  const int64_t i = static_cast<int64_t>(PatternHash(seed, 2 * s) % static_cast<uint64_t>(m));
  const int64_t j = static_cast<int64_t>(PatternHash(seed, 2 * s + 1) % static_cast<uint64_t>(n));
  double ref = 0;
  double magnitude = 0;
  for (int64_t kk = 0; kk < k; ++kk) {
    const double product = Load(in, a, i * k + kk) * Load(in, b, j * k + kk);
    ref += product;
    magnitude += fabs(product);
  }
  const double got = Load(out, d, j * m + i);
  const double error = fabs(got - ref);
  const double relative = error / (magnitude > 0 ? magnitude : 1.0);
  if (!(error <= accumulation_tolerance * magnitude + output_tolerance * fabs(ref))) {
    atomicAdd(wrong, 1ull);
  }
  // Non-negative doubles order like their bit patterns; NaN is recorded as the largest.
  const double recorded = relative == relative ? relative : 1e300;
  atomicMax(max_relative, static_cast<unsigned long long>(__double_as_longlong(recorded)));
}

}  // namespace

cudaError_t LaunchFillUniform(ElementType type, void* data, size_t n, uint64_t seed,
                              cudaStream_t stream) {
  size_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks > 65536) blocks = 65536;
  if (blocks == 0) blocks = 1;
  FillUniform<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(type, data, n, seed);
  return cudaGetLastError();
}

cudaError_t LaunchGemmCheck(ElementType in, ElementType out, const void* a, const void* b,
                            const void* d, int64_t m, int64_t n, int64_t k, int samples,
                            uint64_t seed, double accumulation_tolerance, double output_tolerance,
                            unsigned long long* wrong, unsigned long long* max_relative,
                            cudaStream_t stream) {
  const int blocks = (samples + kThreads - 1) / kThreads;
  GemmCheck<<<blocks, kThreads, 0, stream>>>(in, out, a, b, d, m, n, k, samples, seed,
                                             accumulation_tolerance, output_tolerance, wrong,
                                             max_relative);
  return cudaGetLastError();
}

}  // namespace xpuperf::cuda_bench::kernels
