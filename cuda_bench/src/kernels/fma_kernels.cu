// Peak arithmetic: independent FMA chains in registers, no memory traffic in the loop.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels.h"

namespace xpuperf::cuda_bench::kernels {
namespace {

constexpr int kChains = 8;

__device__ __forceinline__ double Fma(double x, double m, double c) { return fma(x, m, c); }
__device__ __forceinline__ float Fma(float x, float m, float c) { return fmaf(x, m, c); }
__device__ __forceinline__ __half2 Fma(__half2 x, __half2 m, __half2 c) { return __hfma2(x, m, c); }
__device__ __forceinline__ __nv_bfloat162 Fma(__nv_bfloat162 x, __nv_bfloat162 m,
                                              __nv_bfloat162 c) {
  return __hfma2(x, m, c);
}

template <typename T>
__device__ __forceinline__ T FromFloat(float v) {
  if constexpr (std::is_same_v<T, __half2>) {
    return __floats2half2_rn(v, v + 0.03125f);
  } else if constexpr (std::is_same_v<T, __nv_bfloat162>) {
    return __floats2bfloat162_rn(v, v + 0.03125f);
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
__device__ __forceinline__ double LaneSum(T x) {
  if constexpr (std::is_same_v<T, __half2>) {
    return static_cast<double>(__low2float(x)) + static_cast<double>(__high2float(x));
  } else if constexpr (std::is_same_v<T, __nv_bfloat162>) {
    return static_cast<double>(__low2float(x)) + static_cast<double>(__high2float(x));
  } else {
    return static_cast<double>(x);
  }
}

template <typename T>
__global__ void FmaChains(double* out, int64_t iterations, T m, T c) {
  const int64_t thread = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  T x[kChains];
#pragma unroll
  for (int j = 0; j < kChains; ++j) {
    x[j] = FromFloat<T>(1.0f + 0.125f * j + 0.0625f * static_cast<float>(thread % 8));
  }
#pragma unroll 4
  for (int64_t i = 0; i < iterations; ++i) {
#pragma unroll
    for (int j = 0; j < kChains; ++j) x[j] = Fma(x[j], m, c);
  }
  double sum = 0;
#pragma unroll
  for (int j = 0; j < kChains; ++j) sum += LaneSum(x[j]);
  out[thread] = sum;
}

}  // namespace

cudaError_t LaunchFmaChains(FmaType type, double* out, int blocks, int threads, int64_t iterations,
                            double m, double c, cudaStream_t stream) {
  const auto fm = static_cast<float>(m);
  const auto fc = static_cast<float>(c);
  switch (type) {
    case FmaType::kFp64:
      FmaChains<double><<<blocks, threads, 0, stream>>>(out, iterations, m, c);
      break;
    case FmaType::kFp32:
      FmaChains<float><<<blocks, threads, 0, stream>>>(out, iterations, fm, fc);
      break;
    case FmaType::kFp16:
      FmaChains<__half2><<<blocks, threads, 0, stream>>>(out, iterations, __floats2half2_rn(fm, fm),
                                                         __floats2half2_rn(fc, fc));
      break;
    case FmaType::kBf16:
      FmaChains<__nv_bfloat162><<<blocks, threads, 0, stream>>>(
          out, iterations, __floats2bfloat162_rn(fm, fm), __floats2bfloat162_rn(fc, fc));
      break;
  }
  return cudaGetLastError();
}

}  // namespace xpuperf::cuda_bench::kernels
