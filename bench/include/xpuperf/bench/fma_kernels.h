// Peak floating-point kernels: independent FMA chains that stay in vector registers. Variants are
// compiled per ISA with target attributes and chosen at run time, so one binary runs on any x86-64.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::bench {

enum class Precision { kFp64, kFp32 };
enum class SimdLevel { kSse2, kAvx2Fma };

std::string_view PrecisionName(Precision precision);
std::string_view SimdLevelName(SimdLevel level);
// The widest variant the ISA flags (as in /proc/cpuinfo) allow: AVX2+FMA needs "avx2" and "fma".
SimdLevel BestSimdLevel(const std::vector<std::string>& flags);

// Independent accumulator registers per thread: Zen and Intel cores have an FMA latency of 4-5
// cycles and 2 FMA pipes, so at least 10 chains in flight are needed to keep both pipes busy.
inline constexpr int kFmaChains = 12;

// Lanes of one vector register: 128-bit SSE2 or 256-bit AVX2.
int VectorLanes(Precision precision, SimdLevel level);
// Values one kernel call produces (chains x lanes) and FLOPs it performs: every chain step is one
// FMA (or SSE2 multiply + add) per lane, 2 FLOPs.
int FmaOutputCount(Precision precision, SimdLevel level);
double FmaFlopsPerCall(Precision precision, SimdLevel level, int64_t iterations);

// The largest iteration count whose result is exact: each step adds a power of two to values in
// [1, 2), which stays exact while they stay below 2 (fp32: step 2^-23, fp64: step 2^-40).
int64_t MaxExactFmaIterations(Precision precision);

// Runs the chains: chain c starts at 1 + c/16 and does x = x * multiplier + step `iterations`
// times. multiplier must be 1 (passed at run time so the compiler cannot remove the multiply).
// Writes FmaOutputCount values (converted to double) to out.
void RunFmaChains(Precision precision, SimdLevel level, int64_t iterations, double multiplier,
                  std::span<double> out);

// Checks the values (any number of consecutive per-thread outputs) against the closed form
// 1 + c/16 + iterations x step; kInternal naming the first wrong value and the count of wrong ones.
Status VerifyFmaChains(Precision precision, SimdLevel level, int64_t iterations,
                       std::span<const double> values);

}  // namespace xpuperf::bench
