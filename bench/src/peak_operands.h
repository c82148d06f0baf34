// The inputs of one peak kernel call, as raw bit patterns computed by scalar code
// (peak_kernels.cpp), and the entry points of the per-ISA files. Plain data and declarations only:
// this header is also compiled under AVX-512 flags.
#pragma once

#include <cstdint>

namespace xpuperf::bench {

// Accumulator registers per kernel, shared by the traits (peak_kernels_<isa>.cpp) and the kernel
// table (peak_kernels.cpp), so the count the table reports is the count the loop runs.
inline constexpr int kMaxPeakChains = 12;
inline constexpr int kPeakChains = 12;
// The AVX2 int8 step is 3 instructions with 2 temporaries; more than 4 chains spill to the stack.
inline constexpr int kAvx2Int8PeakChains = 4;
// AMX: 4 accumulator tiles of 16 x 16 32-bit elements (the output of one call is 4 KiB).
inline constexpr int kAmxPeakTiles = 4;
inline constexpr int kAmxTileElements = 256;

struct PeakOperands {
  uint64_t start[kMaxPeakChains] =
      {};              // accumulator element of chain c (fp64/fp32/fp16/int32 bits)
  uint64_t a = 0;      // multiplicand element (fp, bf16 pair, u8 quad bits)
  uint64_t b[2] = {};  // addend (FMA) or second multiplicand (dot products)
};

using PeakKernelEntry = void (*)(int64_t iterations, const PeakOperands& ops, void* out);

// One per (ISA, precision); each lives in peak_kernels_<isa>.cpp, built with that ISA's flags.
void PeakChainsSse2Fp64(int64_t iterations, const PeakOperands& ops, void* out);
void PeakChainsSse2Fp32(int64_t iterations, const PeakOperands& ops, void* out);
void PeakChainsAvx2Fp64(int64_t iterations, const PeakOperands& ops, void* out);
void PeakChainsAvx2Fp32(int64_t iterations, const PeakOperands& ops, void* out);
void PeakChainsAvx2Int8(int64_t iterations, const PeakOperands& ops, void* out);
void PeakChainsAvxVnniInt8(int64_t iterations, const PeakOperands& ops, void* out);
void PeakChainsAvx512Fp64(int64_t iterations, const PeakOperands& ops, void* out);
void PeakChainsAvx512Fp32(int64_t iterations, const PeakOperands& ops, void* out);
void PeakChainsAvx512Bf16(int64_t iterations, const PeakOperands& ops, void* out);
void PeakChainsAvx512VnniInt8(int64_t iterations, const PeakOperands& ops, void* out);
void PeakChainsAvx512Fp16(int64_t iterations, const PeakOperands& ops, void* out);
void PeakTilesAmxBf16(int64_t iterations, const PeakOperands& ops, void* out);
void PeakTilesAmxInt8(int64_t iterations, const PeakOperands& ops, void* out);

}  // namespace xpuperf::bench
