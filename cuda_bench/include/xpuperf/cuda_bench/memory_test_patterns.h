// The memory test's patterns, one definition for host memory (diag's host test) and device memory
// (the CUDA kernels): word `index` of pattern `pattern` in a pass seeded with `seed`. Plain C++
// that nvcc also compiles for the device.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define XPUPERF_MEMTEST_HOST_DEVICE __host__ __device__
#else
#define XPUPERF_MEMTEST_HOST_DEVICE
#endif

namespace xpuperf::cuda_bench {

// zeros, ones, walking ones, checkerboard (alternating per word), each word's own byte offset, and
// a seeded pseudo-random stream (splitmix64): stuck bits, coupled neighbours, address-line faults
// and data-dependent faults, as memtest-style tests cover them.
inline constexpr int kMemoryTestPatterns = 6;
inline constexpr const char* kMemoryTestPatternNames[kMemoryTestPatterns] = {
    "zeros", "ones", "walking-ones", "checkerboard", "own-address", "random"};

XPUPERF_MEMTEST_HOST_DEVICE inline uint64_t MemoryTestWord(int pattern, uint64_t index,
                                                           uint64_t seed) {
  switch (pattern) {
    case 0:
      return 0;
    case 1:
      return ~uint64_t{0};
    case 2:
      return uint64_t{1} << (index % 64);
    case 3:
      return (index & 1) != 0 ? 0x5555555555555555ULL : 0xaaaaaaaaaaaaaaaaULL;
    case 4:
      return index * 8;
    default: {
      uint64_t x = (index ^ (seed << 32)) + 0x9e3779b97f4a7c15ULL;
      x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
      x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
      return x ^ (x >> 31);
    }
  }
}

}  // namespace xpuperf::cuda_bench
