// The read-bandwidth kernel of the working-set sweep: a sum over a buffer with independent
// accumulators, so loads, not the add latency, limit it.
#pragma once

#include <cstdint>
#include <span>

#include "xpuperf/bench/fma_kernels.h"
#include "xpuperf/core/status.h"

namespace xpuperf::bench {

// data[i] = 1 + (i mod 16) / 4: never zero, and every partial sum is a multiple of 1/4 far below
// 2^53, so the sum is exact in any order.
void FillReadPattern(std::span<double> data);
// The exact sum of FillReadPattern's values over n elements.
double ExpectedReadSum(uint64_t n);
// Sums data with the widest variant `level` allows (AVX2: 8 vector accumulators).
double SumForBandwidth(SimdLevel level, std::span<const double> data);

}  // namespace xpuperf::bench
