// Memory kernels: HBM STREAM, the L2 read sweep, SM copies and the fill/check of data patterns.
#include <cmath>

#include "kernels.h"
#include "pattern.h"

namespace xpuperf::cuda_bench::kernels {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ size_t GlobalThread() {
  return static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ size_t GridThreads() {
  return static_cast<size_t>(gridDim.x) * blockDim.x;
}

int BlocksFor(size_t items) {
  const size_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65536 ? (blocks == 0 ? 1 : blocks) : 65536);
}

__device__ __forceinline__ double StreamA(size_t i) {
  return 1.0 + static_cast<double>(i % 1000) / 1000.0;
}
__device__ __forceinline__ double StreamB(size_t i) {
  return 2.0 - static_cast<double>(i % 997) / 1000.0;
}

__global__ void StreamInit(double* a, double* b, double* c, size_t n) {
  for (size_t i = GlobalThread(); i < n; i += GridThreads()) {
    a[i] = StreamA(i);
    b[i] = StreamB(i);
    c[i] = -1.0;
  }
}

template <StreamOp kOp>
__global__ void Stream(const double2* __restrict__ a, const double2* __restrict__ b,
                       double2* __restrict__ c, double s, size_t n2) {
  for (size_t i = GlobalThread(); i < n2; i += GridThreads()) {
    const double2 x = a[i];
    double2 r;
    if constexpr (kOp == StreamOp::kCopy) {
      r = x;
    } else if constexpr (kOp == StreamOp::kScale) {
      r = make_double2(s * x.x, s * x.y);
    } else {
      const double2 y = b[i];
      if constexpr (kOp == StreamOp::kAdd) {
        r = make_double2(x.x + y.x, x.y + y.y);
      } else {
        r = make_double2(x.x + s * y.x, x.y + s * y.y);
      }
    }
    c[i] = r;
  }
}

__global__ void StreamVerify(StreamOp op, const double* a, const double* b, const double* c,
                             double s, size_t n, unsigned long long* wrong) {
  unsigned long long local = 0;
  for (size_t i = GlobalThread(); i < n; i += GridThreads()) {
    double expected = a[i];
    if (op == StreamOp::kScale) expected = s * a[i];
    if (op == StreamOp::kAdd) expected = a[i] + b[i];
    if (op == StreamOp::kTriad) expected = a[i] + s * b[i];
    if (!(fabs(c[i] - expected) <= 1e-12 * fabs(expected))) ++local;
  }
  if (local != 0) atomicAdd(wrong, local);
}

__global__ void FillU32(uint32_t* data, size_t n, uint32_t seed) {
  for (size_t i = GlobalThread(); i < n; i += GridThreads()) data[i] = PatternU32(seed, i);
}

// Reads every vector `passes` times as one index space of n_vec x passes (j -> j mod n_vec), so a
// working set smaller than the grid still keeps every thread busy.
__global__ void ReadSum(const uint4* __restrict__ data, size_t n_vec, int passes,
                        unsigned int* sum) {
  if (n_vec == 0) return;
  unsigned int local = 0;
  const size_t total = n_vec * static_cast<size_t>(passes);
  const size_t threads = GridThreads();
  const size_t step = threads % n_vec;
  size_t i = GlobalThread() % n_vec;
  for (size_t j = GlobalThread(); j < total; j += threads) {
    const uint4 v = __ldcg(data + i);
    local += v.x + v.y + v.z + v.w;
    i += step;
    if (i >= n_vec) i -= n_vec;
  }
  // Warp reduction, then one atomic per warp.
  for (int offset = 16; offset > 0; offset /= 2)
    local += __shfl_down_sync(0xffffffffu, local, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(sum, local);
}

__device__ void CopyRange(char* dst, const char* src, size_t bytes, size_t thread, size_t threads) {
  const bool aligned =
      ((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 15) == 0;
  size_t done = 0;
  if (aligned) {
    const size_t vectors = bytes / 16;
    const uint4* s = reinterpret_cast<const uint4*>(src);
    uint4* d = reinterpret_cast<uint4*>(dst);
    for (size_t i = thread; i < vectors; i += threads) d[i] = s[i];
    done = vectors * 16;
  }
  for (size_t i = done + thread; i < bytes; i += threads) dst[i] = src[i];
}

__global__ void Copy(char* dst, const char* src, size_t bytes) {
  CopyRange(dst, src, bytes, GlobalThread(), GridThreads());
}

__global__ void DualCopy(char* dst1, const char* src1, char* dst2, const char* src2, size_t bytes) {
  const unsigned half = gridDim.x / 2;
  const bool first = blockIdx.x < half;
  const size_t block = first ? blockIdx.x : blockIdx.x - half;
  const size_t blocks = first ? half : gridDim.x - half;
  CopyRange(first ? dst1 : dst2, first ? src1 : src2, bytes, block * blockDim.x + threadIdx.x,
            blocks * blockDim.x);
}

__global__ void FillBytes(uint8_t* data, size_t bytes, uint64_t seed) {
  const size_t words = (bytes + 7) / 8;
  for (size_t w = GlobalThread(); w < words; w += GridThreads()) {
    const size_t begin = w * 8;
    if (begin + 8 <= bytes && (reinterpret_cast<uintptr_t>(data) & 7) == 0) {
      uint64_t word = 0;
      for (int b = 0; b < 8; ++b)
        word |= static_cast<uint64_t>(PatternByte(seed, begin + b)) << (8 * b);
      reinterpret_cast<uint64_t*>(data)[w] = word;
    } else {
      for (size_t i = begin; i < bytes && i < begin + 8; ++i) data[i] = PatternByte(seed, i);
    }
  }
}

__global__ void VerifyBytes(const uint8_t* data, size_t bytes, uint64_t seed,
                            unsigned long long* wrong, unsigned long long* first_wrong) {
  unsigned long long local = 0;
  unsigned long long first = ~0ull;
  const size_t words = (bytes + 7) / 8;
  for (size_t w = GlobalThread(); w < words; w += GridThreads()) {
    bool bad = false;
    for (size_t i = w * 8; i < bytes && i < w * 8 + 8; ++i) {
      if (data[i] != PatternByte(seed, i)) {
        if (!bad && i < first) first = i;
        bad = true;
      }
    }
    if (bad) ++local;
  }
  if (local != 0) {
    atomicAdd(wrong, local);
    atomicMin(first_wrong, first);
  }
}

__device__ __forceinline__ float PatternAt(float a, float b, uint64_t offset, uint64_t i) {
  return a + b * static_cast<float>((offset + i) % 97 + 1);
}

__global__ void FillPattern(float* data, uint64_t count, float a, float b, uint64_t offset) {
  for (size_t i = GlobalThread(); i < count; i += GridThreads())
    data[i] = PatternAt(a, b, offset, i);
}

__global__ void CheckPattern(const float* data, uint64_t count, float a, float b, uint64_t offset,
                             unsigned long long* wrong) {
  unsigned long long local = 0;
  for (size_t i = GlobalThread(); i < count; i += GridThreads()) {
    if (data[i] != PatternAt(a, b, offset, i)) ++local;
  }
  if (local != 0) atomicAdd(wrong, local);
}

}  // namespace

cudaError_t LaunchStreamInit(double* a, double* b, double* c, size_t n, cudaStream_t stream) {
  StreamInit<<<BlocksFor(n), kThreads, 0, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

cudaError_t LaunchStream(StreamOp op, const double* a, const double* b, double* c, double s,
                         size_t n, int blocks, cudaStream_t stream) {
  const auto* a2 = reinterpret_cast<const double2*>(a);
  const auto* b2 = reinterpret_cast<const double2*>(b);
  auto* c2 = reinterpret_cast<double2*>(c);
  const size_t n2 = n / 2;
  switch (op) {
    case StreamOp::kCopy:
      Stream<StreamOp::kCopy><<<blocks, kThreads, 0, stream>>>(a2, b2, c2, s, n2);
      break;
    case StreamOp::kScale:
      Stream<StreamOp::kScale><<<blocks, kThreads, 0, stream>>>(a2, b2, c2, s, n2);
      break;
    case StreamOp::kAdd:
      Stream<StreamOp::kAdd><<<blocks, kThreads, 0, stream>>>(a2, b2, c2, s, n2);
      break;
    case StreamOp::kTriad:
      Stream<StreamOp::kTriad><<<blocks, kThreads, 0, stream>>>(a2, b2, c2, s, n2);
      break;
  }
  return cudaGetLastError();
}

cudaError_t LaunchStreamVerify(StreamOp op, const double* a, const double* b, const double* c,
                               double s, size_t n, unsigned long long* wrong, cudaStream_t stream) {
  StreamVerify<<<BlocksFor(n), kThreads, 0, stream>>>(op, a, b, c, s, n, wrong);
  return cudaGetLastError();
}

cudaError_t LaunchFillU32(uint32_t* data, size_t n, uint32_t seed, cudaStream_t stream) {
  FillU32<<<BlocksFor(n), kThreads, 0, stream>>>(data, n, seed);
  return cudaGetLastError();
}

cudaError_t LaunchReadSum(const void* data, size_t n_vec, int passes, unsigned int* sum, int blocks,
                          cudaStream_t stream) {
  ReadSum<<<blocks, kThreads, 0, stream>>>(static_cast<const uint4*>(data), n_vec, passes, sum);
  return cudaGetLastError();
}

cudaError_t LaunchCopy(void* dst, const void* src, size_t bytes, int blocks, cudaStream_t stream) {
  Copy<<<blocks, kThreads, 0, stream>>>(static_cast<char*>(dst), static_cast<const char*>(src),
                                        bytes);
  return cudaGetLastError();
}

cudaError_t LaunchDualCopy(void* dst1, const void* src1, void* dst2, const void* src2, size_t bytes,
                           int blocks, cudaStream_t stream) {
  const int grid = blocks < 2 ? 2 : blocks;
  DualCopy<<<grid, kThreads, 0, stream>>>(static_cast<char*>(dst1), static_cast<const char*>(src1),
                                          static_cast<char*>(dst2), static_cast<const char*>(src2),
                                          bytes);
  return cudaGetLastError();
}

cudaError_t LaunchFillBytes(void* data, size_t bytes, uint64_t seed, cudaStream_t stream) {
  FillBytes<<<BlocksFor((bytes + 7) / 8), kThreads, 0, stream>>>(static_cast<uint8_t*>(data), bytes,
                                                                 seed);
  return cudaGetLastError();
}

cudaError_t LaunchVerifyBytes(const void* data, size_t bytes, uint64_t seed,
                              unsigned long long* wrong, unsigned long long* first_wrong,
                              cudaStream_t stream) {
  VerifyBytes<<<BlocksFor((bytes + 7) / 8), kThreads, 0, stream>>>(
      static_cast<const uint8_t*>(data), bytes, seed, wrong, first_wrong);
  return cudaGetLastError();
}

cudaError_t LaunchFillPattern(float* data, uint64_t count, float a, float b, uint64_t offset,
                              cudaStream_t stream) {
  FillPattern<<<BlocksFor(count), kThreads, 0, stream>>>(data, count, a, b, offset);
  return cudaGetLastError();
}

cudaError_t LaunchCheckPattern(const float* data, uint64_t count, float a, float b, uint64_t offset,
                               unsigned long long* wrong, cudaStream_t stream) {
  CheckPattern<<<BlocksFor(count), kThreads, 0, stream>>>(data, count, a, b, offset, wrong);
  return cudaGetLastError();
}

}  // namespace xpuperf::cuda_bench::kernels
