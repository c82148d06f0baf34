// Data patterns shared by host and device code: the same function fills on one side and checks on
// the other. Never zero.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define XPUPERF_HOST_DEVICE __host__ __device__
#else
#define XPUPERF_HOST_DEVICE
#endif

namespace xpuperf::cuda_bench {

// splitmix64 of (seed, index).
XPUPERF_HOST_DEVICE inline uint64_t PatternHash(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Byte `offset` of a transfer buffer: a byte of the hash of its 8-byte word, never 0.
XPUPERF_HOST_DEVICE inline uint8_t PatternByte(uint64_t seed, uint64_t offset) {
  const uint8_t byte = static_cast<uint8_t>(PatternHash(seed, offset / 8) >> (8 * (offset % 8)));
  return byte == 0 ? 0x5A : byte;
}

XPUPERF_HOST_DEVICE inline uint32_t PatternU32(uint32_t seed, uint64_t index) {
  return static_cast<uint32_t>(PatternHash(seed, index) >> 16) | 1u;
}

// Uniform in [-1, 1): 24 random bits.
XPUPERF_HOST_DEVICE inline float PatternUniform(uint64_t seed, uint64_t index) {
  const uint32_t bits = static_cast<uint32_t>(PatternHash(seed, index) >> 40);
  return static_cast<float>(bits) * (2.0f / 16777216.0f) - 1.0f;
}

}  // namespace xpuperf::cuda_bench
