// The device-memory pattern test of `xpuperf diag -r 2`: one kernel writes a pattern, a second one
// reads every word back and counts the wrong ones (the patterns are the host test's).
#include "kernels.h"
#include "xpuperf/cuda_bench/memory_test_patterns.h"

namespace xpuperf::cuda_bench::kernels {
namespace {

constexpr int kThreads = 256;

int BlocksFor(size_t items) {
  const size_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65536 ? (blocks == 0 ? 1 : blocks) : 65536);
}

__global__ void MemtestFill(uint64_t* data, size_t words, int pattern, uint64_t seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += stride) {
    data[i] = MemoryTestWord(pattern, i, seed);
  }
}

__global__ void MemtestVerify(const uint64_t* data, size_t words, int pattern, uint64_t seed,
                              unsigned long long* wrong, unsigned long long* first_wrong) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += stride) {
    // A volatile read: every word comes from memory, none from a value the compiler kept.
    if (static_cast<const volatile uint64_t*>(data)[i] != MemoryTestWord(pattern, i, seed)) {
      ++mine;
      atomicMin(first_wrong, static_cast<unsigned long long>(i));
    }
  }
  if (mine != 0) atomicAdd(wrong, mine);
}

}  // namespace

cudaError_t LaunchMemtestFill(uint64_t* data, size_t words, int pattern, uint64_t seed,
                              cudaStream_t stream) {
  MemtestFill<<<BlocksFor(words), kThreads, 0, stream>>>(data, words, pattern, seed);
  return cudaGetLastError();
}

cudaError_t LaunchMemtestVerify(const uint64_t* data, size_t words, int pattern, uint64_t seed,
                                unsigned long long* wrong, unsigned long long* first_wrong,
                                cudaStream_t stream) {
  MemtestVerify<<<BlocksFor(words), kThreads, 0, stream>>>(data, words, pattern, seed, wrong,
                                                           first_wrong);
  return cudaGetLastError();
}

}  // namespace xpuperf::cuda_bench::kernels
